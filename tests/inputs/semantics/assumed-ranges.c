/* Conversions the model can only assume: `i < m` converts an `int` i to unsigned, exact
   while i >= 0. The generated program checks that when it runs and runs the original loop
   for the other values (here lo < 0, where C's loop runs zero times). 64-bit unsigned sizes
   (size_t) must fit the generated code's `long` arithmetic. */
#include <stddef.h>
#include <stdio.h>

double x[100], y[100];

void k(int lo, unsigned m) {
  int i;
#pragma scop
  for (i = lo; i < m; i++)
    x[i + 10] = x[i + 10] + i;
#pragma endscop
}

void s(size_t n, double *v) {
  size_t i;
#pragma scop
  for (i = 1; i < n; i++)
    v[i] = v[i - 1] + (double)i;
#pragma endscop
}

int main(void) {
  k(2, 30);
  k(-3, 5);
  k(5, 0);
  s(100, y);
  for (int i = 0; i < 40; i++)
    printf("%.1f\n", x[i]);
  for (int i = 0; i < 100; i += 9)
    printf("%.1f\n", y[i]);
  return 0;
}
