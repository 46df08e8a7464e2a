/* An unsigned subscript that wraps: `(i - 3u) % 8u` is element (i - 3) mod 8. */
#include <stdio.h>

double x[8];

void k(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    x[(i - 3u) % 8u] += i;
#pragma endscop
}

int main(void) {
  k(40);
  for (int i = 0; i < 8; i++)
    printf("%.1f\n", x[i]);
  return 0;
}
