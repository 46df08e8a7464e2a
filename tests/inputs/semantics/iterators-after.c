/* C's loops leave their iterators at the first value that failed the test; code after the
   SCoP reads them (a return value, a global, a loop that runs zero times). */
#include <stdio.h>

double x[64][64];
int g;

int k(int n, int m) {
  int i, j, t = 7;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = i; j < m; j += 3)
      x[i][j] = i + j;
  for (g = n - 1; g >= 2; g--)
    x[g][0] = 1.0;
  for (t = 0; t < 0; t++)
    x[0][t] = 2.0;
#pragma endscop
  return i * 1000000 + (n > 0 ? j * 1000 : 0) + t;
}

int main(void) {
  int sizes[][2] = {{10, 20}, {0, 20}, {25, 20}, {3, 3}, {1, 64}};
  for (int s = 0; s < 5; s++) {
    int r = k(sizes[s][0], sizes[s][1]);
    printf("%d %d\n", r, g);
  }
  printf("%.1f\n", x[5][14]);
  return 0;
}
