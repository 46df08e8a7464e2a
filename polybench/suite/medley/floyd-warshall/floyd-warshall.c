/*
 * floyd-warshall.c - all-pairs shortest paths (polyc kernel suite).
 *
 * path[i][j] starts as the weight of the edge i -> j and ends as the
 * length of the shortest path.  Integer elements by default.
 * Live-out: path.
 */
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include <math.h>

#include <polybench.h>

#include "floyd-warshall.h"

/* Weight of the pairs without a direct edge: larger than any real path
   of any dataset (at most (N - 1) * 50), small enough that the sum of two
   never overflows an int. */
#define NO_EDGE 1000000

/* A sparse directed graph: a ring i -> i+1 (so every node reaches every
   other) plus about three pseudo-random chords per node, with weights
   1..50.  Shortest paths take several hops, so their lengths spread over
   a wide range and depend on many of the k steps. */
static void init_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if (i == j)
        path[i][j] = 0;
      else if (j == (i + 1) % n || (i * 7 + j * 13 + i * j * 3) % n < 3)
        path[i][j] = (DATA_TYPE)((i * 13 + j * 31 + i * j * 7) % 50 + 1);
      else
        path[i][j] = NO_EDGE;
    }
}

static void print_array(int n, DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j;

  POLYBENCH_DUMP_START;
  POLYBENCH_DUMP_BEGIN("path");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      if ((i * n + j) % 20 == 0)
        fprintf(POLYBENCH_DUMP_TARGET, "\n");
      fprintf(POLYBENCH_DUMP_TARGET, DATA_PRINTF_MODIFIER, path[i][j]);
    }
  POLYBENCH_DUMP_END("path");
  POLYBENCH_DUMP_FINISH;
}

static void kernel_floyd_warshall(int n,
                                  DATA_TYPE POLYBENCH_2D(path, N, N, n, n))
{
  int i, j, k;

#pragma scop
  for (k = 0; k < _PB_N; k++)
    for (i = 0; i < _PB_N; i++)
      for (j = 0; j < _PB_N; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                     ? path[i][j]
                     : path[i][k] + path[k][j];
#pragma endscop
}

int main(int argc, char** argv)
{
  int n = N;

  POLYBENCH_2D_ARRAY_DECL(path, DATA_TYPE, N, N, n, n);

  init_array(n, POLYBENCH_ARRAY(path));

  polybench_start_instruments;

  kernel_floyd_warshall(n, POLYBENCH_ARRAY(path));

  polybench_stop_instruments;
  polybench_print_instruments;

  polybench_prevent_dce(print_array(n, POLYBENCH_ARRAY(path)));

  POLYBENCH_FREE_ARRAY(path);

  return 0;
}
