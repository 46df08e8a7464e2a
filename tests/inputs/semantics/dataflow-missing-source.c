/* Differential seed 28744 (shrunk): isl 0.27's exact dataflow gave most reads of x in the second
   nest no source in the first, and the schedule ran them before those writes
   (rosepolly/src/analysis/deps.rs, last). */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  int i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = i + 1; j < m; j++) {
      for (k = (j > 2 ? j - 2 : 0); k < m; k += 2) {
        if (j % 2 == 0) {
          x[i + 0] = B[k + 3][0] * 0.5 + 1.0;
        } else {
        }
      }
    }
  }
  for (i = 0; i < m; i++) {
    for (j = 0; j < (n < i + 4 ? n : i + 4); j++) {
      B[i + 2][i + 1] += x[j + 3] * 0.5 + 1.0;
      x[i + 3] = A[j + 3][(j + i) / 2 + 2] + x[i + 2] + s * 0.5 + 1.0;
    }
    x[i + 2] = B[i + 1][i + 2] + B[1][2] + B[i + 4][0] * 0.5 + 1.0;
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
  long r = kernel(22, 21, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
