/*
 * polybench.h - support header of the polyc kernel suite.
 *
 * Written for polyc.  It offers the programming interface of PolyBench/C
 * 4.2.1 (same macro names, same expansion rules, same dump format), so that a
 * kernel written against that interface builds unchanged against this header
 * and vice versa.  Element type and dataset sizes are chosen by each kernel's
 * own header, which is included after this one.
 *
 * Options (all given with -D on the compiler command line):
 *   POLYBENCH_USE_C99_PROTO   array parameters become VLAs over the size
 *                             parameters instead of the dataset constants
 *   POLYBENCH_USE_SCALAR_LB   loop bounds _PB_X are the constants X instead of
 *                             the lower-case size parameters
 *   POLYBENCH_PADDING_FACTOR  extra elements added to every array dimension
 *   POLYBENCH_USE_RESTRICT    add 'restrict' to array parameters
 *   POLYBENCH_STACK_ARRAYS    arrays of main() live on the stack
 *   POLYBENCH_DUMP_ARRAYS     print the live-out arrays on stderr
 *   POLYBENCH_TIME            print the kernel time in seconds on stdout
 *   POLYBENCH_NO_FLUSH_CACHE  do not touch a large buffer before timing
 *   POLYBENCH_CACHE_SIZE_KB   size of that buffer (default 32770)
 */
#ifndef SUITE_POLYBENCH_H
#define SUITE_POLYBENCH_H

#include <stdlib.h>

/* Kernels mark their static control part with '#pragma scop' and
   '#pragma endscop', which C compilers do not know; keep -Wall quiet about
   them in every file that includes this header. */
#if defined(__GNUC__) || defined(__clang__)
# pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

/* ---- array shapes --------------------------------------------------- */

#ifndef POLYBENCH_PADDING_FACTOR
# define POLYBENCH_PADDING_FACTOR 0
#endif

#ifdef POLYBENCH_USE_RESTRICT
# define POLYBENCH_RESTRICT restrict
#else
# define POLYBENCH_RESTRICT
#endif

/* Pick the dataset constant (x) or the run-time size parameter (y). */
#ifdef POLYBENCH_USE_C99_PROTO
# define POLYBENCH_C99_SELECT(x, y) y
#else
# define POLYBENCH_C99_SELECT(x, y) x
#endif

/* Loop bounds: size parameter by default, constant on request. */
#ifdef POLYBENCH_USE_SCALAR_LB
# define POLYBENCH_LOOP_BOUND(x, y) x
#else
# define POLYBENCH_LOOP_BOUND(x, y) y
#endif

/* One padded extent. */
#define POLYBENCH_EXTENT_(D, d) POLYBENCH_C99_SELECT(D, d) + POLYBENCH_PADDING_FACTOR

/* Array parameters of kernels and of the init/print helpers. */
#define POLYBENCH_1D(var, D1, d1) \
  var[POLYBENCH_RESTRICT POLYBENCH_EXTENT_(D1, d1)]
#define POLYBENCH_2D(var, D1, D2, d1, d2) \
  var[POLYBENCH_RESTRICT POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)]
#define POLYBENCH_3D(var, D1, D2, D3, d1, d2, d3) \
  var[POLYBENCH_RESTRICT POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)][POLYBENCH_EXTENT_(D3, d3)]
#define POLYBENCH_4D(var, D1, D2, D3, D4, d1, d2, d3, d4) \
  var[POLYBENCH_RESTRICT POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)][POLYBENCH_EXTENT_(D3, d3)][POLYBENCH_EXTENT_(D4, d4)]
#define POLYBENCH_5D(var, D1, D2, D3, D4, D5, d1, d2, d3, d4, d5) \
  var[POLYBENCH_RESTRICT POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)][POLYBENCH_EXTENT_(D3, d3)][POLYBENCH_EXTENT_(D4, d4)][POLYBENCH_EXTENT_(D5, d5)]

/* The same shapes without 'restrict', for ordinary declarations. */
#define POLYBENCH_1D_F(var, D1, d1) \
  var[POLYBENCH_EXTENT_(D1, d1)]
#define POLYBENCH_2D_F(var, D1, D2, d1, d2) \
  var[POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)]
#define POLYBENCH_3D_F(var, D1, D2, D3, d1, d2, d3) \
  var[POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)][POLYBENCH_EXTENT_(D3, d3)]
