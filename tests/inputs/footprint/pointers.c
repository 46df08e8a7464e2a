/* Arrays whose declarations do not give their first extent, as user code often passes them: a
   pointer and an array of rows. The GPU targets size their device buffers from the rows the SCoP
   touches (its footprint). Prints every element. (Valid C++ too, as a .cu file must be.) */
#include <stdio.h>
#include <stdlib.h>

#define NC 64

static void smooth(int n, int m, double *v, double (*rows)[NC], const double *w) {
#pragma scop
  for (int i = 1; i < n - 1; i++)
    v[i] = (w[i - 1] + w[i] + w[i + 1]) / 3.0;
  for (int i = 0; i < m; i++)
    for (int j = 1; j < NC - 1; j++)
      rows[i + 2][j] = rows[i + 2][j] + 0.5 * (rows[i + 1][j - 1] + rows[i + 1][j + 1]);
#pragma endscop
}

int main(void) {
  int n = 300, m = 40;
  double *v = (double *)malloc(sizeof(double) * (n + 10));
  double *w = (double *)malloc(sizeof(double) * (n + 10));
  double (*rows)[NC] = (double (*)[NC])malloc(sizeof(double[NC]) * (m + 5));
  for (int i = 0; i < n + 10; i++) {
    v[i] = -1.0;
    w[i] = (double)(i % 17);
  }
  for (int i = 0; i < m + 5; i++)
    for (int j = 0; j < NC; j++)
      rows[i][j] = (double)((i * 5 + j * 3) % 11);
  smooth(n, m, v, rows, w);
  for (int i = 0; i < n + 10; i++)
    printf("v %d %.6f\n", i, v[i]);
  for (int i = 0; i < m + 5; i++)
    for (int j = 0; j < NC; j++)
      printf("r %d %d %.6f\n", i, j, rows[i][j]);
  free(v);
  free(w);
  free(rows);
  return 0;
}
