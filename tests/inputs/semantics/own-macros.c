/* A macro of the program named like a helper of generated code: macros are expanded first,
   so this `min`, which returns the larger value, is what the loop uses. */
#include <stdio.h>

#define min(a, b) ((a) > (b) ? (a) : (b))
#define floord(n, d) ((n) / (d) + 1)

double x[64];

void k(int n) {
  int i;
#pragma scop
  for (i = 0; i < min(n, 20); i++)
    x[i] = 1.0;
  for (i = 0; i < floord(n, 4); i++)
    x[i + 32] = 2.0;
#pragma endscop
}

int main(void) {
  k(10);
  for (int i = 0; i < 64; i++)
    printf("%.1f\n", x[i]);
  return 0;
}
