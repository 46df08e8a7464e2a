// expect: 10: `}` does not close the `(` opened on line 8
/* Found by fuzzing: signs and casts inside unclosed brackets made polyc's C parser backtrack
   through every reading of them (three nested `[++++++++++++++(float(` took over two minutes).
   Brackets are checked before parsing; valid C balances them. */
void f(int n, float *y) {
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = y[++++++++++++++(float(y[++++++++++++++(float(y[++++++++++++++(float(y[0];
#pragma endscop
}
