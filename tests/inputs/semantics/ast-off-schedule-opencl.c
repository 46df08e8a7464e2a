/* Differential seed 21080 (shrunk): isl 0.27 shifted statements along a strided dimension, so a
   loop polyc ran in parallel on the GPU targets was not the time dimension it read it as
   (rosepolly/src/math/ast_check.rs, isl::ast_options). */
#include <stddef.h>
long kernel(long n, long m, double A[30][30], double B[30][30], double x[30])
{
  long i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i += 3) {
    for (j = 0; j <= i; j += 2) {
      if (j <= m - 2 && j > 0) {
        A[j + 4][2] = s + B[i + 2][j + 3] * 0.5 + 1.0;
      } else {
        x[1] = s + B[1][i + 1] * 0.5 + 1.0;
      }
      x[(j + j) / 2 + 2] += x[j + 0] + A[2][j + 3] * 0.5 + 1.0;
    }
  }
  for (i = 0; i < m; i++) {
    for (j = i + 1; j < n; j += 2) {
        A[i + 3][j + 2] += B[i + 3][j + 2] * 0.5 + 1.0;
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
  long r = kernel(10, 3, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
