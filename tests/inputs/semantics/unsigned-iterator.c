/* Unsigned iterators: `i - 3 > 0` is false only for i == 3; a counting-down loop that stops
   before 0; an `int` bound converted to unsigned; `unsigned char` and `unsigned short`. */
#include <stdio.h>

double x[64], z[300];

void k(int n, unsigned m) {
  unsigned i;
  unsigned char c;
  unsigned short s;
#pragma scop
  for (i = 0; i < n; i++)
    if (i - 3 > 0)
      x[i] = 1.0;
  for (i = m; i > 0; i--)
    x[i - 1] += 2.0 * i;
  for (c = 0; c < 200; c++)
    z[c] = c;
  for (s = 250; s < 300; s++)
    z[s] = z[s - 50] + s;
#pragma endscop
}

int main(void) {
  k(10, 20);
  for (int i = 0; i < 24; i++)
    printf("%.1f\n", x[i]);
  for (int i = 0; i < 300; i += 7)
    printf("%.1f\n", z[i]);
  return 0;
}
