// expect: output
/* A char iterator: its values fit, the model takes it as is. */
double A[100];
void f(void) {
  char c;
#pragma scop
  for (c = 0; c < 100; c++)
    A[c] = A[c] + 1.0;
#pragma endscop
}
