/*
 * covariance.h - dataset sizes and element type of the covariance kernel
 * (polyc kernel suite).
 *
 * Sample covariance matrix of M variables observed N times.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DN=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_COVARIANCE_H
# define SUITE_COVARIANCE_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef M
#   define M 28
#  endif
#  ifndef N
#   define N 32
#  endif
# elif defined(SMALL_DATASET)
#  ifndef M
#   define M 80
#  endif
#  ifndef N
#   define N 100
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef M
#   define M 240
#  endif
#  ifndef N
#   define N 260
#  endif
# elif defined(LARGE_DATASET)
#  ifndef M
#   define M 1200
#  endif
#  ifndef N
#   define N 1400
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef M
#   define M 2600
#  endif
#  ifndef N
#   define N 3000
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

#endif /* SUITE_COVARIANCE_H */
