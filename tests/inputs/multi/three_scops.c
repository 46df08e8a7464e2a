/* Three SCoPs in two functions, sharing arrays, with a statement between them that is not in any
   SCoP: each SCoP is tiled on its own and the file's other code is kept. Prints checksums. */
#include <stdio.h>

#define N 96

static double A[N][N], B[N][N], C[N], D[N][N];

static void init(int n) {
  for (int i = 0; i < n; i++) {
    C[i] = (double)(i % 7) / 7.0;
    for (int j = 0; j < n; j++) {
      A[i][j] = (double)((i * j) % 13) / 13.0;
      B[i][j] = (double)((i + j) % 11) / 11.0;
      D[i][j] = 0.0;
    }
  }
}

static void stencil_then_product(int n, int tsteps) {
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
  A[0][0] += 1.0; /* not in any SCoP */
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      D[i][j] = 0.5 * D[i][j];
      for (int k = 0; k < n; k++)
        D[i][j] += A[i][k] * B[k][j];
    }
#pragma endscop
}

static void triangular(int n) {
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 0; j < i; j++)
      C[i] = C[i] + D[i][j] * C[j] / (double)n;
#pragma endscop
}

int main(void) {
  init(N);
  stencil_then_product(N, 12);
  triangular(N);
  double a = 0, d = 0, c = 0;
  for (int i = 0; i < N; i++) {
    c += C[i] * (i + 1);
    for (int j = 0; j < N; j++) {
      a += A[i][j] * (j + 1);
      d += D[i][j] * (i + 2 * j + 1);
    }
  }
  printf("%.10e %.10e %.10e\n", a, d, c);
  return 0;
}
