/*
 * 2mm.h - dataset sizes and element type of the 2mm kernel
 * (polyc kernel suite).
 *
 * D := alpha*A*B*C + beta*D, two chained matrix products.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DNL=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_2MM_H
# define SUITE_2MM_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef NI
#   define NI 16
#  endif
#  ifndef NJ
#   define NJ 18
#  endif
#  ifndef NK
#   define NK 22
#  endif
#  ifndef NL
#   define NL 24
#  endif
# elif defined(SMALL_DATASET)
#  ifndef NI
#   define NI 40
#  endif
#  ifndef NJ
#   define NJ 50
#  endif
#  ifndef NK
#   define NK 70
#  endif
#  ifndef NL
#   define NL 80
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef NI
#   define NI 180
#  endif
#  ifndef NJ
#   define NJ 190
#  endif
#  ifndef NK
#   define NK 210
#  endif
#  ifndef NL
#   define NL 220
#  endif
# elif defined(LARGE_DATASET)
#  ifndef NI
#   define NI 800
#  endif
#  ifndef NJ
#   define NJ 900
#  endif
#  ifndef NK
#   define NK 1100
#  endif
#  ifndef NL
#   define NL 1200
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef NI
#   define NI 1600
#  endif
#  ifndef NJ
#   define NJ 1800
#  endif
#  ifndef NK
#   define NK 2200
#  endif
#  ifndef NL
#   define NL 2400
#  endif
# endif

# define _PB_NI POLYBENCH_LOOP_BOUND(NI, ni)
# define _PB_NJ POLYBENCH_LOOP_BOUND(NJ, nj)
# define _PB_NK POLYBENCH_LOOP_BOUND(NK, nk)
# define _PB_NL POLYBENCH_LOOP_BOUND(NL, nl)

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

#endif /* SUITE_2MM_H */
