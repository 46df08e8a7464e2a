// expect: 3: preprocessor: unterminated comment
int f(int n, double *a) {
  /* never closed
  return 0;
}
