// expect: output
// fallback: none
// fallback opencl: none
/* Issue 19's first case: an order-4 3-D star stencil (25 points: the centre and 4 on each side
   along each axis), time-iterated, as in seismic and wave-equation codes. Its dependence analysis
   took 31 s or did not finish (over 600 s in isl's compute_flow) before the analysis was bounded. */
void kernel(int tsteps, int n, double A[n][n][n], double B[n][n][n]) {
  int t, i, j, k;
#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 4; i < n - 4; i++)
      for (j = 4; j < n - 4; j++)
        for (k = 4; k < n - 4; k++)
          B[i][j][k] = 0.04 * A[i][j][k] +
                        0.04 * A[i + 1][j][k] +
                        0.04 * A[i - 1][j][k] +
                        0.04 * A[i][j + 1][k] +
                        0.04 * A[i][j - 1][k] +
                        0.04 * A[i][j][k + 1] +
                        0.04 * A[i][j][k - 1] +
                        0.04 * A[i + 2][j][k] +
                        0.04 * A[i - 2][j][k] +
                        0.04 * A[i][j + 2][k] +
                        0.04 * A[i][j - 2][k] +
                        0.04 * A[i][j][k + 2] +
                        0.04 * A[i][j][k - 2] +
                        0.04 * A[i + 3][j][k] +
                        0.04 * A[i - 3][j][k] +
                        0.04 * A[i][j + 3][k] +
                        0.04 * A[i][j - 3][k] +
                        0.04 * A[i][j][k + 3] +
                        0.04 * A[i][j][k - 3] +
                        0.04 * A[i + 4][j][k] +
                        0.04 * A[i - 4][j][k] +
                        0.04 * A[i][j + 4][k] +
                        0.04 * A[i][j - 4][k] +
                        0.04 * A[i][j][k + 4] +
                        0.04 * A[i][j][k - 4];
    for (i = 4; i < n - 4; i++)
      for (j = 4; j < n - 4; j++)
        for (k = 4; k < n - 4; k++)
          A[i][j][k] = 0.04 * B[i][j][k] +
                        0.04 * B[i + 1][j][k] +
                        0.04 * B[i - 1][j][k] +
                        0.04 * B[i][j + 1][k] +
                        0.04 * B[i][j - 1][k] +
                        0.04 * B[i][j][k + 1] +
                        0.04 * B[i][j][k - 1] +
                        0.04 * B[i + 2][j][k] +
                        0.04 * B[i - 2][j][k] +
                        0.04 * B[i][j + 2][k] +
                        0.04 * B[i][j - 2][k] +
                        0.04 * B[i][j][k + 2] +
                        0.04 * B[i][j][k - 2] +
                        0.04 * B[i + 3][j][k] +
                        0.04 * B[i - 3][j][k] +
                        0.04 * B[i][j + 3][k] +
                        0.04 * B[i][j - 3][k] +
                        0.04 * B[i][j][k + 3] +
                        0.04 * B[i][j][k - 3] +
                        0.04 * B[i + 4][j][k] +
                        0.04 * B[i - 4][j][k] +
                        0.04 * B[i][j + 4][k] +
                        0.04 * B[i][j - 4][k] +
                        0.04 * B[i][j][k + 4] +
                        0.04 * B[i][j][k - 4];
  }
#pragma endscop
}
