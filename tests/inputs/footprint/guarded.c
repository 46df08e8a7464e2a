/* Writes whose box depends on a parameter that no subscript mentions: with T = 0 the SCoP writes
   nothing, and the copy back must not bring the device buffer's contents into B. Called with
   T = 0, then T = 3. Prints every element. */
#include <stdio.h>

static double A[100], B[100];

static void f(int n, int T) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      B[i] = A[i] + t;
#pragma endscop
}

int main(void) {
  for (int i = 0; i < 100; i++) {
    A[i] = (double)(i % 7);
    B[i] = -(double)i;
  }
  f(100, 0);
  for (int i = 0; i < 100; i++)
    printf("%d %.4f\n", i, B[i]);
  f(100, 3);
  for (int i = 0; i < 100; i++)
    printf("%d %.4f\n", i, B[i]);
  return 0;
}
