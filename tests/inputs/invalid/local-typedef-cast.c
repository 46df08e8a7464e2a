// expect: 10: cast to `lreal`, a type polyc does not know here
/* A cast to a typedef declared inside the function: GPU kernels could not spell it. */
double A[40];

void f(int n) {
  typedef float lreal;
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] += (lreal)i / 3;
#pragma endscop
}
