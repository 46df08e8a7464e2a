// expect: output
/* Bounds at the top of `long`: the generated `long` arithmetic must not overflow. */
double A[100];
void f(int n) {
  long i;
#pragma scop
  for (i = 9223372036854775800L; i < 9223372036854775807L; i++)
    A[i - 9223372036854775800L] = 1.0;
#pragma endscop
}
