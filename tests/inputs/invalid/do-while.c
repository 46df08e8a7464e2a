// expect: 6: `do`-`while` loop inside a SCoP
void k(int n, double A[100]) {
  int i = 0;
#pragma scop
  A[0] = 0.0;
  do {
    A[1] = 1.0;
  } while (n > 3);
#pragma endscop
}
