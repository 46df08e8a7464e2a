// expect: 7: `continue` inside a SCoP
double A[100];
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    if (i == 3) continue;
    A[i] = 1.0;
  }
#pragma endscop
}