#define POLYBENCH_4D_F(var, D1, D2, D3, D4, d1, d2, d3, d4) \
  var[POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)][POLYBENCH_EXTENT_(D3, d3)][POLYBENCH_EXTENT_(D4, d4)]
#define POLYBENCH_5D_F(var, D1, D2, D3, D4, D5, d1, d2, d3, d4, d5) \
  var[POLYBENCH_EXTENT_(D1, d1)][POLYBENCH_EXTENT_(D2, d2)][POLYBENCH_EXTENT_(D3, d3)][POLYBENCH_EXTENT_(D4, d4)][POLYBENCH_EXTENT_(D5, d5)]

/* ---- arrays of main() -------------------------------------------------- */

#ifdef POLYBENCH_STACK_ARRAYS
# define POLYBENCH_DECL_VAR(x) x
# define POLYBENCH_ARRAY(x) x
# define POLYBENCH_FREE_ARRAY(x)
# define POLYBENCH_1D_ARRAY_DECL(var, type, D1, d1) \
  type POLYBENCH_1D_F(var, D1, d1);
# define POLYBENCH_2D_ARRAY_DECL(var, type, D1, D2, d1, d2) \
  type POLYBENCH_2D_F(var, D1, D2, d1, d2);
# define POLYBENCH_3D_ARRAY_DECL(var, type, D1, D2, D3, d1, d2, d3) \
  type POLYBENCH_3D_F(var, D1, D2, D3, d1, d2, d3);
# define POLYBENCH_4D_ARRAY_DECL(var, type, D1, D2, D3, D4, d1, d2, d3, d4) \
  type POLYBENCH_4D_F(var, D1, D2, D3, D4, d1, d2, d3, d4);
# define POLYBENCH_5D_ARRAY_DECL(var, type, D1, D2, D3, D4, D5, d1, d2, d3, d4, d5) \
  type POLYBENCH_5D_F(var, D1, D2, D3, D4, D5, d1, d2, d3, d4, d5);
#else
/* A heap array is a pointer to a whole array: 'A' is declared as
   'type (*A)[D1][D2]...' and POLYBENCH_ARRAY(A) is '*A'. */
