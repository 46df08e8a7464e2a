// expect: 8: `break` inside a SCoP
void k(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 1.0;
    if (i > 5)
      break;
  }
#pragma endscop
}
