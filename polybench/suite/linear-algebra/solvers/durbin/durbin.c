/*
 * durbin.c - Levinson-Durbin recursion (polyc kernel suite).
 *
 * Solves the Toeplitz system T * y = -r where T has ones on its diagonal
 * and r[k-1] on its k-th off-diagonals.  Live-out: y.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>

#include "durbin.h"

/* r[k] = rho(k + 1), where rho is the autocorrelation of the ARMA(1,1)
   process x[t] = phi x[t-1] + e[t] - theta e[t-1] with phi = 0.4 and
   theta = 0.99: rho(d) = rho(1) * phi^(d-1).  The Toeplitz matrix is then
   symmetric positive definite, so the recursion keeps |alpha| < 1 and
   beta > 0.7, and the solution (the process's autoregressive weights)
   decays slowly, from about 0.59 like 0.99^i, so most printed values are
   not zero. */
static void init_array(int n, DATA_TYPE POLYBENCH_1D(r, N, n))
{
  int k;
  DATA_TYPE phi = SCALAR_VAL(0.4);
  DATA_TYPE theta = SCALAR_VAL(0.99);
  DATA_TYPE rho = (SCALAR_VAL(1.0) - phi * theta) * (phi - theta)
                  / (SCALAR_VAL(1.0) + theta * theta - SCALAR_VAL(2.0) * phi * theta);

  for (k = 0; k < n; k++) {
    r[k] = rho;
    rho = rho * phi;
  }
}

static void print_array(int n, DATA_TYPE POLYBENCH_1D(y, N, n))
{
  int i;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("y");
  for (i = 0; i < n; i++) {
    if (i % 20 == 0)
      fprintf(POLYBENCH_DUMP_TARGET, "\n");
    fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, y[i]);
  }
  POLYBENCH_DUMP_END("y");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_durbin(int n,
                          DATA_TYPE POLYBENCH_1D(r, N, n),
                          DATA_TYPE POLYBENCH_1D(y, N, n))
{
  DATA_TYPE z[N];
  DATA_TYPE alpha;
  DATA_TYPE beta;
  DATA_TYPE sum;
  int i, k;

#pragma scop
  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];

  for (k = 1; k < _PB_N; k++) {
    beta = (1 - alpha * alpha) * beta;
    sum = SCALAR_VAL(0.0);
    for (i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;

    for (i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
#pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_1D_ARRAY_DECL(r, DATA_TYPE, N, n);
  POLYBENCH_1D_ARRAY_DECL(y, DATA_TYPE, N, n);

  init_array(n, POLYBENCH_ARRAY(r));

  polybench_start_instruments;

  kernel_durbin(n, POLYBENCH_ARRAY(r), POLYBENCH_ARRAY(y));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(y)));

  POLYBENCH_FREE_ARRAY(r);
  POLYBENCH_FREE_ARRAY(y);

  return 0;
}
