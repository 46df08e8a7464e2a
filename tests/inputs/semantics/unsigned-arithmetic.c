/* C's usual arithmetic conversions in statements: with an `int` iterator, `i - 5u` is an
   `unsigned int` (it wraps), whatever type generated loop counters have. */
#include <stdio.h>

double x[64];
long y[64];

void k(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = (i - 5u) / 2.0;
    y[i] = (i - 3) * 7u + (long)i;
  }
#pragma endscop
}

int main(void) {
  k(40);
  for (int i = 0; i < 40; i++)
    printf("%.1f %ld\n", x[i], y[i]);
  return 0;
}
