/*
 * lu.c - in-place LU factorisation without pivoting (polyc kernel suite).
 *
 * A is overwritten with the unit lower factor L (strictly below the
 * diagonal) and the upper factor U (diagonal and above).  Live-out: A.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>

#include "lu.h"

/* Off-diagonal entries are pseudo-random in [-1, 1]; every diagonal entry
   exceeds the sum of the magnitudes in its row by 1.  Strict row diagonal
   dominance is kept by every elimination step, so no pivot is small and
   the factorisation without pivoting is stable. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    DATA_TYPE row = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      if (j != i) {
        A[i][j] = (DATA_TYPE)((i * 17 + j * 29 + i * j * 5) % 199 - 99)
                  / SCALAR_VAL(99.0);
        row += A[i][j] < SCALAR_VAL(0.0) ? -A[i][j] : A[i][j];
      }
    A[i][i] = row + SCALAR_VAL(1.0);
  }
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("A");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, A[i][j]);
    }
  POLYBENCH_DUMP_END("A");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_lu(int n, DATA_TYPE POLYBENCH_2D(A, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    /* row i of L */
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
    /* row i of U */
    for (j = i; j < _PB_N; j++)
      for (k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(A));

  polybench_start_instruments;

  kernel_lu(n, POLYBENCH_ARRAY(A));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(A)));

  POLYBENCH_FREE_ARRAY(A);

  return 0;
}
