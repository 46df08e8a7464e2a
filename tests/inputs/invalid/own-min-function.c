// expect: 7: function call `min` in a loop bound
double x[64];
static int min(int a, int b) { return a > b ? a : b; }
void k(int n) {
  int i;
#pragma scop
  for (i = 0; i < min(n, 20); i++)
    x[i] = 1.0;
#pragma endscop
}
