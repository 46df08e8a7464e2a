/* Just enough of CUDA for clang to check polyc's generated .cu files without the CUDA
   toolkit (force-included with -include): the execution-space attributes, the built-in
   variables, and declarations of the runtime API calls and device math functions the
   generated code uses. Device code compiles to PTX; host code is only syntax-checked. */
#ifndef POLYC_CUDA_STUB_H
#define POLYC_CUDA_STUB_H
#include <stddef.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#include "__clang_cuda_builtin_vars.h"

struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef enum cudaError { cudaSuccess = 0 } cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };

extern "C" {
cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaGetLastError(void);
cudaError_t cudaDeviceSynchronize(void);
const char *cudaGetErrorName(cudaError_t e);
const char *cudaGetErrorString(cudaError_t e);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
int cudaConfigureCall(dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared = 0, void *stream = 0);
}
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
template <class T> cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value);
struct cudaFuncAttributes { int maxThreadsPerBlock; int numRegs; };
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);

/* Atomics (reductions across tiles). */
__device__ double atomicAdd(double *address, double value);
__device__ float atomicAdd(float *address, float value);
__device__ int atomicAdd(int *address, int value);
__device__ unsigned long long atomicAdd(unsigned long long *address, unsigned long long value);
__device__ unsigned long long atomicCAS(unsigned long long *address, unsigned long long compare,
                                        unsigned long long value);
__device__ unsigned int atomicCAS(unsigned int *address, unsigned int compare, unsigned int value);
// Warp shuffles (lane groups' combination, `codegen::lanes`), as the CUDA headers declare them.
__device__ double __shfl_down_sync(unsigned mask, double var, unsigned delta, int width = 32);
__device__ float __shfl_down_sync(unsigned mask, float var, unsigned delta, int width = 32);
__device__ int __shfl_down_sync(unsigned mask, int var, unsigned delta, int width = 32);
__device__ long __shfl_down_sync(unsigned mask, long var, unsigned delta, int width = 32);
__device__ long long __shfl_down_sync(unsigned mask, long long var, unsigned delta, int width = 32);
__device__ long long __double_as_longlong(double x);
__device__ float __int_as_float(int x);
__device__ double __longlong_as_double(long long x);

/* Device math (the host's come from <math.h>; clang overloads on the execution space). */
__device__ double sqrt(double);
__device__ float sqrtf(float);
__device__ double exp(double);
__device__ float expf(float);
__device__ double pow(double, double);
__device__ float powf(float, float);
__device__ double fabs(double);
__device__ double fmax(double, double);
__device__ double fmin(double, double);
__device__ float fmaxf(float, float);
__device__ float fminf(float, float);
__device__ float fabsf(float);
__device__ double floor(double);
__device__ double ceil(double);
__device__ double log(double);
__device__ double sin(double);
__device__ double cos(double);
#endif
