// expect: output
// fallback: code generation: 1 of the 1 statement calls of an AST were not checked against the schedule (1 under more than 6 loops)
/* A 12-deep loop nest of extent 2 (compiles in about 2 s). */
double A[2][2][2][2][2][2][2][2][2][2][2][2];
void f(void) {
  int i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11;
#pragma scop
  for (i0 = 0; i0 < 2; i0++)
    for (i1 = 0; i1 < 2; i1++)
      for (i2 = 0; i2 < 2; i2++)
        for (i3 = 0; i3 < 2; i3++)
          for (i4 = 0; i4 < 2; i4++)
            for (i5 = 0; i5 < 2; i5++)
              for (i6 = 0; i6 < 2; i6++)
                for (i7 = 0; i7 < 2; i7++)
                  for (i8 = 0; i8 < 2; i8++)
                    for (i9 = 0; i9 < 2; i9++)
                      for (i10 = 0; i10 < 2; i10++)
                        for (i11 = 0; i11 < 2; i11++)
                          A[i0][i1][i2][i3][i4][i5][i6][i7][i8][i9][i10][i11] = A[i0][i1][i2][i3][i4][i5][i6][i7][i8][i9][i10][i11] + 1.0;
#pragma endscop
}
