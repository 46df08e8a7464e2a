/* Reductions into scalars whose loops have no other parallelism (issue 17): a
   dot product, a two-dimensional sum, min and max as ?:, a product, the bitwise operators, a
   `-=` on a float, a sum into a long and one that stays -0.0 (a partial result starting at
   +0.0 would make it +0.0); a min whose ties between -0.0 and +0.0 take the new value, as the
   combination of the rows must too (from +0.0, every operand -0.0: which zero a tie of both
   signs among the operands gives depends on the order, and GPU work-groups combine in any), and
   an fmax from NaN (fmax drops a NaN operand), and a sum into one element of an array
   (`cell[1]`: one element whatever the iteration, as a scalar). On the C target each row of tiles sums into a partial
   result of its own, combined in the rows' order after them (the tiles run in parallel); on the
   GPU targets each work-item sums its points, and its work-group combines them and adds the
   total once per tile (the tiles run in parallel, in any order). The values here are exact in any order (multiples of 1/4, powers of two, integers), so the output
   is the original's bit for bit. Beside them, updates that must keep their order: a running sum
   another statement reads (`run`, copied into `prefix`), `h = h * 0.5 + e` and an int that
   sums doubles (each update truncates), in a second SCoP. */
#include <math.h>
#include <stdio.h>

#define N 37
#define M 29

static double A[N][M], x[N], prefix[N], cell[3] = {4.0, 0.5, -4.0};
static float F[N];
static int I[N][M];

int main(void) {
  int i, j;
  for (i = 0; i < N; i++) {
    x[i] = (double)((i * 7) % 11) * 0.25 - 1.0;
    F[i] = (float)((i * 5) % 9) * 0.5f - 2.0f;
    for (j = 0; j < M; j++) {
      A[i][j] = (double)((i * 3 + j * 5) % 13) * 0.25 - 1.5;
      I[i][j] = (i * 13 + j * 7) % 19 - 9;
    }
  }
  double dot = 0.75, total = -2.0, big = -1000.0, small = 1000.0, prod = 1.0;
  double run = 0.0, h = 0.0, negzero = -0.0, zmin = 0.0, fm = NAN;
  int truncated = -1;
  float fdiff = 3.0f;
  long lsum = 5;
  int iand = -1, ior = 0, ixor = 0;
#pragma scop
  for (i = 0; i < N; i++)
    dot += x[i] * x[i];
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      total += A[i][j] * x[i];
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      big = A[i][j] > big ? A[i][j] : big;
  for (i = 0; i < N; i++)
    small = small < A[i][i % M] ? small : A[i][i % M];
  for (i = 0; i < N; i++)
    prod *= (i % 3 == 0) ? 2.0 : ((i % 3 == 1) ? -0.5 : 1.0);
  for (i = 0; i < N; i++)
    fdiff -= F[i];
  for (i = 0; i < N; i++)
    negzero += x[i] > 100.0 ? x[i] : -0.0;
  for (i = 0; i < N; i++)
    zmin = zmin < fabs(x[i]) * -0.0 ? zmin : fabs(x[i]) * -0.0;
  for (i = 0; i < N; i++)
    fm = fmax(fm, x[i]);
  for (i = 0; i < N; i++)
    cell[1] += x[i] * 0.5;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      lsum += I[i][j];
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++) {
      iand &= I[i][j] | 0x70;
      ior |= I[i][j] & 0x0f;
      ixor ^= I[i][j] + j;
    }
#pragma endscop
  /* A SCoP of its own: fused with the loops above, its order would keep theirs too. */
#pragma scop
  for (i = 0; i < N; i++) {
    run += x[i];
    prefix[i] = run;
  }
  for (i = 0; i < N; i++)
    h = h * 0.5 + x[i];
  for (i = 0; i < N; i++)
    truncated += x[i];
#pragma endscop
  printf("%.17g %.17g %.17g %.17g %.17g %.9g %ld %d %d %d %.17g %g %g %g %d %.17g %.17g %.17g\n",
         dot, total, big, small, prod, fdiff, lsum, iand, ior, ixor, h, negzero, zmin, fm,
         truncated, cell[0], cell[1], cell[2]);
  for (i = 0; i < N; i++)
    printf("%.17g ", prefix[i]);
  printf("\n");
  return 0;
}
