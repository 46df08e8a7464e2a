/* A matrix's squared Frobenius norm: two loops, a scalar sum (scripts/reductions-bench.sh). */
#include <stdio.h>
#include <time.h>
#define N 6000
static double A[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = ((i * 31 + j * 17) % 101) * 0.01 - 0.5;
  double s = 0.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += A[i][j] * A[i][j];
#pragma endscop
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "seconds %.6f\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  printf("%.12e\n", s);
  return 0;
}
