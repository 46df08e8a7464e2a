// expect: 6: `while` loop inside a SCoP
void k(int n, double A[100]) {
  int i = 0;
#pragma scop
  A[0] = 1.0;
  while (i < n) {
    A[i] = 2.0;
  }
#pragma endscop
}
