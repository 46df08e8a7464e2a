/* Differential seed 5680, shrunk: on the GPU targets, isl wrote the last instance of the
   strided j loop with its iterator fixed to `n % 2 + n - 3`, no loop and no one-time loop
   over the mapped dimension, so every work-item of the tile's points ran it (tile sizes 2 and up
   on PoCL). Each instance now checks the point's value of every mapped dimension no loop binds. */
#include <stddef.h>
long kernel(unsigned n, unsigned m, double A[30][30], double B[30][30], double x[30])
{
  int i = 0, j = 0, k = 0;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 1; j < n - 1; j += 2) {
      B[i + 0][1] += A[i + 2][j + 4] + A[j + 3][j + 2] + A[i + 4][2] * 0.5 + 1.0;
      A[2][j + 0] = x[i + 4] + A[j + 0][i + 4] * 0.5 + 1.0;
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
  long r = kernel(7, 21, A, B, x);
  printf("%ld\n", r);
  for (int a = 0; a < 30; a++) {
    printf("%.17g\n", x[a]);
    for (int b = 0; b < 30; b++) printf("%.17g %.17g\n", A[a][b], B[a][b]);
  }
  return 0;
}
