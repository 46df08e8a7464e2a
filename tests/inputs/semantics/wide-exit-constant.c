/* Iterators' final values whose isl formula needs constants beyond 64 bits (C's wrap-around of
   the unsigned bound n - 1): the SCoP keeps its original code, with a warning. Found by the
   whole_compiler fuzz target (fuzz/). */
/* random affine program, seed 87109 */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  long i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 1; i < n - 1; i += 3) {
    for (j = 0; j < (n < i + 4 ? n : i + 4); j += 2) {
      s += x[j + 1] * 0.5 + 1.0;
    }
    if (i <= m - 2 && i > 0) {
      s += B[i + 2][i + 4] + x[i + 2] * 0.5 + 1.0;
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
  long r = kernel(23, 5, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
