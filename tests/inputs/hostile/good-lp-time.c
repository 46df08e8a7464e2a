// expect: output
/* A random program (differential test, seed 2728, shrunk) on which microlp solved the scheduler's
   integer programs for minutes within its node budget; isl decides them in under a second.
   good_lp now gets 2 s per lexicographic minimum (pluto::ilp::GOOD_LP_TIME), then isl decides. */
/* random affine program, seed 2728 */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = n; i >= 1; i--) {
    A[i + 1][i + 4] = x[i + 4] + B[i + 1][i + 3] + B[1][i + 1] * 0.5 + 1.0;
    for (j = i + 1; j < m; j++) {
      B[j + 4][j + 2] += B[(i + i) / 2 + 2][1] + B[j + 4][j + 3] + s * 0.5 + 1.0;
    }
  }
  for (i = 0; i < m; i++) {
    if (i >= i + 1) {
      x[i + 4] = A[i + 2][i + 3] + s + x[i + 3] * 0.5 + 1.0;
    }
    for (j = (i > 2 ? i - 2 : 0); j < n; j++) {
      x[i + 1] += A[(j + j) / 2 + 2][i + 2] + B[j + 2][(j + j) / 2 + 2] * 0.5 + 1.0;
      A[i + 0][j + 1] += s + x[j + 2] + s * 0.5 + 1.0;
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
  long r = kernel(22, 1, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
