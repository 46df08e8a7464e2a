/* Differential seed 2910, shrunk: on the GPU targets, isl derived one mapped dimension from
   another (`c1 = c2 / 3` for the else branch of the third nest) and wrote no loop over it, so
   every work-item with the right c2 ran the instance (tile sizes 2 and 4 on PoCL). */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  int i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i++) {
    for (j = 0; j < m; j++) {
      A[j + 0][j + 1] += B[i + 3][1] + B[(j + j) / 2 + 2][(j + i) / 2 + 2] * 0.5 + 1.0;
    }
  }
  for (i = 0; i < n; i++) {
    A[i + 1][i + 2] = x[i + 1] * 0.5 + 1.0;
    x[i + 0] = x[i + 4] * 0.5 + 1.0;
  }
  for (i = 0; i < n; i += 3) {
    if (i <= m - 2 && i > 0) {
      B[i + 0][i + 1] = B[1][i + 1] * 0.5 + 1.0;
    } else {
      x[i + 4] += A[i + 2][i + 2] + A[i + 1][i + 0] + A[i + 1][2] * 0.5 + 1.0;
    }
    for (j = 0; j <= i; j++) {
      if (j + j < n) {
        x[j + 2] = A[i + 3][0] + x[j + 2] * 0.5 + 1.0;
      }
      for (k = j + 1; k < n; k++) {
        B[i + 2][j + 1] = x[k + 4] * 0.5 + 1.0;
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
  long r = kernel(14, 7, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
