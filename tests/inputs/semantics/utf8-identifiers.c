/* Identifiers with non-ASCII letters (gcc writes them as universal character names after preprocessing): arrays, a scalar, a parameter and an iterator read after the SCoP, and a variable outside it. polyc parses them in an ASCII spelling and spells them back in generated code; OpenCL kernels keep the ASCII spelling inside their source string. */
#include <stdio.h>
static double größe[100], wert[100];
int zähler = 0;
long k(int länge, double maß) {
  int ï = 0, j;
#pragma scop
  for (ï = 1; ï < länge; ï++)
    for (j = 0; j < länge; j++)
      größe[j] = größe[j] + wert[ï] * maß + (double)ï;
#pragma endscop
  return ï;
}
int main(void) {
  for (int a = 0; a < 100; a++) { größe[a] = a; wert[a] = 100 - a; }
  long r = k(90, 0.5);
  zähler++;
  for (int a = 0; a < 100; a++) printf("%.17g\n", größe[a]);
  printf("%d %ld\n", zähler, r);
  return 0;
}
