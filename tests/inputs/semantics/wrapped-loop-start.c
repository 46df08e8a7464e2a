/* Seed 8665 without its guard: `k = j - 2` wraps for `j < 2`, so the model keeps the
   conversion modulo 2^32, and the scheduler's coefficient bounds keep that modulus out of the
   schedule (an unbounded ILP chose 715827882*k + 2147483646: a walk over 10^9 empty tiles). */
#include <stddef.h>
long kernel(size_t n, size_t m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = n; i >= 1; i--) {
    for (j = 0; j < n; j++) {
      for (k = 0; k <= j; k++) {
        B[k + 3][j + 3] = s + B[i + 1][k + 3] * 0.5 + 1.0;
      }
    }
  }
  for (i = 1; i < n - 1; i++) {
    for (j = 1; j < m - 1; j++) {
      for (k = j - 2; k < n; k++) {
        if (k + k < n) {
          A[j + 3][0] = B[k + 0][j + 3] + A[j + 3][k + 1] + s * 0.5 + 1.0;
        } else {
          A[j + 0][1] += B[j + 0][k + 2] * 0.5 + 1.0;
        }
      }
    }
  }
  for (i = 0; i < n; i++) {
    B[i + 1][i + 0] += B[i + 3][i + 1] + x[i + 4] * 0.5 + 1.0;
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
  long r = kernel(10, 6, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
