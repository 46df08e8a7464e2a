// expect: 7: a run of `+` and `-` signs with more than 16
/* Found by fuzzing: a long run of `+` before a syntax error made polyc's C parser backtrack
   through every way of splitting it into `++` and `+` (40 signs: over a minute). Runs of more
   than 16 adjacent signs are refused before parsing; no valid expression has them. */
void f(int n, double A[100]) {
#pragma scop
  for (int i = 0; i < n; i++) ++++++++++++++++++++++++++++++++++++++++ @ A[i] = 0;
#pragma endscop
}
