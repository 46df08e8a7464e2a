/* A SCoP that touches only part of its arrays, for the GPU targets' footprint transfers: a
   stencil reading a band of rows of A (live-in only), an update of a block of B that is not whole
   rows (written, so its range goes in and out), a matrix P the SCoP produces whole (out only),
   and strided writes to V (not a box: in and out). Every element of every array is printed, so
   a transfer that misses or clobbers anything shows. */
#include <stdio.h>

#define NR 200
#define NC 100

static double A[NR][NC], B[NR][NC], P[NR][NC], V[1000];

static void kernel(int n, int m) {
#pragma scop
  for (int i = 10; i < 10 + n; i++)
    for (int j = 5; j < 5 + m; j++)
      B[i][j] = 0.5 * (A[i - 1][j] + A[i + 1][j]);
  for (int i = 0; i < NR; i++)
    for (int j = 0; j < NC; j++)
      P[i][j] = (double)(i * j % 17);
  for (int i = 0; i < n; i++)
    V[2 * i] = V[2 * i] * 0.5 + 1.0;
#pragma endscop
}

int main(void) {
  for (int i = 0; i < NR; i++)
    for (int j = 0; j < NC; j++) {
      A[i][j] = (double)((i * 7 + j) % 23);
      B[i][j] = -(double)((i + j * 3) % 19);
      P[i][j] = -1.0;
    }
  for (int i = 0; i < 1000; i++)
    V[i] = (double)(i % 29);
  kernel(50, 60);
  for (int i = 0; i < NR; i++)
    for (int j = 0; j < NC; j++)
      printf("%d %d %.6f %.6f %.6f\n", i, j, A[i][j], B[i][j], P[i][j]);
  for (int i = 0; i < 1000; i++)
    printf("V %d %.6f\n", i, V[i]);
  return 0;
}
