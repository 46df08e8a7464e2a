// expect: output under 1100000 bytes
// fallback: an AST built without isl's `separate` option
// fallback opencl: OpenCL kernels would take
/* Moved here from tests/inputs/semantics/ (2026-11-30): isl's AST without separation makes
   987 KB of C for these three loops (two copies of a 1,900-line emptiness probe and of the
   tile's code, one for a wavefront step run alone and one shared), and gcc -O2 took 91 s to
   build it, twice (C and OpenCL's host code): 258 of the semantics test's 396 s. isl's build
   with separation no longer fails on it (it makes 48 statement calls where 4 do without, so
   the AST without is taken before any failure), and ASTs without separation stay checked for
   C's semantics there by ast-without-separate.c and ast-off-schedule-c.c. Here: polyc's
   output stays under its bound and compiles, and the OpenCL target keeps running this SCoP on
   the host (driver::MAX_OPENCL_KERNELS). scripts/sweep.sh still runs it in tests/semantics.rs. */
/* Differential seed 41700: isl's AST build (with separate) failed without setting an error message, and reading the message through isl-rs dereferenced a null pointer: polyc died of SIGSEGV. The build without separate succeeds. */
/* random affine program, seed 41700 */
#include <stddef.h>
long kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  unsigned i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i + 4] = x[i + 0] + x[i + 4] + B[i + 0][i + 4] * 0.5 + 1.0;
  }
  for (i = 0; i < n; i++) {
    for (j = 1; j < n - 1; j++) {
      B[(i + j) / 2 + 2][i + 2] = B[i + 0][j + 0] * 0.5 + 1.0;
    }
  }
  for (i = 0; i < n; i++) {
    A[0][i + 2] += A[i + 3][i + 0] + s * 0.5 + 1.0;
    for (j = (i > 2 ? i - 2 : 0); j < n; j++) {
      B[(i + j) / 2 + 2][1] = A[j + 3][0] + A[i + 0][0] * 0.5 + 1.0;
    }
    A[2][i + 2] += A[2][i + 1] + s + B[i + 0][i + 4] * 0.5 + 1.0;
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
  long r = kernel(23, 18, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
