// expect: 7: struct member access
struct point { double x, y; };
void k(int n, struct point P[100], double A[100]) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = P[i].x;
#pragma endscop
}
