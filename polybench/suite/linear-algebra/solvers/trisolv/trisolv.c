/*
 * trisolv.c - forward substitution, solves L * x = b for lower-triangular
 * L (polyc kernel suite).  Live-out: x.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>

#include "trisolv.h"

/* Below the diagonal: pseudo-random entries in [-1, 1]; the diagonal
   exceeds the magnitude sum of its row by 1, which bounds the growth of
   rounding errors.  The strict upper half holds a marker the kernel never
   reads.  b is L times a known vector with nonzero entries in
   [-1.9, 1.94], multiples of 0.02 (so the printed values are far from
   rounding ties), which the kernel recovers in x. */
static void init_array(int n,
                       DATA_TYPE POLYBENCH_2D(L, N, N, n, n),
                       DATA_TYPE POLYBENCH_1D(x, N, n),
                       DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    DATA_TYPE row = SCALAR_VAL(0.0);
    for (j = 0; j < i; j++) {
      L[i][j] = (DATA_TYPE)((i * 7 + j * 23 + i * j) % 61 - 30) / SCALAR_VAL(30.0);
      row += L[i][j] < SCALAR_VAL(0.0) ? -L[i][j] : L[i][j];
    }
    L[i][i] = row + SCALAR_VAL(1.0);
    for (j = i + 1; j < n; j++)
      L[i][j] = SCALAR_VAL(-999.0);
  }
  /* x temporarily holds the expected solution */
  for (i = 0; i < n; i++)
    x[i] = (DATA_TYPE)((i * 37 + i * i) % 97) / SCALAR_VAL(25.0) - SCALAR_VAL(1.9);
  for (i = 0; i < n; i++) {
    b[i] = SCALAR_VAL(0.0);
    for (j = 0; j <= i; j++)
      b[i] += L[i][j] * x[j];
  }
  for (i = 0; i < n; i++)
    x[i] = SCALAR_VAL(0.0);
}

static void print_array(int n, DATA_TYPE POLYBENCH_1D(x, N, n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("x");
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, x[i]);
  }
  POLYBENCH_DUMP_END("x");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_trisolv(int n,
                           DATA_TYPE POLYBENCH_2D(L, N, N, n, n),
                           DATA_TYPE POLYBENCH_1D(x, N, n),
                           DATA_TYPE POLYBENCH_1D(b, N, n))
{
  int i, j;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(L, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(L), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(b));

  polybench_start_instruments;

  kernel_trisolv(n, POLYBENCH_ARRAY(L), POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(b));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(x)));

  POLYBENCH_FREE_ARRAY(L);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(b);

  return 0;
}
