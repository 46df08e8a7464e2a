/*
 * deriche.h - dataset sizes and element type of the deriche kernel
 * (polyc kernel suite).
 *
 * Deriche recursive edge-preserving smoothing filter on a WxH image.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DH=64.
 * The element type is float unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_DERICHE_H
# define SUITE_DERICHE_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef W
#   define W 64
#  endif
#  ifndef H
#   define H 64
#  endif
# elif defined(SMALL_DATASET)
#  ifndef W
#   define W 192
#  endif
#  ifndef H
#   define H 128
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef W
#   define W 720
#  endif
#  ifndef H
#   define H 480
#  endif
# elif defined(LARGE_DATASET)
#  ifndef W
#   define W 4096
#  endif
#  ifndef H
#   define H 2160
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef W
#   define W 7680
#  endif
#  ifndef H
#   define H 4320
#  endif
# endif

# define _PB_W POLYBENCH_LOOP_BOUND(W, w)
# define _PB_H POLYBENCH_LOOP_BOUND(H, h)

# if !defined(DATA_TYPE_IS_INT) && !defined(DATA_TYPE_IS_FLOAT) && \
     !defined(DATA_TYPE_IS_DOUBLE)
#  define DATA_TYPE_IS_FLOAT
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

#endif /* SUITE_DERICHE_H */
