// expect: output
/* Windows line ends. */
double A[10];
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] + 1.0;
#pragma endscop
}
