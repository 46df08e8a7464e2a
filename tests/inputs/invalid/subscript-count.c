// expect: 7: `A` has 2 dimension(s) but is used with 1 subscript(s)
void k(int n, double A[100][100], double B[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    /* a row of A is not an element */
    B[i] = A[i];
#pragma endscop
}
