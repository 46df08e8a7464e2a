/* Arrays of a SCoP that overlap: C computes a recurrence where polyc's model sees two
   independent arrays. The generated code checks the arrays' ranges when it runs and runs the
   original loops where they overlap; polyc warns about the calls it can see. */
#include <stdio.h>

#define N 48

void k(int n, double x[N][N], double y[N][N]) {
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      y[i][j] = 0.5 * (x[i - 1][j] + x[i][j - 1]) + 1.0;
#pragma endscop
}

double a[N + 1][N], b[N][N], c[N][N];

int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      a[i][j] = b[i][j] = c[i][j] = (i * 7 + j * 3) % 11;
  k(N, a, a);
  k(N, b, c);
  k(N, (double (*)[N])&a[0][1], a);
  for (int i = 0; i < N; i += 5)
    printf("%.4f %.4f\n", a[i][N - 1 - i], c[i][i]);
  return 0;
}
