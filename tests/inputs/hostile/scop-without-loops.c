// expect: output
/* A SCoP of statements without loops. */
double x, y;
void f(void) {
#pragma scop
  x = y * 2.0;
  y = x + 1.0;
#pragma endscop
}
