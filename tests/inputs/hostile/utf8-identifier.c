// expect: 4: an identifier with a non-ASCII letter
/* gcc accepts UTF-8 identifiers; polyc's parser does not, and says so. */
double A[100];
int größe = 3;
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
