/* Differential seed 36000 (shrunk): isl wrote the final value of `i` (3 * ceil(m / 3)) through
   the wrapped `m - 2` of the condition, with a product past 2^63 for m = 1, and polyc set i to
   50000 / 10000 = 5 instead of 3. Intermediate values are now bounded over the parameters' C
   types (codegen/src/exits.rs); this SCoP keeps its original code. */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  short i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i += 3) {
        if (j <= m - 2 && k > 0) {
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
  long r = kernel(2, 1, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
