/* Narrowing casts change values: `(short)(n + 65536)` is n, `(int)big` keeps the low 32 bits,
   `(unsigned char)` wraps at 256. */
#include <stdio.h>

double x[64], y[64], z[300];

void k(int n, long big) {
  int i;
#pragma scop
  for (i = 0; i < (short)(n + 65536); i++)
    x[i] = 1.0;
  for (i = 0; i < (int)big; i++)
    y[i] = 2.0;
  for (i = 0; i < 300; i++)
    z[(unsigned char)(i + 100)] += i;
#pragma endscop
}

int main(void) {
  k(10, 12L + (1L << 32));
  for (int i = 0; i < 16; i++)
    printf("%.1f %.1f\n", x[i], y[i]);
  for (int i = 0; i < 256; i += 5)
    printf("%.1f\n", z[i]);
  return 0;
}
