// expect: 8: `t` is volatile
double A[100][100], B[100];
void f(int n) {
  int i, j;
  volatile double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = 0.0;
    for (j = 0; j < n; j++)
      t += A[i][j];
    B[i] = t;
  }
#pragma endscop
}
