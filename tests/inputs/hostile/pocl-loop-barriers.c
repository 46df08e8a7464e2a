// expect: output
// fallback opencl: without barriers (7 barriers in one loop, over 4)
// Differential seed 47800: 26 barriers in its OpenCL kernel, below device::SERIAL_BARRIERS, but
// eleven barrier loops of which two hold 7 and 6 barriers; PoCL took 56 s to build it on the first
// run. Past device::SERIAL_LOOP_BARRIERS in one loop the kernel runs each tile on one work-item.
/* random affine program, seed 47800 */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 1; i < m - 1; i++) {
    for (j = i + 1; j < n; j++) {
      x[(i + j) / 2 + 2] += x[j + 1] + A[j + 1][i + 2] + x[i + 2] * 0.5 + 1.0;
      for (k = j + 1; k < n; k += 2) {
        B[k + 4][k + 3] = B[k + 1][k + 4] + A[0][i + 2] * 0.5 + 1.0;
        B[i + 0][k + 0] += A[(i + i) / 2 + 2][k + 2] + x[k + 3] + s * 0.5 + 1.0;
      }
      A[j + 3][i + 4] = s + x[(i + j) / 2 + 2] * 0.5 + 1.0;
    }
  }
  for (i = n; i >= 1; i--) {
    for (j = i + 1; j < n; j++) {
      if (i % 2 == 0) {
        B[j + 0][i + 0] = B[2][(i + j) / 2 + 2] * 0.5 + 1.0;
      }
      A[i + 4][i + 0] += A[2][j + 2] + x[i + 4] * 0.5 + 1.0;
    }
  }
  for (i = 0; i < m; i++) {
    B[i + 3][i + 4] += x[i + 4] * 0.5 + 1.0;
    A[i + 4][i + 1] = x[i + 2] + x[i + 4] + x[i + 3] * 0.5 + 1.0;
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
  long r = kernel(3, 12, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
