// expect: output
/* Macros that expand to loops inside the SCoP. */
#define LOOP(v, n) for (v = 0; v < (n); v++)
double A[100][100];
void f(int n) {
  int i, j;
#pragma scop
  LOOP(i, n) LOOP(j, n) A[i][j] = A[j][i] + 1.0;
#pragma endscop
}
