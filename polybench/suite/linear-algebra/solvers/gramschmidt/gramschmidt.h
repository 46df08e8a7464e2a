/*
 * gramschmidt.h - dataset sizes and element type of the gramschmidt kernel
 * (polyc kernel suite).
 *
 * Modified Gram-Schmidt QR of A (MxN): Q MxN, R NxN.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DN=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_GRAMSCHMIDT_H
# define SUITE_GRAMSCHMIDT_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef M
#   define M 20
#  endif
#  ifndef N
#   define N 30
#  endif
# elif defined(SMALL_DATASET)
#  ifndef M
#   define M 60
#  endif
#  ifndef N
#   define N 80
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef M
#   define M 200
#  endif
#  ifndef N
#   define N 240
#  endif
# elif defined(LARGE_DATASET)
#  ifndef M
#   define M 1000
#  endif
#  ifndef N
#   define N 1200
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef M
#   define M 2000
#  endif
#  ifndef N
#   define N 2600
#  endif
# endif

# define _PB_M POLYBENCH_LOOP_BOUND(M, m)
# define _PB_N POLYBENCH_LOOP_BOUND(N, n)

# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && \
     !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_DOUBLE
# endif

# if defined(DATA_TYPE_IS_INT)
#  define DATA_TYPE int
#  define DATA_PRINTF_MODIFIER "%d "
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x, y) pow(x, y)
# elif defined(DATA_TYPE_IS_FLOAT)
#  define DATA_TYPE float
#  define DATA_PRINTF_MODIFIER "%0.2f "
#  define SCALAR_VAL(x) x##f
#  define SQRT_FUN(x) sqrtf(x)
#  define EXP_FUN(x) expf(x)
#  define POW_FUN(x, y) powf(x, y)
# else
#  define DATA_TYPE double
#  define DATA_PRINTF_MODIFIER "%0.2lf "
#  define SCALAR_VAL(x) x
#  define SQRT_FUN(x) sqrt(x)
#  define EXP_FUN(x) exp(x)
#  define POW_FUN(x, y) pow(x, y)
# endif

#endif /* SUITE_GRAMSCHMIDT_H */
