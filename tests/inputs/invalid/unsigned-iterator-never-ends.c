// expect: 6: the `unsigned int` iterator `i` wraps around
double x[64];
void k(unsigned n) {
  unsigned i;
#pragma scop
  for (i = n; i >= 0; i--)
    x[i] = 1.0;
#pragma endscop
}
