#include <stdio.h>

#define N 64

double A[N][N], B[N][N], x[N];

/* The affine parts of this file are found without pragmas; the rest is left alone. */
int main(void) {
  int i, j, t, iter = 0;
  double err = 1.0;

  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      A[i][j] = (double)(i + j) / N;

  while (err > 1e-3 && iter < 100) {
    for (t = 0; t < 4; t++)
      for (i = 1; i < N - 1; i++)
        B[t][i] = 0.5 * (A[t][i - 1] + A[t][i + 1]);
    err = err / 2;
    iter++;
  }

  for (i = 0; i < N; i++)
    x[i] = A[i][i];
  printf("%f\n", x[3]);
  for (i = 0; i < N; i++) {
    if (x[i] > 0.5)
      x[i] = 0.5;
  }
  return 0;
}
