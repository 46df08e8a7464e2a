// expect: output
/* Random program 9 of the rich generator (strides, min/max bounds, conditions, unsigned
   iterators): isl's dependence analysis took 21 s and the whole compilation 7.5 minutes. Each
   step of the analysis is now bounded; past the bound the SCoP keeps its original code, with a
   warning, in about 3 s. */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i++) {
    for (j = 0; j < (m < i + 4 ? m : i + 4); j++) {
      for (k = (j > 2 ? j - 2 : 0); k < n; k++) {
        if (k % 2 == 0) {
          B[j + 4][k + 1] = x[1] + A[k + 3][j + 0] + B[j + 0][1] * 0.5 + 1.0;
        } else {
          x[j + 2] += A[k + 0][k + 3] + B[k + 2][i + 2] + x[i + 1] * 0.5 + 1.0;
        }
        if (k + i < n) {
          B[i + 3][1] += x[1] + s * 0.5 + 1.0;
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
  long r = kernel(15, 17, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
