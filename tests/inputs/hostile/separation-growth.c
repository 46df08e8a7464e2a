// expect: output under 300000 bytes
// fallback opencl: without barriers (41 loops holding barriers, over 8)
// fallback: code generation: an AST built without isl's `separate` option (statements guarded inside loops instead of loops split where they change): separation made 48 statement calls where 17 do
// Differential seed 4850: isl's `separate` split the tile body into 48 statement calls where
// guarded loops need 17, and the C grew to 338 KB (about 228 KB now). Past 32 calls, the plain AST is
// taken when separation adds half as many again. The count of the steps that hold tiles, for a
// busy machine's threads (codegen::host, `busy_steps`: another copy of each wavefront group's
// probe, 9.6-9.9 KB each here) took it from about 239 KB to 268 KB; the bound stays well under
// the 338 KB of the growth it guards against. (The seed's bounds were `size_t`; the final
// value of `i` under C's wrap-around then needs more than 64 bits, and the SCoP kept its original
// code, which exercised nothing here: `int` keeps the schedule and the separation.)
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  int i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = (i > 2 ? i - 2 : 0); j < n; j++) {
      s += B[i + 0][j + 2] + B[j + 1][0] * 0.5 + 1.0;
    }
  }
  for (i = 1; i < m - 1; i += 2) {
    for (j = 0; j <= i; j++) {
      for (k = 1; k < n - 1; k++) {
        B[j + 0][i + 2] += A[i + 1][k + 3] * 0.5 + 1.0;
      }
    }
  }
  for (i = 0; i < n; i++) {
    A[i + 4][i + 1] = x[i + 2] + A[i + 2][i + 2] + A[i + 4][1] * 0.5 + 1.0;
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
