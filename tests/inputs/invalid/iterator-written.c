// expect: 7: assignment to the loop iterator `i`
void k(int n, double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    A[i] = 1.0;
    i = i + 1;
  }
#pragma endscop
}
