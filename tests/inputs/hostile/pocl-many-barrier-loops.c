// expect: output
// fallback opencl: without barriers (12 loops holding barriers, over 8)
// Differential seed 62160: 24 barriers in its OpenCL kernel, at most 4 in one loop, but twelve
// loops holding barriers; PoCL took 104-130 s to build it, again for each work-group size (tile
// sizes 33,33, 32 and 1). Past device::SERIAL_BARRIER_LOOPS the kernel runs each tile on one
// work-item.
/* random affine program, seed 62160 */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  long i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < m; i += 3) {
    for (j = (i > 2 ? i - 2 : 0); j < n; j++) {
      A[2][i + 1] += B[j + 0][i + 4] * 0.5 + 1.0;
    }
  }
  for (i = 1; i < m - 1; i++) {
    x[i + 4] += A[i + 2][i + 1] + B[1][2] * 0.5 + 1.0;
    A[i + 3][i + 3] += x[i + 1] * 0.5 + 1.0;
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
  long r = kernel(21, 19, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
