/*
 * mvt.h - dataset sizes and element type of the mvt kernel
 * (polyc kernel suite).
 *
 * x1 += A * y_1 and x2 += A^T * y_2.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DN=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_MVT_H
# define SUITE_MVT_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef N
#   define N 40
#  endif
# elif defined(SMALL_DATASET)
#  ifndef N
#   define N 120
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef N
#   define N 400
#  endif
# elif defined(LARGE_DATASET)
#  ifndef N
#   define N 2000
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef N
#   define N 4000
#  endif
# endif

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

#endif /* SUITE_MVT_H */
