// expect: 6: pointer dereference
void k(int n, double *p) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    *(p + i) = 0.0;
#pragma endscop
}
