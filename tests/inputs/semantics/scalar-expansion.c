/* Scalars that polyc expands into arrays (one element per iteration of their loops) and
   scalars it must leave alone: each kernel prints what it computed, which must not change.
   - `t` (two webs, 2-D and 1-D), `s` (under a loop counting down), `u` (a by-value parameter)
     carry nothing from one iteration to the next: expanded;
   - `carried` keeps its value across iterations of `i` (a true dependence), and its first read
     sees the value from before the loop: not expanded;
   - `after` is read after the SCoP, so the SCoP's last value must stay in it: not expanded;
   - `neg` sits in a loop from -3: expanded, its elements offset by 3;
   - `v` lives in one iteration of three loops: expanded over the outer two only (an array as
     large as the iteration space would cost as much memory as a 3-D array). */
#include <stdio.h>

#define N 24
double A[N][N], B[N][N], x[N], y[N], z[N], C3[8][8][8];

void kernels(int n, double u) {
  int i, j, k;
  double t, s, carried, neg, v;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t = 0.5 * A[i][j];
      for (k = 0; k < i; k++)
        t += A[i][k] * B[k][j];
      B[i][j] = t + 1.0;
    }
  for (i = 0; i < n; i++) {
    t = x[i];
    for (j = 0; j < i; j++)
      t -= A[i][j] * y[j];
    y[i] = t / 2.0;
  }
  for (i = n - 1; i >= 0; i--) {
    s = y[i];
    for (j = i + 1; j < n; j++)
      s -= B[i][j] * z[j];
    z[i] = s * 0.25;
  }
  for (i = 0; i < n; i++) {
    u = x[i] * 3.0;
    x[i] = u + y[i];
  }
  carried = 1.0;
  for (i = 0; i < n; i++) {
    carried = carried * 0.5 + x[i];
    z[i] = z[i] + carried;
  }
  for (i = -3; i < n - 3; i++)
    for (j = 0; j < n; j++) {
      neg = A[i + 3][j] * 2.0;
      A[i + 3][j] = neg + B[j][i + 3];
    }
  for (i = 0; i < 8; i++)
    for (j = 0; j < 8; j++)
      for (k = 0; k < 8; k++) {
        v = C3[i][j][k] * 2.0 + A[i][j];
        C3[i][j][k] = v + C3[j][i][k];
      }
#pragma endscop
}

double after_kernel(int n) {
  int i, j;
  double after = 0.0;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      after = A[i][j] + B[j][i];
      B[i][j] = after * 0.5;
    }
#pragma endscop
  return after;
}

int main(void) {
  for (int i = 0; i < N; i++) {
    x[i] = (double)(i % 7) / 7.0;
    y[i] = 0.0;
    z[i] = (double)(i % 3);
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)((i * j + 1) % 11) / 11.0;
      B[i][j] = (double)((i + 2 * j) % 5) / 5.0;
    }
  }
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++)
      for (int k = 0; k < 8; k++)
        C3[i][j][k] = (double)((i + j * k) % 9) / 9.0;
  kernels(N, 2.0);
  double last = after_kernel(N);
  printf("last %.6f\n", last);
  for (int i = 0; i < N; i++) {
    printf("%.6f %.6f %.6f", x[i], y[i], z[i]);
    for (int j = 0; j < N; j += 5)
      printf(" %.6f %.6f", A[i][j], B[i][j]);
    printf("\n");
  }
  for (int i = 0; i < 8; i++)
    printf("%.6f %.6f\n", C3[i][i][i], C3[i][7 - i][3]);
  return 0;
}
