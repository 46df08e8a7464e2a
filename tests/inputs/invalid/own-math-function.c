// expect: 9: call to `sqrt`, a function this program defines
double x[64];
static int calls;
double sqrt(double v) { calls++; return v; }
void k(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    x[i] = sqrt(x[i]);
#pragma endscop
}
