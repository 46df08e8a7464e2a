/*
 * gemm.h - dataset sizes and element type of the gemm kernel
 * (polyc kernel suite).
 *
 * C := alpha*A*B + beta*C with C NIxNJ, A NIxNK, B NKxNJ.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DNK=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_GEMM_H
# define SUITE_GEMM_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef NI
#   define NI 20
#  endif
#  ifndef NJ
#   define NJ 25
#  endif
#  ifndef NK
#   define NK 30
#  endif
# elif defined(SMALL_DATASET)
#  ifndef NI
#   define NI 60
#  endif
#  ifndef NJ
#   define NJ 70
#  endif
#  ifndef NK
#   define NK 80
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef NI
#   define NI 200
#  endif
#  ifndef NJ
#   define NJ 220
#  endif
#  ifndef NK
#   define NK 240
#  endif
# elif defined(LARGE_DATASET)
#  ifndef NI
#   define NI 1000
#  endif
#  ifndef NJ
#   define NJ 1100
#  endif
#  ifndef NK
#   define NK 1200
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef NI
#   define NI 2000
#  endif
#  ifndef NJ
#   define NJ 2300
#  endif
#  ifndef NK
#   define NK 2600
#  endif
# endif

# define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)

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

#endif /* SUITE_GEMM_H */
