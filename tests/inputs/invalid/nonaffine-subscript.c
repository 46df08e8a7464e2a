// expect: 7: non-affine subscript
void k(int n, double A[100][100]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][i * j] = 1.0;
#pragma endscop
}
