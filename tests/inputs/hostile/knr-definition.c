// expect: output
/* A K&R definition: its parameters are declared between the declarator and the body. */
double A[100];
void f(n)
  int n;
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
