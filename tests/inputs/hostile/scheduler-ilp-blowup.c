// expect: output
/* A random program (differential test, seed 98) on which the scheduler's integer programs grew
   microlp's branch-and-bound tree past 18 GB in a minute; with the node budget, isl decides. */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = m; i >= 1; i--) {
    x[i + 2] += x[i + 2] + B[i + 4][i + 4] * 0.5 + 1.0;
    A[i + 0][i + 3] = x[i + 0] + B[1][i + 4] + B[i + 2][i + 1] * 0.5 + 1.0;
  }
  for (i = m; i >= 1; i--) {
    for (j = 1; j < m - 1; j++) {
      for (k = 0; k <= j; k++) {
        x[k + 4] = A[(k + i) / 2 + 2][1] * 0.5 + 1.0;
      }
      A[i + 1][(j + i) / 2 + 2] = B[j + 0][i + 0] + x[i + 4] + A[i + 2][i + 0] * 0.5 + 1.0;
    }
  }
#pragma endscop
  x[0] += s;
  return (long)i * 10000 + (long)j * 100 + (long)k;
}
