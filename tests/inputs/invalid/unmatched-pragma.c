// expect: 5: `#pragma scop` without a matching `#pragma endscop`
void k(int n, double A[100]) {
  int i;
  for (i = 0; i < n; i++) A[i] = 0.0;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
}
