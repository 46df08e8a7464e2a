/* A loop in an included header: --auto-scop leaves it alone (polyc rewrites only this file). */
#include "util.h"
double A[100][100], B[100];
void f(int n) {
  int i, j;
  clear(B, n);
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + 1.0;
}
