/* Casts to the program's own typedefs: the GPU kernels do not see the typedefs, so the model
   spells the types out (`real` → `float`, `idx` → `unsigned long`). */
#include <stdio.h>

typedef float real;
typedef unsigned long idx;
typedef idx index_t;

double A[50][50];

static void kernel(int n) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (real)(i * 3 + j) / 7 + (double)(index_t)(i + 2 * j) / 5;
#pragma endscop
}

int main(void) {
  kernel(50);
  double s = 0;
  for (int i = 0; i < 50; i++)
    for (int j = 0; j < 50; j++)
      s += A[i][j] * (i + 1) / (j + 1);
  printf("%.6f %.6f\n", s, A[49][48]);
  return 0;
}
