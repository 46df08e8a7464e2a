/*
 * cholesky.c - in-place Cholesky factorisation A = L * L^T
 * (polyc kernel suite).
 *
 * The lower half of A (diagonal included) is overwritten with L; the
 * strict upper half is neither read nor written.  Live-out: the lower half
 * of A.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>

#include "cholesky.h"

/* A = K + S with K[i][j] = 2 * (min(i,j) + 1), a multiple of the
   (positive definite) covariance of a random walk, whose Cholesky factor
   is a lower triangle of constants, and S symmetric with off-diagonal
   entries in [-0.5, 0.5] and diagonal n/2 + 1, which makes S strictly
   diagonally dominant and hence positive definite.  The sum is symmetric
   positive definite with smallest eigenvalue above 1, and its factor has
   entries of order one throughout. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      int lo = i < j ? i : j;
      DATA_TYPE k = (DATA_TYPE)(2 * (lo + 1));
      if (i == j)
        A[i][j] = k + (DATA_TYPE)n / SCALAR_VAL(2.0) + SCALAR_VAL(1.0);
      else
        A[i][j] = k + (DATA_TYPE)((i * j + 7 * (i + j)) % 101) / SCALAR_VAL(101.0)
                  - SCALAR_VAL(0.5);
    }
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
    }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_cholesky(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    /* entries left of the diagonal */
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    /* the diagonal entry */
    for (k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = SQRT_FUN(A[i][i]);
  }
#pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_cholesky(n, POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
