/* The largest element and the count of positive ones: two scalar reductions, max as ?: and an
   integer sum (scripts/reductions-bench.sh). */
#include <stdio.h>
#include <time.h>
#define N 6000
static double A[N][N];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = ((i * 37 + j * 11) % 211) * 0.01 - 1.0;
  double m = -1e300;
  long positive = 0;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma scop
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      m = A[i][j] > m ? A[i][j] : m;
      positive += A[i][j] > 0.0;
    }
#pragma endscop
  clock_gettime(CLOCK_MONOTONIC, &t1);
  fprintf(stderr, "seconds %.6f\n", (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec));
  printf("%.12e %ld\n", m, positive);
  return 0;
}
