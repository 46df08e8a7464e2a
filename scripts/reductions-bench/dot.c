/* A dot product: one loop, a scalar sum (scripts/reductions-bench.sh). */
#include <stdio.h>
#include <time.h>
#define N 40000000
static double a[N], b[N];
int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = 1.0 / (1.0 + i % 1013);
    b[i] = (i % 7) * 0.25 - 0.5;
  }
  double s = 0.0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma scop
  for (int i = 0; i < N; i++)
    s += a[i] * b[i];
#pragma endscop
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "seconds %.6f\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  printf("%.12e\n", s);
  return 0;
}
