// expect: output
// fallback: tiling: the SCoP runs untiled: the tile loops' bounds of band dimension 2 would take Fourier-Motzkin past 4096 inequalities
/* A 6-deep band whose bounds and guard couple every iterator: Fourier-Motzkin, eliminating the
   band's dimensions from the innermost out for the tile loops' bounds, passes fm::MAX_ROWS
   inequalities, and the SCoP runs untiled (ptile::space), listed by `--dump fallbacks`. */
void kernel(int n, double A[n][n][n][n][n][n]) {
  int a, b, c, d, e, f;
#pragma scop
  for (a = 0; a < n; a++)
    for (b = 0; b < n && b < 2 * a + 3; b++)
      for (c = 0; c < n && c < a + b && c < 3 * n - b - 2 * a; c++)
        for (d = 0; d < n && d < a + c && d < 2 * b + c; d++)
          for (e = 0; e < n && e < a + d && e < b + c + d; e++)
            for (f = 0; f < n && f < a + e && f < c + e && f < b + d + e; f++)
              if (b + a > n - 3 * a && d + c > n - a - b && e + b > 2 * n - a - d &&
                  f + a > 3 * n - c - e && a + b + c + d + e + f < 4 * n)
                A[a][b][c][d][e][f] = A[a][b][c][d][e][f] * 2.0 + 1.0;
#pragma endscop
}
