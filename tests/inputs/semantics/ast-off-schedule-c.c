/* Differential seed 21552 (shrunk): isl 0.27 shifted statements along j ("shifted strides") and
   ran one of them an iteration late, and the program computed another s. polyc's AST options
   now keep isl from shifting (rosepolly/src/math/ast_check.rs, isl::ast_options). */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  long i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = m - 1; i >= 0; i--) {
    for (j = 1; j < n - 1; j += 2) {
      x[(i + j) / 2 + 2] += s + x[0] * 0.5 + 1.0;
      for (k = 0; k < (m < j + 4 ? m : j + 4); k++) {
        if (i % 2 == 0) {
          x[i + 2] += s + B[j + 3][j + 1] * 0.5 + 1.0;
        } else {
          x[2] = B[k + 3][(j + k) / 2 + 2] * 0.5 + 1.0;
        }
        s += x[i + 2] * 0.5 + 1.0;
      }
    }
  }
  for (i = 1; i < m - 1; i++) {
    for (j = 0; j < m; j++) {
      A[j + 3][j + 1] = A[j + 1][0] + B[j + 2][j + 1] + A[j + 0][1] * 0.5 + 1.0;
      for (k = j + 1; k < m; k++) {
        A[j + 2][j + 2] = x[i + 4] * 0.5 + 1.0;
        A[k + 2][i + 3] = s * 0.5 + 1.0;
      }
      B[1][i + 2] += A[i + 3][i + 4] + x[i + 0] + x[2] * 0.5 + 1.0;
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
  long r = kernel(9, 2, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