# define POLYBENCH_DECL_VAR(x) (*x)
# define POLYBENCH_ARRAY(x) *x
# define POLYBENCH_FREE_ARRAY(x) free((void*)x)
# define POLYBENCH_ALLOC_1D_ARRAY(n1, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_ALLOC_2D_ARRAY(n1, n2, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * \
                       (n2 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_ALLOC_3D_ARRAY(n1, n2, n3, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR][n3 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * \
                       (n2 + POLYBENCH_PADDING_FACTOR) * \
                       (n3 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_ALLOC_4D_ARRAY(n1, n2, n3, n4, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR][n3 + POLYBENCH_PADDING_FACTOR][n4 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * \
                       (n2 + POLYBENCH_PADDING_FACTOR) * \
                       (n3 + POLYBENCH_PADDING_FACTOR) * \
                       (n4 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_ALLOC_5D_ARRAY(n1, n2, n3, n4, n5, type) \
  (type(*)[n1 + POLYBENCH_PADDING_FACTOR][n2 + POLYBENCH_PADDING_FACTOR][n3 + POLYBENCH_PADDING_FACTOR][n4 + POLYBENCH_PADDING_FACTOR][n5 + POLYBENCH_PADDING_FACTOR]) \
  polybench_alloc_data((n1 + POLYBENCH_PADDING_FACTOR) * \
                       (n2 + POLYBENCH_PADDING_FACTOR) * \
                       (n3 + POLYBENCH_PADDING_FACTOR) * \
                       (n4 + POLYBENCH_PADDING_FACTOR) * \
                       (n5 + POLYBENCH_PADDING_FACTOR), sizeof(type))
# define POLYBENCH_1D_ARRAY_DECL(var, type, D1, d1) \
  type POLYBENCH_1D_F(POLYBENCH_DECL_VAR(var), D1, d1); \
  var = POLYBENCH_ALLOC_1D_ARRAY(POLYBENCH_C99_SELECT(D1, d1), type);
# define POLYBENCH_2D_ARRAY_DECL(var, type, D1, D2, d1, d2) \
  type POLYBENCH_2D_F(POLYBENCH_DECL_VAR(var), D1, D2, d1, d2); \
  var = POLYBENCH_ALLOC_2D_ARRAY(POLYBENCH_C99_SELECT(D1, d1), \
                                 POLYBENCH_C99_SELECT(D2, d2), type);
# define POLYBENCH_3D_ARRAY_DECL(var, type, D1, D2, D3, d1, d2, d3) \
  type POLYBENCH_3D_F(POLYBENCH_DECL_VAR(var), D1, D2, D3, d1, d2, d3); \
  var = POLYBENCH_ALLOC_3D_ARRAY(POLYBENCH_C99_SELECT(D1, d1), \
                                 POLYBENCH_C99_SELECT(D2, d2), \
                                 POLYBENCH_C99_SELECT(D3, d3), type);
# define POLYBENCH_4D_ARRAY_DECL(var, type, D1, D2, D3, D4, d1, d2, d3, d4) \
  type POLYBENCH_4D_F(POLYBENCH_DECL_VAR(var), D1, D2, D3, D4, d1, d2, d3, d4); \
  var = POLYBENCH_ALLOC_4D_ARRAY(POLYBENCH_C99_SELECT(D1, d1), \
                                 POLYBENCH_C99_SELECT(D2, d2), \
                                 POLYBENCH_C99_SELECT(D3, d3), \
                                 POLYBENCH_C99_SELECT(D4, d4), type);
# define POLYBENCH_5D_ARRAY_DECL(var, type, D1, D2, D3, D4, D5, d1, d2, d3, d4, d5) \
  type POLYBENCH_5D_F(POLYBENCH_DECL_VAR(var), D1, D2, D3, D4, D5, d1, d2, d3, d4, d5); \
  var = POLYBENCH_ALLOC_5D_ARRAY(POLYBENCH_C99_SELECT(D1, d1), \
                                 POLYBENCH_C99_SELECT(D2, d2), \
                                 POLYBENCH_C99_SELECT(D3, d3), \
                                 POLYBENCH_C99_SELECT(D4, d4), \
                                 POLYBENCH_C99_SELECT(D5, d5), type);
#endif

/* ---- dumps -------------------------------------------------------------- */

#define POLYBENCH_DUMP_TARGET stderr
#define POLYBENCH_DUMP_START \
  fprintf(POLYBENCH_DUMP_TARGET, "==BEGIN DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_FINISH \
  fprintf(POLYBENCH_DUMP_TARGET, "==END   DUMP_ARRAYS==\n")
#define POLYBENCH_DUMP_BEGIN(s) \
  fprintf(POLYBENCH_DUMP_TARGET, "begin dump: %s", s)
#define POLYBENCH_DUMP_END(s) \
  fprintf(POLYBENCH_DUMP_TARGET, "\nend   dump: %s\n", s)

/* polybench_prevent_dce(call): the call runs only with
   -DPOLYBENCH_DUMP_ARRAYS.  Without it the call stays in the program behind
   a test on main's arguments that never holds in practice, so the compiler
   cannot drop the kernel's results as dead.  Both forms use 'argc' and
   'argv', so it must appear in main(int argc, char** argv). */
#ifdef POLYBENCH_DUMP_ARRAYS
# define POLYBENCH_DCE_ONLY_CODE if ((void)argc, (void)argv, 1)
#else
# define POLYBENCH_DCE_ONLY_CODE if (argc > 42 && !strcmp(argv[0], ""))
#endif
#define polybench_prevent_dce(func) POLYBENCH_DCE_ONLY_CODE func

/* ---- instruments -------------------------------------------------------- */

#ifdef POLYBENCH_TIME
# define polybench_start_instruments polybench_timer_start();
# define polybench_stop_instruments polybench_timer_stop();
# define polybench_print_instruments polybench_timer_print();
#else
# define polybench_start_instruments
# define polybench_stop_instruments
# define polybench_print_instruments
#endif

#ifndef POLYBENCH_CACHE_SIZE_KB
# define POLYBENCH_CACHE_SIZE_KB 32770
#endif

/* ---- run-time support (polybench.c) -------------------------------------- */

extern double polybench_t_start;
extern double polybench_t_end;

extern void polybench_flush_cache(void);
extern void polybench_prepare_instruments(void);
extern void polybench_timer_start(void);
extern void polybench_timer_stop(void);
extern void polybench_timer_print(void);

extern void* polybench_alloc_data(unsigned long long int n, int elt_size);
extern void polybench_free_data(void* ptr);

#endif /* SUITE_POLYBENCH_H */
