// expect: output
/* C11 _Generic and a GNU statement expression outside the SCoP are left alone. */
#define kind(x) _Generic((x), int: 1, default: 0)
double A[100];
void f(int n) {
  int i;
  int k = kind(n) + ({ int t = 2; t; });
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] + 1.0;
#pragma endscop
  A[0] += k;
}
