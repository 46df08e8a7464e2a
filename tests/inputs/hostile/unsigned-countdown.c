// expect: output
/* An unsigned iterator counting down to 1. */
double A[100];
void f(unsigned n) {
  unsigned i;
#pragma scop
  for (i = n; i > 0; i--)
    A[i] = A[i - 1] + 1.0;
#pragma endscop
}
