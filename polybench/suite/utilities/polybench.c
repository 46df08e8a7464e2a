/*
 * polybench.c - run-time support of the polyc kernel suite: aligned
 * allocation, a wall-clock timer and an optional cache flush before timing.
 *
 * Written for polyc; it provides the functions that the PolyBench/C 4.2.1
 * interface (see polybench.h) expects.
 */
#define _POSIX_C_SOURCE 200112L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polybench.h"

/* Alignment of every array handed out by polybench_alloc_data. */
#define SUITE_ALLOC_ALIGNMENT 4096

double polybench_t_start;
double polybench_t_end;

/* Written by polybench_flush_cache so the traversal is not optimised away. */
volatile double polybench_flush_sink;

static double suite_now(void)
{
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
    return 0.0;
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1.0e-9;
}

void polybench_flush_cache(void)
{
#ifndef POLYBENCH_NO_FLUSH_CACHE
  /* Walk a buffer larger than the last-level cache so the kernel starts
     from a cold cache, as the reference harness does. */
  size_t count = (size_t)POLYBENCH_CACHE_SIZE_KB * 1024 / sizeof(double);
  double* buffer = (double*)calloc(count, sizeof(double));
  double acc = 0.0;
  size_t k;
  if (buffer == NULL)
    return;
  for (k = 0; k < count; k++)
    acc += buffer[k];
  polybench_flush_sink = acc;
  free(buffer);
#endif
}

void polybench_prepare_instruments(void)
{
  polybench_flush_cache();
}

void polybench_timer_start(void)
{
  polybench_prepare_instruments();
  polybench_t_start = suite_now();
}

void polybench_timer_stop(void)
{
  polybench_t_end = suite_now();
}

/* Seconds with microseconds' digits, as PolyBench prints them; nanoseconds'
   with POLYBENCH_TIME_NANOSECONDS (polyc bench: kernels at MEDIUM that take
   15 us would otherwise differ by whole 7% steps). */
void polybench_timer_print(void)
{
#ifdef POLYBENCH_TIME_NANOSECONDS
  printf("%0.9f\n", polybench_t_end - polybench_t_start);
#else
  printf("%0.6f\n", polybench_t_end - polybench_t_start);
#endif
}

void* polybench_alloc_data(unsigned long long int n, int elt_size)
{
  unsigned long long int bytes = n * (unsigned long long int)elt_size;
  void* block = NULL;
  if (elt_size <= 0 || (n != 0 && bytes / n != (unsigned long long int)elt_size)
      || bytes > (unsigned long long int)(size_t)-1) {
    fprintf(stderr, "[polybench] cannot allocate %llu elements of %d bytes\n",
            n, elt_size);
    exit(1);
  }
  if (bytes == 0)
    bytes = 1;
  if (posix_memalign(&block, SUITE_ALLOC_ALIGNMENT, (size_t)bytes) != 0
      || block == NULL) {
    fprintf(stderr, "[polybench] out of memory: %llu bytes requested\n", bytes);
    exit(1);
  }
  return block;
}

void polybench_free_data(void* ptr)
{
  free(ptr);
}
