/*
 * ludcmp.c - solve A * x = b by LU factorisation (no pivoting) followed
 * by forward and backward substitution (polyc kernel suite).
 *
 * Live-out: x.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>

#include "ludcmp.h"

/* A is strictly row diagonally dominant (pseudo-random off-diagonal
   entries in [-1, 1], each diagonal entry 1 above its row's magnitude
   sum), so the factorisation needs no pivoting.  b is A times a known
   vector with entries between 1 and 4.52, multiples of 0.04 (so the
   printed values are far from rounding ties), which the kernel recovers
   in x. */
static void init_array(int n,
                       DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                       DATA_TYPE POLYBENCH_1D(b, N, n),
                       DATA_TYPE POLYBENCH_1D(x, N, n),
                       DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j;

  for (i = 0; i < n; i++) {
    DATA_TYPE row = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      if (j != i) {
        A[i][j] = (DATA_TYPE)((i * 23 + j * 11 + i * j * 7) % 211 - 105)
                  / SCALAR_VAL(105.0);
        row += A[i][j] < SCALAR_VAL(0.0) ? -A[i][j] : A[i][j];
      }
    A[i][i] = row + SCALAR_VAL(1.0);
  }
  /* x temporarily holds the expected solution */
  for (i = 0; i < n; i++)
    x[i] = SCALAR_VAL(1.0) + (DATA_TYPE)((i * 7 + i * i) % 89) / SCALAR_VAL(25.0);
  for (i = 0; i < n; i++) {
    b[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      b[i] += A[i][j] * x[j];
  }
  for (i = 0; i < n; i++) {
    x[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
  }
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

static void kernel_ludcmp(int n,
                          DATA_TYPE POLYBENCH_2D(A, N, N, n, n),
                          DATA_TYPE POLYBENCH_1D(b, N, n),
                          DATA_TYPE POLYBENCH_1D(x, N, n),
                          DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i, j, k;
  DATA_TYPE w;

#pragma scop
  for (i = 0; i < _PB_N; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < _PB_N; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }

  /* forward substitution: L * y = b */
  for (i = 0; i < _PB_N; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }

  /* backward substitution: U * x = y */
  for (i = _PB_N - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < _PB_N; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(A, DATA_TYPE, N, N, n, n);
  POLYBENCH_1D_ARRAY_DECL(b, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(x, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b),
             POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(y));

  polybench_start_instruments;

  kernel_ludcmp(n, POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(b),
                POLYBENCH_ARRAY(x), POLYBENCH_ARRAY(y));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(x)));

  POLYBENCH_FREE_ARRAY(A);
  POLYBENCH_FREE_ARRAY(b);
  POLYBENCH_FREE_ARRAY(x);
  POLYBENCH_FREE_ARRAY(y);

  return 0;
}
