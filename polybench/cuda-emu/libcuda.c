/* A stand-in for the CUDA driver (libcuda.so) under polyc's CUDA emulator (polyc_cuda_emu.h):
   the calls avelas-rt makes through cudarc to open the device and copy its buckets to device
   memory, with host memory as device memory, as the emulated kernels use. It has one device,
   "polyc CUDA emulator", with an H100's limits. A call it does not define makes cudarc panic
   with the symbol's name: add it here when the run-time starts using it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult; /* 0: CUDA_SUCCESS; 1: CUDA_ERROR_INVALID_VALUE; 2: out of memory */
typedef int CUdevice;
typedef void *CUcontext;
typedef uint64_t CUdeviceptr;

static int context;

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 12080; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  if (ordinal != 0) return 101; /* CUDA_ERROR_INVALID_DEVICE */
  *d = 0;
  return 0;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  if (len < 1) return 1;
  strncpy(name, "polyc CUDA emulator", (size_t)len - 1);
  name[len - 1] = 0;
  return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
  (void)d;
  switch (attribute) {
  case 1: *v = 1024; break;        /* MAX_THREADS_PER_BLOCK */
  case 5: *v = 2147483647; break;  /* MAX_GRID_DIM_X */
  case 6: *v = 65535; break;       /* MAX_GRID_DIM_Y */
  case 8: *v = 48 * 1024; break;   /* MAX_SHARED_MEMORY_PER_BLOCK */
  case 97: *v = 227 * 1024; break; /* MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
  default: *v = 0;
  }
  return 0;
}
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  (void)d;
  *c = &context;
  return 0;
}
CUresult cuCtxSetCurrent(CUcontext c) { return c == &context ? 0 : 1; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes) {
  void *m = malloc(bytes ? bytes : 1);
  if (!m) return 2;
  memset(m, 0xff, bytes);
  *p = (CUdeviceptr)(uintptr_t)m;
  return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return 0;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return 0;
}
