/* Differential seed 46267 (C target): a group called at the outer value `-m` of an unsigned `m` received `const long polyc_x2 = -m;`, 2^32 - m instead of -m, and the host walked some 2^32 / T0 tiles (minutes at POLYC_TILE_SIZES=2,16, where the original takes a millisecond). The values of a group call are control expressions now, computed in long. */
/* random affine program, seed 46267 */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i + 4] = x[i + 4] * 0.5 + 1.0;
  }
  for (i = m; i >= 1; i--) {
    x[1] += x[i + 1] * 0.5 + 1.0;
    for (j = 0; j < m; j++) {
      if (i <= m - 2 && j > 0) {
        A[i + 2][(j + j) / 2 + 2] += s + x[2] + x[j + 1] * 0.5 + 1.0;
      }
      for (k = j + 1; k < n; k++) {
        B[i + 2][j + 3] += x[0] + A[(i + j) / 2 + 2][(k + k) / 2 + 2] * 0.5 + 1.0;
      }
    }
    B[i + 2][i + 0] += B[2][i + 1] + B[i + 0][i + 0] * 0.5 + 1.0;
  }
  for (i = n; i >= 1; i--) {
    for (j = 0; j < (n < i + 4 ? n : i + 4); j++) {
      x[(i + i) / 2 + 2] += B[0][j + 3] + A[0][j + 4] + B[i + 3][i + 2] * 0.5 + 1.0;
    }
    B[i + 0][i + 4] += x[i + 4] * 0.5 + 1.0;
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
  long r = kernel(12, 23, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
