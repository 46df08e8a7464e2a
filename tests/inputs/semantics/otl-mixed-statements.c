/* Differential seed 43970 (OpenCL): a one-time loop around a block of several statements took the first statement's value for every one of them. Under x0 + 1 >= m the block held S2 (its own guard x0 + 1 == m gives c4 = m - 1) and S4 (c4 = x0); the OTL c4 = m - 1 made the GPU kernel skip S4 wherever x0 > m - 1. */
/* random affine program, seed 43970 */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  short i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = (i > 2 ? i - 2 : 0); j < m; j++) {
      s = s + B[i + 4][(i + j) / 2 + 2] * 0.5 + 1.0;
      for (k = 0; k <= j; k++) {
        if (i >= j + 1) {
          B[k + 1][i + 0] += A[i + 4][i + 4] + B[j + 1][2] + B[k + 2][i + 4] * 0.5 + 1.0;
        } else {
          B[2][k + 1] += A[k + 2][i + 2] * 0.5 + 1.0;
        }
        if (i <= m - 2 && k > 0) {
          A[k + 3][(k + j) / 2 + 2] += x[j + 3] * 0.5 + 1.0;
        } else {
          B[j + 3][j + 1] += B[k + 0][j + 0] + s + s * 0.5 + 1.0;
        }
      }
    }
  }
#pragma endscop
  x[0] += s;
  return (long)i * 10000 + (long)j * 100 + (long)k;
}

#include <stdio.h>
static double A[30][30], B[30][30], x[30];
int main(void) {
  for (int a = 0; a < 30; a++) {
    x[a] = a * 0.25;
    for (int b = 0; b < 30; b++) {
      A[a][b] = (a * 3 + b) % 7 * 0.5;
      B[a][b] = (a + 2 * b) % 5 * 0.25;
    }
  }
  long r = kernel(16, 9, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
