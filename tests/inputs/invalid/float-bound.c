// expect: 5: `x` has type `double`; a loop bound must be an integer expression
void k(int n, double x, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < x; i++)
    A[i] = 1.0;
#pragma endscop
}
