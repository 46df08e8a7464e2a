// expect: 6: loop bound uses `n`, which is written inside the SCoP
void k(int n, double A[100]) {
  int i;
#pragma scop
  n = n - 1;
  for (i = 0; i < n; i++)
    A[i] = 0.0;
#pragma endscop
}
