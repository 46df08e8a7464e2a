/* Differential seed 46641: isl 0.27 failed inside the lexicographic maximum of the exit events of `k` ("affine expression involves some of the domain dimensions", a panic in polyc) although it maximises the same set read back from its printed form. Set::try_lexmax retries on equivalent rewritings; where all fail, polyc reports the iterator at its last loop (exit 1). */
/* random affine program, seed 46641 */
#include <stddef.h>
long kernel(size_t n, size_t m, double A[30][30], double B[30][30], double x[30])
{
  long i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i += 2) {
    for (j = 0; j <= i; j++) {
      for (k = 0; k < (n < j + 4 ? n : j + 4); k++) {
      }
    }
  }
  for (i = 0; i < n; i++) {
    for (j = 0; j < (m < i + 4 ? m : i + 4); j++) {
      if (i <= m - 2 && j > 0) {
      } else {
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
  long r = kernel(8, 7, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
