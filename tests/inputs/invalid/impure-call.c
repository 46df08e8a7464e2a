// expect: 7: call to `rand`, which is not a known pure function
#include <stdlib.h>
void k(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = rand();
#pragma endscop
}
