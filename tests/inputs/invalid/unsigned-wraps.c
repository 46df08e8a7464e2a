// expect: 6: `i` (of type `int`) converted to `unsigned int` changes its value here
double x[64];
void k(unsigned m) {
  int i;
#pragma scop
  for (i = -3; i < m; i++)
    x[i + 3] = 1.0;
#pragma endscop
}
