/* Differential test, seed 89 shrunk: isl 0.27 fails in compute_flow on this strided nest with a condition; polyc falls back to the dependences without kills. */
/* random affine program, seed 89 */
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
  long r = kernel(2, 17, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
