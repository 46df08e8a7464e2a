// expect: 6: data-dependent condition
void k(int n, double A[100], double B[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] > 0.0)
      B[i] = A[i];
#pragma endscop
}
