// expect: 7: an identifier with a non-ASCII letter
/* The ASCII spelling polyc reads `größe` in (`gr_U000000f6_U000000dfe`) is taken by an
   identifier of the file's own, so the two could not be told apart: a located error that says
   so, not a wrong program. */
double A[100];
int gr_U000000f6_U000000dfe = 1;
int größe = 3;
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
