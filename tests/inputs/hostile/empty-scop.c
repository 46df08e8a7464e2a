// expect: 4: no statement between `#pragma scop` and `#pragma endscop`
/* A SCoP with nothing in it. */
void f(void) {
#pragma scop
#pragma endscop
}
