// expect: output
/* isl 0.27 fails in compute_flow ("affine expression involves some of the domain dimensions")
   on this strided nest with a condition (differential test, seed 89, shrunk): polyc takes the
   dependences without kills instead. */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  int i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i += 3) {
    for (j = i + 1; j < n; j++) {
      s += A[j + 2][j + 1] * 0.5 + 1.0;
      if (j <= m - 2 && j > 0) {
      } else {
        s += x[(i + i) / 2 + 2] * 0.5 + 1.0;
      }
    }
  }
#pragma endscop
  x[0] += s;
  return (long)i * 10000 + (long)j * 100 + (long)k;
}
