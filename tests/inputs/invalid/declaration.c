// expect: 6: declaration inside a SCoP
void k(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    double t = A[i];
    A[i] = t * 2.0;
  }
#pragma endscop
}
