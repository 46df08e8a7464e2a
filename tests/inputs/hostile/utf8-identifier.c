// expect: output
/* gcc accepts UTF-8 identifiers (its preprocessor writes `größe` as `gr\U000000f6\U000000dfe`);
   polyc reads them in an ASCII spelling of the same length and spells them back in the code it
   generates. tests/inputs/semantics/utf8-identifiers.c runs a SCoP over such names. */
double A[100];
int größe = 3;
void f(int n) {
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 1.0;
#pragma endscop
}
