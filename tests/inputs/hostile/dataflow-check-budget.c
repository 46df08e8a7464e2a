// expect: output
// fallback: analysis: the dependences on `B` count every earlier write as a source
/* Differential seed 29033 (shrunk): isl's exact dataflow answer is checked on strided accesses
   (rosepolly/src/analysis/deps.rs, holds); that check ran for minutes in isl's subset test on
   this program before it was bounded. Past its bound the analysis keeps every earlier write as a
   source (more dependences, still legal). */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 1; i < m - 1; i++) {
    for (j = 0; j < (m < i + 4 ? m : i + 4); j += 3) {
      A[i + 0][i + 1] += B[i + 1][j + 0] + B[i + 3][j + 0] + x[1] * 0.5 + 1.0;
      for (k = j + 1; k < n; k++) {
        B[(i + k) / 2 + 2][2] += x[j + 3] + A[j + 0][j + 1] + B[k + 4][k + 1] * 0.5 + 1.0;
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
  long r = kernel(12, 5, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
