// expect: 7: function call `limit` in a loop bound
int limit(int n);
void k(int n, double A[100]) {
  int i;
#pragma scop
  /* a call may have side effects and is not affine */
  for (i = 0; i < limit(n); i++)
    A[i] = 0.0;
#pragma endscop
}
