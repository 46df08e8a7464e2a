// expect: output
/* Loops with nothing in them: the SCoP computes only the iterators' final values, read after it
   (differential test, seed 89, shrunk to its first crash). */
long f(int m) {
  int i = 0;
#pragma scop
  for (i = 0; i < m; i += 3) {
  }
#pragma endscop
  return i;
}
