/* Row reductions along a unit-stride summed loop, which lane groups of work-items share on
   the GPU targets (issue 17; `codegen::lanes`): one accumulator per operator and type, every
   value exact in any order (small integers, products of powers of two), so that the output
   equals the original's whatever the lanes' order. M is more than two lane groups' width, so a
   lane runs several points of a wide tile and none of a narrow one. */
#include <math.h>
#include <stdio.h>

#define N 37
#define M 75

static double A[N][M], P[N][M];
static int I[N][M];
static long L[N][M];
static double dsum[N], dprod[N], dmax[N], dmin[N], nmax[N];
static float fsum[N];
static int isum[N], iand[N], ior[N], ixor[N];
static long lsum[N], lxor[N];

int main(void) {
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i * 7 + j * 3) % 23) - 11.0;
      P[i][j] = (i + j) % 3 == 0 ? 2.0 : ((i + j) % 3 == 1 ? -0.5 : 1.0);
      I[i][j] = (i * 13 + j * 5) % 29 - 14;
      L[i][j] = (long)((i * 3 + j) % 31) * 1000003L;
    }
  for (i = 0; i < N; i++) {
    dsum[i] = 0.0;
    dprod[i] = 1.0;
    dmax[i] = -1000.0;
    dmin[i] = 1000.0;
    nmax[i] = NAN;
    fsum[i] = 0.0f;
    isum[i] = 0;
    iand[i] = -1;
    ior[i] = 0;
    ixor[i] = 0;
    lsum[i] = 5;
    lxor[i] = 0;
  }
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      dsum[i] += A[i][j];
      dprod[i] *= P[i][j];
      dmax[i] = dmax[i] > A[i][j] ? dmax[i] : A[i][j];
      dmin[i] = fmin(dmin[i], A[i][j]);
      fsum[i] += (float)A[i][j];
      isum[i] += I[i][j];
      iand[i] &= I[i][j] | 64;
      ior[i] |= I[i][j] & 12;
      ixor[i] ^= I[i][j];
      lsum[i] -= L[i][j];
      lxor[i] ^= L[i][j];
    }
#pragma endscop
  /* fmax drops the NaN it starts from, as the original does. */
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      nmax[i] = fmax(nmax[i], A[i][j]);
#pragma endscop

  for (i = 0; i < N; i++)
    printf("%d %.1f %.17g %.1f %.1f %.1f %.1f %d %d %d %d %ld %ld\n", i, dsum[i], dprod[i],
           dmax[i], dmin[i], nmax[i], (double)fsum[i], isum[i], iand[i], ior[i], ixor[i],
           lsum[i], lxor[i]);
  return 0;
}
