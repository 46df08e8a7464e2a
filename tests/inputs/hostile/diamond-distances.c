// expect: output
// fallback: scheduling: the band at dimensions 0-1 keeps skewed tiles (a pipelined start), not diamond tiles: its dependences have 4997 distance vectors along its rows 0 and 1, past the 4096 the diamond search takes
/* A time-iterated stencil that also reads every earlier time step of its own row: the
   dependences from S1's reads of A[k][i] have one distance vector per earlier step, 4,997 in
   all, past the 4,096 the diamond search enumerates (pluto::diamond::MAX_DISTANCES). The band
   keeps skewed tiles, and `--dump fallbacks` says that the search was cut short. */
#define T 5000
#define N 100
double A[T][N];
void kernel(void) {
  int t, i, k;
#pragma scop
  for (t = 1; t < T; t++)
    for (i = 1; i < N - 1; i++) {
      A[t][i] = A[t - 1][i - 1] + A[t - 1][i] + A[t - 1][i + 1];
      for (k = 0; k < t - 1; k++)
        A[t][i] += A[k][i] * 0.001;
    }
#pragma endscop
}
