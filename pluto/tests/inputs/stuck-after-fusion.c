/* random affine program 35 of polybench::random before it drew C types: Pluto gets stuck after fusing */
void kernel(int n, int m, double A[30][30], double B[30][30], double x[30])
{
  int i, j, k;
  double s = 0.0;
#pragma scop
  for (i = n - 1; i >= 0; i--) {
    for (j = 0; j <= i; j++) {
      A[i + 0][(j + i) / 2 + 2] += x[0] + B[(i + j) / 2 + 2][i + 2] * 0.5 + 1.0;
      B[j + 0][j + 0] += A[2][j + 1] * 0.5 + 1.0;
    }
  }
  for (i = 0; i < n; i++) {
    for (j = i + 1; j < m; j++) {
      x[i + 3] += A[i + 3][j + 2] + x[i + 1] * 0.5 + 1.0;
    }
  }
  for (i = 0; i < n; i++) {
    s = s * 0.5 + 1.0;
    for (j = 1; j < m - 1; j++) {
      s = B[j + 1][j + 0] * 0.5 + 1.0;
    }
    A[i + 4][i + 2] += B[i + 3][i + 0] + x[i + 3] + A[i + 4][i + 1] * 0.5 + 1.0;
  }
#pragma endscop
  x[0] += s;
}
