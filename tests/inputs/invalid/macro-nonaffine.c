// expect: 8: non-affine subscript
#define SQ(x) ((x) * (x))
void k(int n, double A[100]) {
  int i;
#pragma scop
  /* the macro expands to a product of the iterator with itself */
  for (i = 0; i < 10; i++)
    A[SQ(i)] = 0.0;
#pragma endscop
}
