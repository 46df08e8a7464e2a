// expect: output
// fallback opencl: without barriers (66 barriers, over 48)
// Differential seed 6400: its OpenCL kernel has 66 barriers, and PoCL's work-group compiler
// ran past 120 s on its first launch (BarrierTailReplication, pocl issue #205). Past 48
// barriers an OpenCL kernel runs each tile on one work-item, without barriers (device::serial).
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i += 2) {
    if (i <= m - 2 && i > 0) {
      A[i + 1][i + 2] = A[i + 0][i + 1] + A[i + 0][1] * 0.5 + 1.0;
    }
    for (j = 0; j <= i; j++) {
      for (k = j + 1; k < n; k++) {
        A[(j + k) / 2 + 2][k + 0] = A[j + 2][j + 4] + x[i + 2] + x[(k + j) / 2 + 2] * 0.5 + 1.0;
      }
    }
  }
  for (i = 0; i < m; i++) {
    for (j = 0; j < n; j++) {
      s = s + x[j + 3] + B[j + 1][(i + i) / 2 + 2] * 0.5 + 1.0;
      B[(i + j) / 2 + 2][j + 1] += x[i + 0] + x[j + 0] + A[2][j + 4] * 0.5 + 1.0;
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
  long r = kernel(19, 8, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
