// expect: 5: syntax error
void k(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) A[i] = 1.0 +;
#pragma endscop
}
