// expect: output
/* isl 0.27 fails to generate the AST of this schedule with the `separate` option ("total
   dimensionality changed unexpectedly"; differential test, seed 11): polyc generates it without. */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = i + 1; j < m; j++) {
      if (i >= j + 1) {
        B[1][j + 4] = B[j + 2][i + 3] * 0.5 + 1.0;
      } else {
        x[j + 3] = B[j + 1][i + 0] + A[j + 2][(i + i) / 2 + 2] + s * 0.5 + 1.0;
      }
      for (k = n; k >= 1; k--) {
        x[j + 0] = A[k + 1][i + 2] * 0.5 + 1.0;
      }
    }
  }
  for (i = 0; i < n; i++) {
    A[i + 0][i + 2] += A[i + 1][i + 3] + s + B[i + 4][i + 3] * 0.5 + 1.0;
    x[i + 0] = A[i + 4][i + 3] + s * 0.5 + 1.0;
  }
  for (i = 0; i < m; i++) {
    if (i % 2 == 0) {
      A[i + 0][i + 1] = A[i + 0][i + 0] + B[i + 1][i + 1] * 0.5 + 1.0;
    } else {
      x[i + 1] = s + x[i + 1] + s * 0.5 + 1.0;
    }
    for (j = (i > 2 ? i - 2 : 0); j < m; j++) {
      x[j + 1] = A[(j + j) / 2 + 2][j + 4] + s + B[(j + i) / 2 + 2][j + 0] * 0.5 + 1.0;
      for (k = 0; k < m; k++) {
        if (i <= m - 2 && j > 0) {
          A[i + 1][i + 4] = A[k + 3][i + 1] * 0.5 + 1.0;
        }
      }
    }
  }
#pragma endscop
  x[0] += s;
  return (long)i * 10000 + (long)j * 100 + (long)k;
}
