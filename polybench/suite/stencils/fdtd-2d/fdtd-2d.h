/*
 * fdtd-2d.h - dataset sizes and element type of the fdtd-2d kernel
 * (polyc kernel suite).
 *
 * 2-D finite-difference time-domain (Yee) electromagnetic update.
 *
 * Choose a dataset with -DMINI_DATASET .. -DEXTRALARGE_DATASET (LARGE when
 * none is given); any size can also be set on its own, e.g. -DNY=64.
 * The element type is double unless -DDATA_TYPE_IS_INT, -DDATA_TYPE_IS_FLOAT
 * or -DDATA_TYPE_IS_DOUBLE is given.
 */
#ifndef SUITE_FDTD_2D_H
# define SUITE_FDTD_2D_H

# if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && \
     !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) && \
     !defined(EXTRALARGE_DATASET)
#  define LARGE_DATASET
# endif

# if defined(MINI_DATASET)
#  ifndef TMAX
#   define TMAX 20
#  endif
#  ifndef NX
#   define NX 20
#  endif
#  ifndef NY
#   define NY 30
#  endif
# elif defined(SMALL_DATASET)
#  ifndef TMAX
#   define TMAX 40
#  endif
#  ifndef NX
#   define NX 60
#  endif
#  ifndef NY
#   define NY 80
#  endif
# elif defined(MEDIUM_DATASET)
#  ifndef TMAX
#   define TMAX 100
#  endif
#  ifndef NX
#   define NX 200
#  endif
#  ifndef NY
#   define NY 240
#  endif
# elif defined(LARGE_DATASET)
#  ifndef TMAX
#   define TMAX 500
#  endif
#  ifndef NX
#   define NX 1000
#  endif
#  ifndef NY
#   define NY 1200
#  endif
# elif defined(EXTRALARGE_DATASET)
#  ifndef TMAX
#   define TMAX 1000
#  endif
#  ifndef NX
#   define NX 2000
#  endif
#  ifndef NY
#   define NY 2600
#  endif
# endif

# define _PB_TMAX POLYBENCH_LOOP_BOUND(TMAX, tmax)
# define _PB_NX POLYBENCH_LOOP_BOUND(NX, nx)
# define _PB_NY POLYBENCH_LOOP_BOUND(NY, ny)

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

#endif /* SUITE_FDTD_2D_H */
