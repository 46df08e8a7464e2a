// expect: output
/* A loop counting down by 3. */
double A[100];
void f(int n) {
  int i;
#pragma scop
  for (i = n - 1; i >= 0; i -= 3)
    A[i] = A[i] * 2.0;
#pragma endscop
}
