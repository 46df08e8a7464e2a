/*
 * doitgen.h - dataset sizes and element type of the doitgen kernel
 * (polyc kernel suite).
 *
 * Multiresolution kernel: every row A[r][q][*] is multiplied by C4.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DNP=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_DOITGEN_H
# define SUITE_DOITGEN_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef NQ
#   define NQ 8
#  endif
#  ifndef NR
#   define NR 10
#  endif
#  ifndef NP
#   define NP 12
#  endif
# elif defined(SMALL_DATASET)
#  ifndef NQ
#   define NQ 20
#  endif
#  ifndef NR
#   define NR 25
#  endif
#  ifndef NP
#   define NP 30
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef NQ
#   define NQ 40
#  endif
#  ifndef NR
#   define NR 50
#  endif
#  ifndef NP
#   define NP 60
#  endif
# elif defined(LARGE_DATASET)
#  ifndef NQ
#   define NQ 140
#  endif
#  ifndef NR
#   define NR 150
#  endif
#  ifndef NP
#   define NP 160
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef NQ
#   define NQ 220
#  endif
#  ifndef NR
#   define NR 250
#  endif
#  ifndef NP
#   define NP 270
#  endif
# endif

# define _PB_NQ POLYBENCH_LOOP_BOUND(NQ, nq)
# define _PB_NR POLYBENCH_LOOP_BOUND(NR, nr)
# define _PB_NP POLYBENCH_LOOP_BOUND(NP, np)

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

#endif /* SUITE_DOITGEN_H */
