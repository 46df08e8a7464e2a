/* Reductions other than sums whose tiles along the reduced loop run in parallel on the GPU
   targets (issue 17): each work-item combines its partial result into the accumulator with an
   atomic compare-and-swap loop (polyc_atomic_<op>_<type>). min and max (as ?: both ways round
   and as fmax), products and the bitwise operators, on double, float, int and long. Products
   multiply powers of two and signs only, so any order gives the same bits; min, max and the
   bitwise operators are exact in any order. Partial results combine as the statement picks on
   a NaN: `dnan` and `fnan` start at NaN, which their ?: replaces by the first operand (a helper
   that kept the accumulator on a NaN would keep it), as fmax does for `dfnan`. */
#include <math.h>
#include <stdio.h>

#define N 37
#define M 29

static double A[N][M], dmin[N], dmax[M], dfmax[N], dprod[N], dnan[N], dfnan[N];
static float F[N][M], fmin_[M], fnan[M];
static int I[N][M], imax[N], iand[N], iprod[M];
static long L[N][M], lmin[M], lor[N], lxor[M];

int main(void) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i * 7 + j * 3) % 11) - 5.25;
      F[i][j] = (float)((i + 2 * j) % 9) - 4.5f;
      I[i][j] = (i * 13 + j * 5) % 17 - 8;
      L[i][j] = (long)((i * 3 + j) % 23) * 1000000007L - 11000000000L;
    }
  for (i = 0; i < N; i++) {
    dmin[i] = 100.0;
    dfmax[i] = -100.0;
    dprod[i] = 1.0;
    imax[i] = -1000;
    iand[i] = -1;
    lor[i] = 0;
    dnan[i] = NAN;
    dfnan[i] = NAN;
  }
  for (j = 0; j < M; j++) {
    dmax[j] = -100.0;
    fmin_[j] = 100.0f;
    iprod[j] = 1;
    lmin[j] = 0;
    lxor[j] = 12345;
    fnan[j] = NAN;
  }
  /* One SCoP per nest: fused, the initialisations would share the reductions' group and keep
     it in order. */
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      dmin[i] = dmin[i] < A[i][j] ? dmin[i] : A[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      dmax[j] = A[i][j] > dmax[j] ? A[i][j] : dmax[j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      dfmax[i] = fmax(dfmax[i], A[i][j]);
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      dprod[i] *= (I[i][j] % 3 == 0 ? -2.0 : 0.5) * ((j % 4) == 1 ? 2.0 : 1.0);
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      fmin_[j] = F[i][j] < fmin_[j] ? F[i][j] : fmin_[j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      imax[i] = imax[i] > I[i][j] ? imax[i] : I[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      iand[i] &= I[i][j] + 64;
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      iprod[j] *= (I[i][j] % 2 == 0 ? 1 : -1);
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      lmin[j] = L[i][j] < lmin[j] ? L[i][j] : lmin[j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      lor[i] |= L[i][j] & (1L << ((i + j) % 40));
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      lxor[j] ^= L[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      dnan[i] = dnan[i] > A[i][j] ? dnan[i] : A[i][j];
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      dfnan[i] = fmax(A[i][j], dfnan[i]);
#pragma endscop
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      fnan[j] = fnan[j] < F[i][j] ? fnan[j] : F[i][j];
#pragma endscop

  for (i = 0; i < N; i++)
    printf("%d %.17g %.17g %.17g %d %d %ld %.17g %.17g\n", i, dmin[i], dfmax[i], dprod[i], imax[i],
           iand[i], lor[i], dnan[i], dfnan[i]);
  for (j = 0; j < M; j++)
    printf("%d %.17g %.9g %d %ld %ld %.9g\n", j, dmax[j], (double)fmin_[j], iprod[j], lmin[j],
           lxor[j], (double)fnan[j]);
  return 0;
}
