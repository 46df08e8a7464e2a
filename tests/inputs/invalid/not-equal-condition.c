// expect: 5: loop condition on `i` uses `==` or `!=`
void k(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i != n; i++)
    A[i] = 1.0;
#pragma endscop
}
