/* Names the program shares with polyc's generated code: a parameter `polyc_T0`, arrays and
   scalars named `polyc_...`, a macro `POLYC_N`, a variable `c0`. Generated names move aside. */
#include <stdio.h>

#define POLYC_N 40
#define c1 3

double polyc_A[POLYC_N][POLYC_N], polyc_start[POLYC_N];
double polyc_sum;

void k(int n, int polyc_T0, double polyc_tiles) {
  int polyc_i, polyc_j;
  int c0 = 2;
#pragma scop
  for (polyc_i = 0; polyc_i < n; polyc_i++)
    for (polyc_j = 0; polyc_j < n; polyc_j++)
      polyc_A[polyc_i][polyc_j] = polyc_A[polyc_i][polyc_j] + polyc_T0 * polyc_tiles + c0 + c1;
  for (polyc_i = 0; polyc_i < n; polyc_i++)
    polyc_start[polyc_i] = polyc_A[polyc_i][polyc_i] * 0.5;
  for (polyc_i = 0; polyc_i < n; polyc_i++)
    polyc_sum += polyc_start[polyc_i];
#pragma endscop
  printf("%d %d\n", polyc_i, polyc_j);
}

int main(void) {
  k(POLYC_N, 3, 1.5);
  k(POLYC_N - 7, 2, 0.25);
  for (int i = 0; i < POLYC_N; i += 3)
    printf("%.2f %.2f\n", polyc_A[i][POLYC_N - 1 - i], polyc_start[i]);
  printf("%.2f\n", polyc_sum);
  return 0;
}
