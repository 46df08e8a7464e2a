/* Arrays that polyc expands (one copy per iteration of the loops that rewrite them, final
   values copied back) and arrays it must leave alone; each kernel prints every array after it,
   the expanded ones included.
   - `sum` (doitgen's temporary, a parameter): rewritten in every (r, q) and read only there:
     expanded over r and q, then its last values copied back (those of r = n - 1, q = n - 1);
   - `win` (a global): each iteration r writes a window [r, r + 2] of it before reading it, so
     element p's last value comes from iteration min(p, n - 1): copied back per element; its
     last four elements are never written and must keep their values (also on a device);
   - `two` is written by two statements, the last write of an element by either one;
   - `plane` (2-D) is rewritten in every (r, q): expanded over r only, since over both it would
     have four dimensions where the largest other array has three;
   - `stencil_tmp` is rewritten in every time step, but `grid` carries the time loop: left alone;
   - `carried` is read before it is written in an iteration: left alone. */
#include <stdio.h>

#define N 12
double A[N][N][N], C4[N][N], W[N][N + 2], grid[N + 2], stencil_tmp[N + 2], out2[N][N];
double win[N + 6], two[N], carried[N], plane[N][N], P[N][N][N];

void kernels(int n, double sum[N]) {
  int r, q, p, s, t;
#pragma scop
  for (r = 0; r < n; r++)
    for (q = 0; q < n; q++) {
      for (p = 0; p < n; p++) {
        sum[p] = 0.0;
        for (s = 0; s < n; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < n; p++)
        A[r][q][p] = sum[p];
    }
  for (r = 0; r < n; r++) {
    for (p = r; p <= r + 2; p++)
      win[p] = W[r][p] * 0.5 + r;
    for (p = r; p <= r + 2; p++)
      W[r][p] = win[p] + 1.0;
  }
  for (r = 0; r < n; r++) {
    for (p = 0; p < n; p++)
      if (p % 2 == 0)
        two[p] = out2[r][p] + 1.0;
      else
        two[p] = out2[r][p] - 1.0;
    for (p = 0; p < n; p++)
      out2[r][p] = two[p] * two[p];
  }
  for (r = 0; r < n; r++)
    for (q = 0; q < n; q++) {
      for (p = 0; p < n; p++)
        for (s = 0; s < n; s++)
          plane[p][s] = C4[p][s] * r + q;
      for (p = 0; p < n; p++)
        P[r][q][p] = plane[p][p] + plane[p][0];
    }
  for (t = 0; t < n; t++) {
    for (p = 1; p <= n; p++)
      stencil_tmp[p] = (grid[p - 1] + grid[p] + grid[p + 1]) / 3.0;
    for (p = 1; p <= n; p++)
      grid[p] = stencil_tmp[p];
  }
  for (r = 0; r < n; r++)
    for (p = 0; p < n; p++) {
      carried[p] = carried[p] * 0.5 + out2[r][p];
      out2[r][p] = carried[p];
    }
#pragma endscop
}

int main(void) {
  static double sum[N];
  for (int i = 0; i < N; i++) {
    sum[i] = -1.0;
    grid[i] = i * 0.25;
    carried[i] = i;
    for (int j = 0; j < N; j++) {
      C4[i][j] = (i * j % 5) * 0.125;
      out2[i][j] = (i + 2 * j) % 7 * 0.5;
      for (int k = 0; k < N; k++)
        A[i][j][k] = (i + j * k) % 9 * 0.25;
    }
    for (int j = 0; j < N + 2; j++)
      W[i][j] = (i * 3 + j) % 11 * 0.5;
  }
  for (int i = 0; i < N + 6; i++)
    win[i] = 100.0 + i;
  kernels(N, sum);
  for (int i = 0; i < N; i++) {
    printf("%d %.17g %.17g %.17g %.17g\n", i, sum[i], two[i], carried[i], grid[i]);
    for (int j = 0; j < N; j++) {
      printf("%.17g %.17g\n", out2[i][j], C4[i][j]);
      for (int k = 0; k < N; k++)
        printf("%.17g %.17g\n", A[i][j][k], P[i][j][k]);
      printf("%.17g\n", plane[i][j]);
    }
    for (int j = 0; j < N + 2; j++)
      printf("%.17g\n", W[i][j]);
  }
  for (int i = 0; i < N + 2; i++)
    printf("%.17g %.17g\n", stencil_tmp[i], grid[i]);
  for (int i = 0; i < N + 6; i++)
    printf("%.17g\n", win[i]);
  return 0;
}
