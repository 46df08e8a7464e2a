// expect: 6: unsupported loop step
double A[100];
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i += 0)
    A[i] = 1.0;
#pragma endscop
}
