/* Sums whose tiles along the summed loop run in parallel on the GPU targets (issue 17): each
   work-item adds its partial result to the accumulator atomically. The values are integers
   (also in the floating-point arrays, where every partial sum is exact), so any order of the
   additions prints the same. Beside them, updates that must keep their order: a running sum
   another statement reads (a scan), and a product-and-sum that is not a reduction. */
#include <stdio.h>

#define N 37
#define M 29

static double A[N][M], x[M], y[N], colsum[M];
static float F[N][M], fsum[N];
static int I[N][M], isum[N];
static long L[N][M], lsum[M];
static int run[N], seen[N][M];
static double horner[N];

int main(void) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i * 7 + j * 3) % 11) - 5.0;
      F[i][j] = (float)((i + 2 * j) % 9) - 4.0f;
      I[i][j] = (i * 13 + j * 5) % 17 - 8;
      L[i][j] = (long)((i * 3 + j) % 23) * 1000003L;
    }
  for (j = 0; j < M; j++)
    x[j] = (double)(j % 5) - 2.0;

  for (i = 0; i < N; i++) {
    y[i] = 0.0;
    fsum[i] = 0.0f;
    isum[i] = 0;
    run[i] = 0;
    horner[i] = 0.0;
  }
  for (j = 0; j < M; j++) {
    colsum[j] = 1.0;
    lsum[j] = 7;
  }
  /* One SCoP per nest: fused, the initialisations and the ordered updates would share the
     reductions' group and keep it in order. */
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      y[i] = y[i] + A[i][j] * x[j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      colsum[j] += A[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      fsum[i] += F[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      isum[i] = I[i][j] + isum[i];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      lsum[j] -= L[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      run[i] += I[i][j];
      seen[i][j] = run[i];
    }
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      horner[i] = horner[i] * 0.5 + A[i][j];
#pragma endscop

  for (i = 0; i < N; i++)
    printf("%d %.1f %.1f %d %d %d %.17g\n", i, y[i], (double)fsum[i], isum[i], run[i],
           seen[i][M / 2], horner[i]);
  for (j = 0; j < M; j++)
    printf("%d %.1f %ld\n", j, colsum[j], lsum[j]);
  return 0;
}
