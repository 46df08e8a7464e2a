// expect: 6: non-affine loop bound
void k(int n, double A[100]) {
  int i;
#pragma scop
  /* the bound n*n is a product of two parameters */
  for (i = 0; i < n * n; i++)
    A[i] = 0.0;
#pragma endscop
}
