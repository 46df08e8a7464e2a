/* polyc's CUDA emulator: enough of CUDA to build a generated .cu file with g++ and run it on
   the CPU, so that machines without a GPU run the CUDA target's code, not only compile it
   (`polybench::cuda_emu`, which also rewrites the two constructs g++ cannot parse: launches
   `k<<<grid, block, shared>>>(args)` and `extern __shared__` arrays).

   A launch runs its blocks one after another. The threads of a block are fibers on
   one OS thread, each run until it reaches `__syncthreads`, a warp shuffle or its end; a
   barrier lets the block go on once every thread has reached it, a shuffle once the 32 lanes
   of its warp have. No two threads ever run at once, so atomics are plain updates, and a
   program that races still runs the same way every time: set POLYC_EMU_ORDER=reverse to run
   the fibers (and the blocks) in the opposite order, which a race usually notices.

   The emulator is stricter than a GPU where CUDA leaves the behaviour undefined: a barrier
   some threads of the block have exited before, a shuffle with lanes that have exited or are
   elsewhere (at a barrier), a full mask on a warp of fewer than 32 threads, shared memory
   over the limit the kernel opted in to, and copies outside a cudaMalloc'd allocation end the
   program with "polyc-cuda-emu: ..." and exit status 3. Device memory starts as 0xff bytes
   (NaN doubles, -1 integers) and a block's dynamic shared memory as 0xa5 bytes, so that
   reading what nobody wrote shows. What it does not model: warps running in lockstep (code
   that relies on it without a shuffle or barrier is wrong on a GPU anyway), the memory
   model, timing. What it can count instead: with POLYC_EMU_TRACE=1, the 32-byte sectors each
   warp request to the kernels' arrays touches ("The memory trace" below). */
#ifndef POLYC_CUDA_EMU_H
#define POLYC_CUDA_EMU_H
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__
#define __align__(n) __attribute__((aligned(n)))
#define __shared__ static

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x = 1, unsigned y = 1, unsigned z = 1) : x(x), y(y), z(z) {}
};
typedef struct CUstream_st *cudaStream_t;

namespace polyc_emu {

[[noreturn]] inline void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "polyc-cuda-emu: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(3);
}

enum State { RUNNABLE, AT_BARRIER, AT_SHUFFLE, DONE };

/* A switch between fibers. On x86-64, a few instructions that keep the callee-saved registers
   and the floating-point control words on the stack left; elsewhere ucontext, whose
   swapcontext makes a system call per switch (ten times slower where blocks are many), or
   with -DPOLYC_EMU_UCONTEXT. */
#if defined(__x86_64__) && !defined(POLYC_EMU_UCONTEXT)
extern "C" void polyc_emu_switch(void **from, void *to);
asm(R"(
  .text
  .weak polyc_emu_switch
  .type polyc_emu_switch, @function
polyc_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size polyc_emu_switch, .-polyc_emu_switch
)");
struct Context {
  void *sp;
};
#else
struct Context {
  ucontext_t uc;
};
#endif

/* One access to a kernel's array argument, as POLYC_EMU_TRACE=1 records it: the call site in
   the kernel (the instruction), the address and its size, the argument's name. */
struct Access {
  const void *site;
  uintptr_t addr;
  unsigned bytes;
  const char *array;
};

struct Fiber {
  Context ctx;
  State state;
  uint3 idx;
  unsigned linear;
  unsigned long shuffles; /* shuffles done: the lanes of a warp must agree */
  unsigned mask;
  std::vector<Access> log; /* since the warp last synchronised (POLYC_EMU_TRACE=1) */
};

/* Two slots per lane: a lane that has read shuffle k and reached shuffle k+1 writes the other
   slot, while its neighbours may still read shuffle k's. */
struct WarpSlots {
  uint64_t v[2][32];
};

constexpr size_t STACK_BYTES = 512 * 1024;
constexpr unsigned MAX_THREADS = 1024;
constexpr size_t DEFAULT_SHARED = 48 * 1024;
constexpr size_t OPTIN_SHARED = 227 * 1024;

inline Fiber *cur;
inline Context scheduler;
inline std::function<void()> *body;
inline std::vector<Fiber> fibers;
inline std::vector<WarpSlots> warps;
inline std::vector<char *> stacks;
inline uint3 block_idx;
inline dim3 block_dim, grid_dim;
inline std::vector<unsigned char> shared_bytes;
inline unsigned char *dynamic_shared;
inline std::map<const void *, int> optin; /* kernel -> dynamic shared memory it may use */
inline std::map<uintptr_t, size_t> allocations;
inline int last_error;
/* Whether the environment variable `name` is `value`. */
inline bool env_is(const char *name, const char *value) {
  const char *s = getenv(name);
  return s && strcmp(s, value) == 0;
}

/* What ran, printed at exit with POLYC_EMU_STATS=1 (the tests check that shuffles ran). */
inline unsigned long launches, blocks_run, barriers, warp_shuffles;

inline void print_stats() {
  fprintf(stderr, "polyc-cuda-emu: launches=%lu blocks=%lu barriers=%lu shuffles=%lu\n", launches,
          blocks_run, barriers, warp_shuffles);
}
inline const int stats_at_exit = [] {
  if (env_is("POLYC_EMU_STATS", "1")) atexit(print_stats);
  return 0;
}();

inline bool reverse_order() {
  static const bool r = env_is("POLYC_EMU_ORDER", "reverse");
  return r;
}

inline void switch_to(Context *from, Context *to) {
#if defined(__x86_64__) && !defined(POLYC_EMU_UCONTEXT)
  polyc_emu_switch(&from->sp, to->sp);
#else
  swapcontext(&from->uc, &to->uc);
#endif
}

inline void entry() {
  (*body)();
  cur->state = DONE;
  switch_to(&cur->ctx, &scheduler);
  __builtin_unreachable();
}

/* Fiber `f` set to start in `entry` on the stack `stack` .. `stack + bytes`. */
inline void prepare(Fiber &f, char *stack, size_t bytes) {
#if defined(__x86_64__) && !defined(POLYC_EMU_UCONTEXT)
  /* What polyc_emu_switch pops: the control words, six registers, and `entry` to return to,
     which then finds the stack aligned as after a call. */
  uintptr_t top = ((uintptr_t)(stack + bytes)) & ~(uintptr_t)15;
  void **sp = (void **)(top - 16);
  sp[0] = (void *)entry;
  sp -= 7;
  memset(sp, 0, 7 * sizeof(void *));
  uint32_t mxcsr;
  uint16_t fcw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fcw));
  memcpy(sp, &mxcsr, 4);
  memcpy((char *)sp + 4, &fcw, 2);
  f.ctx.sp = sp;
#else
  getcontext(&f.ctx.uc);
  f.ctx.uc.uc_stack.ss_sp = stack;
  f.ctx.uc.uc_stack.ss_size = bytes;
  f.ctx.uc.uc_link = nullptr;
  makecontext(&f.ctx.uc, entry, 0);
#endif
}

/* Back to the scheduler, waiting in `s`. */
inline void wait_in(State s) {
  cur->state = s;
  switch_to(&cur->ctx, &scheduler);
}

/* A stack per fiber, with a guard page below it: an overflow faults instead of corrupting. */
inline char *stack_of(unsigned i) {
  while (stacks.size() <= i) {
    void *p = mmap(nullptr, STACK_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) fail("cannot map a thread's stack");
    mprotect(p, 4096, PROT_NONE);
    stacks.push_back((char *)p);
  }
  return stacks[i];
}

/* The memory trace (POLYC_EMU_TRACE=1): how the warps' accesses to the kernels' array
   arguments would reach a GPU's memory. A warp issues an instruction for its 32 lanes at once;
   here the lanes run one after another, so each lane logs its accesses and, when its warp
   next synchronises (a shuffle, a barrier, the block's end), the k-th execution of an access
   site by each lane is taken as one request of the warp, as lanes in lockstep would issue it.
   A request costs the distinct 32-byte sectors its lanes touch, and uses the distinct bytes
   they touch (lanes reading one address share it): 32 lanes reading consecutive
   doubles make 8 sectors, all of their bytes used; 32 lanes each reading a row of a row-major
   matrix make 32 sectors, a quarter of whose bytes are used. The distinct sectors of a launch
   are what memory would still deliver with a cache as large as the data. Counted: reads,
   writes and atomics on the arguments through [] and *. Not counted: shared memory, the
   run-time's tables (arguments without __restrict__). */
struct Traffic {
  unsigned long launches, requests, sectors, bytes, distinct;
};
inline const char *kernel_name = "";
inline std::map<std::pair<std::string, std::string>, Traffic> traffic;
inline std::unordered_map<std::string, std::unordered_set<uintptr_t>> launch_sectors;

inline bool tracing() {
  static const bool t = env_is("POLYC_EMU_TRACE", "1");
  return t;
}

inline void print_traffic() {
  Traffic all{};
  for (const auto &[key, t] : traffic) {
    fprintf(stderr,
            "polyc-cuda-emu: trace kernel=%s array=%s launches=%lu requests=%lu sectors=%lu bytes=%lu distinct_sectors=%lu\n",
            key.first.c_str(), key.second.c_str(), t.launches, t.requests, t.sectors, t.bytes,
            t.distinct);
    all.requests += t.requests;
    all.sectors += t.sectors;
    all.bytes += t.bytes;
    all.distinct += t.distinct;
  }
  fprintf(stderr,
          "polyc-cuda-emu: trace total requests=%lu sectors=%lu bytes=%lu distinct_sectors=%lu (%.2f sectors per request, %.0f%% of their bytes used)\n",
          all.requests, all.sectors, all.bytes, all.distinct,
          all.requests ? (double)all.sectors / all.requests : 0.0,
          all.sectors ? 100.0 * all.bytes / (32.0 * all.sectors) : 0.0);
}
inline const int traffic_at_exit = [] {
  if (tracing()) atexit(print_traffic);
  return 0;
}();

inline void record(const void *site, const void *p, unsigned bytes, const char *array) {
  cur->log.push_back({site, (uintptr_t)p, bytes, array});
}

/* The requests of the warp of lanes lo..hi-1 since it last synchronised. */
inline void flush_warp(unsigned lo, unsigned hi) {
  struct Request {
    const char *array;
    std::vector<std::pair<uintptr_t, unsigned>> accesses; /* address, bytes */
  };
  std::map<std::pair<const void *, unsigned>, Request> requests; /* (site, k-th execution) */
  for (unsigned i = lo; i < hi; i++) {
    std::unordered_map<const void *, unsigned> executions;
    for (const Access &a : fibers[i].log) {
      Request &r = requests[{a.site, executions[a.site]++}];
      r.array = a.array;
      r.accesses.push_back({a.addr, a.bytes});
    }
    fibers[i].log.clear();
  }
  std::vector<uintptr_t> sectors;
  for (auto &[key, r] : requests) {
    /* Lanes that read one address (a broadcast) use its bytes once. */
    std::sort(r.accesses.begin(), r.accesses.end());
    r.accesses.erase(std::unique(r.accesses.begin(), r.accesses.end()), r.accesses.end());
    sectors.clear();
    unsigned long bytes = 0;
    for (auto [addr, size] : r.accesses) {
      bytes += size;
      for (uintptr_t s = addr / 32; s <= (addr + size - 1) / 32; s++) sectors.push_back(s);
    }
    std::sort(sectors.begin(), sectors.end());
    sectors.erase(std::unique(sectors.begin(), sectors.end()), sectors.end());
    Traffic &t = traffic[{kernel_name, r.array}];
    t.requests++;
    t.sectors += sectors.size();
    t.bytes += bytes;
    launch_sectors[r.array].insert(sectors.begin(), sectors.end());
  }
}

inline void flush_warps(unsigned threads) {
  if (!tracing()) return;
  for (unsigned lo = 0; lo < threads; lo += 32) flush_warp(lo, lo + 32 < threads ? lo + 32 : threads);
}

inline void end_launch() {
  for (auto &[array, sectors] : launch_sectors) {
    Traffic &t = traffic[{kernel_name, array}];
    t.launches++;
    t.distinct += sectors.size();
  }
  launch_sectors.clear();
}

/* A kernel's array argument (`T *__restrict__ name`, as `polybench::cuda_emu` rewrites it):
   a pointer whose [] and * record the access when tracing. Not inlined, so that the return
   address names the access site in the kernel. */
template <class T> struct global_ptr {
  T *p;
  const char *name = "?";
  global_ptr(T *q = nullptr) : p(q) {}
  operator T *() const { return p; }
  template <class I> __attribute__((noinline)) T &operator[](I i) const {
    if (tracing()) record(__builtin_return_address(0), p + i, sizeof(T), name);
    return p[i];
  }
  __attribute__((noinline)) T &operator*() const {
    if (tracing()) record(__builtin_return_address(0), p, sizeof(T), name);
    return *p;
  }
};

/* Let the warps whose live lanes all wait at the same shuffle go on; true if any did. */
inline bool release_shuffles(unsigned threads) {
  bool released = false;
  for (unsigned w = 0; w * 32 < threads; w++) {
    unsigned lo = w * 32, hi = lo + 32 < threads ? lo + 32 : threads;
    unsigned waiting = 0, done = 0;
    for (unsigned i = lo; i < hi; i++) {
      waiting += fibers[i].state == AT_SHUFFLE;
      done += fibers[i].state == DONE;
    }
    if (waiting == 0) continue;
    if (done > 0)
      fail("block (%u,%u,%u): warp %u: %u lanes wait at a __shfl_down_sync whose mask names %u lanes that have exited",
           block_idx.x, block_idx.y, block_idx.z, w, waiting, done);
    if (waiting < hi - lo) continue; /* others still run, or wait at a barrier (deadlock below) */
    for (unsigned i = lo; i < hi; i++) {
      const Fiber &f = fibers[i];
      if (f.mask != 0xffffffffu || hi - lo < 32)
        fail("block (%u,%u,%u): warp %u: a shuffle with mask %#x on a warp of %u threads: the mask must name exactly the lanes present",
             block_idx.x, block_idx.y, block_idx.z, w, f.mask, hi - lo);
      if (f.shuffles != fibers[lo].shuffles)
        fail("block (%u,%u,%u): warp %u: lanes %u and %u wait at different shuffles (their %luth and %luth)",
             block_idx.x, block_idx.y, block_idx.z, w, lo, i, fibers[lo].shuffles + 1, f.shuffles + 1);
    }
    if (tracing()) flush_warp(lo, hi);
    for (unsigned i = lo; i < hi; i++) fibers[i].state = RUNNABLE;
    warp_shuffles++;
    released = true;
  }
  return released;
}

/* Let the block past its barrier once every thread waits there; true if it did. */
inline bool release_barrier(unsigned threads) {
  unsigned at = 0, done = 0;
  for (unsigned i = 0; i < threads; i++) {
    at += fibers[i].state == AT_BARRIER;
    done += fibers[i].state == DONE;
  }
  if (at == 0 || at + done < threads) return false;
  if (done > 0)
    fail("block (%u,%u,%u): %u threads reached __syncthreads after %u others of the block had exited",
         block_idx.x, block_idx.y, block_idx.z, at, done);
  flush_warps(threads);
  for (unsigned i = 0; i < threads; i++) fibers[i].state = RUNNABLE;
  barriers++;
  return true;
}

inline void run_block(unsigned threads) {
  fibers.assign(threads, Fiber{});
  warps.assign((threads + 31) / 32, WarpSlots{});
  for (unsigned i = 0; i < threads; i++) {
    Fiber &f = fibers[i];
    f.state = RUNNABLE;
    f.linear = i;
    f.idx = {i % block_dim.x, (i / block_dim.x) % block_dim.y, i / (block_dim.x * block_dim.y)};
    prepare(f, stack_of(i) + 4096, STACK_BYTES - 4096);
  }
  for (;;) {
    for (unsigned k = 0; k < threads; k++) {
      Fiber &f = fibers[reverse_order() ? threads - 1 - k : k];
      if (f.state != RUNNABLE) continue;
      cur = &f;
      switch_to(&scheduler, &f.ctx);
    }
    unsigned done = 0;
    for (unsigned i = 0; i < threads; i++) done += fibers[i].state == DONE;
    if (done == threads) {
      flush_warps(threads);
      return;
    }
    if (release_shuffles(threads) || release_barrier(threads)) continue;
    unsigned at = 0, shuffling = 0;
    for (unsigned i = 0; i < threads; i++) {
      at += fibers[i].state == AT_BARRIER;
      shuffling += fibers[i].state == AT_SHUFFLE;
    }
    fail("block (%u,%u,%u) cannot go on: %u threads wait at __syncthreads, %u at a shuffle, %u have exited",
         block_idx.x, block_idx.y, block_idx.z, at, shuffling, done);
  }
}

inline void run_grid(const void *kernel, dim3 grid, dim3 block, size_t shared,
                     std::function<void()> run) {
  unsigned long threads = (unsigned long)block.x * block.y * block.z;
  unsigned long blocks = (unsigned long)grid.x * grid.y * grid.z;
  if (threads == 0 || threads > MAX_THREADS || block.z > 64 || blocks == 0 || grid.y > 65535 ||
      grid.z > 65535) {
    last_error = 9; /* cudaErrorInvalidConfiguration */
    return;
  }
  auto limit = optin.find(kernel);
  size_t allowed = limit == optin.end() ? DEFAULT_SHARED
                                        : (size_t)limit->second > DEFAULT_SHARED ? (size_t)limit->second
                                                                                 : DEFAULT_SHARED;
  if (shared > allowed) {
    last_error = 1; /* cudaErrorInvalidValue, as a GPU answers a launch over the limit */
    return;
  }
  launches++;
  body = &run;
  block_dim = block;
  grid_dim = grid;
  shared_bytes.assign(shared + 16, 0);
  dynamic_shared = (unsigned char *)(((uintptr_t)shared_bytes.data() + 15) & ~(uintptr_t)15);
  for (unsigned long b = 0; b < blocks; b++) {
    unsigned long e = reverse_order() ? blocks - 1 - b : b;
    block_idx = {(unsigned)(e % grid.x), (unsigned)(e / grid.x % grid.y),
                 (unsigned)(e / ((unsigned long)grid.x * grid.y))};
    memset(dynamic_shared, 0xa5, shared);
    run_block((unsigned)threads);
    blocks_run++;
  }
}

/* `k<<<grid, block, shared>>>(args)` becomes
   `polyc_emu::launch(k, "k", grid, block, shared)(args)`. */
template <class... P>
inline auto launch(void (*kernel)(P...), const char *name, dim3 grid, dim3 block,
                   size_t shared = 0, cudaStream_t = nullptr) {
  return [=](auto... args) {
    kernel_name = name;
    run_grid((const void *)kernel, grid, block, shared, [&]() { kernel(args...); });
    if (tracing()) end_launch();
  };
}

inline void check_range(const void *p, size_t bytes, const char *what) {
  auto a = allocations.upper_bound((uintptr_t)p);
  if (a != allocations.begin()) {
    --a;
    if ((uintptr_t)p + bytes <= a->first + a->second) return;
  }
  fail("cudaMemcpy: the %zu bytes at %p (%s) lie outside every cudaMalloc'd allocation", bytes, p,
       what);
}

inline double now() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

} // namespace polyc_emu

#define threadIdx (polyc_emu::cur->idx)
#define blockIdx (polyc_emu::block_idx)
#define blockDim (polyc_emu::block_dim)
#define gridDim (polyc_emu::grid_dim)

inline void __syncthreads() { polyc_emu::wait_in(polyc_emu::AT_BARRIER); }

template <class T> inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32) {
  static_assert(sizeof(T) <= 8, "a shuffled value has at most 8 bytes");
  using namespace polyc_emu;
  Fiber *f = cur;
  unsigned lane = f->linear % 32;
  int slot = f->shuffles & 1;
  WarpSlots &w = warps[f->linear / 32];
  memcpy(&w.v[slot][lane], &v, sizeof(T));
  f->mask = mask;
  wait_in(AT_SHUFFLE);
  f->shuffles++;
  T r = v;
  if (lane % width + delta < (unsigned)width) memcpy(&r, &w.v[slot][lane + delta], sizeof(T));
  return r;
}

/* Atomics: no two threads run at once. */
template <class T> inline T polyc_emu_atomic_add(T *p, T v) {
  T old = *p;
  *p = old + v;
  return old;
}
inline double atomicAdd(double *p, double v) { return polyc_emu_atomic_add(p, v); }
inline float atomicAdd(float *p, float v) { return polyc_emu_atomic_add(p, v); }
inline int atomicAdd(int *p, int v) { return polyc_emu_atomic_add(p, v); }
inline unsigned atomicAdd(unsigned *p, unsigned v) { return polyc_emu_atomic_add(p, v); }
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) {
  return polyc_emu_atomic_add(p, v);
}
template <class T> inline T polyc_emu_atomic_cas(T *p, T compare, T v) {
  T old = *p;
  if (old == compare) *p = v;
  return old;
}
inline int atomicCAS(int *p, int c, int v) { return polyc_emu_atomic_cas(p, c, v); }
inline unsigned atomicCAS(unsigned *p, unsigned c, unsigned v) { return polyc_emu_atomic_cas(p, c, v); }
inline unsigned long long atomicCAS(unsigned long long *p, unsigned long long c,
                                    unsigned long long v) {
  return polyc_emu_atomic_cas(p, c, v);
}
inline long long __double_as_longlong(double x) {
  long long r;
  memcpy(&r, &x, 8);
  return r;
}
inline double __longlong_as_double(long long x) {
  double r;
  memcpy(&r, &x, 8);
  return r;
}
inline int __float_as_int(float x) {
  int r;
  memcpy(&r, &x, 4);
  return r;
}
inline float __int_as_float(int x) {
  float r;
  memcpy(&r, &x, 4);
  return r;
}

/* The runtime API the generated host code calls. */
typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
} cudaError_t;
enum cudaMemcpyKind { cudaMemcpyHostToHost, cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost };
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
struct cudaFuncAttributes {
  size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
  int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes;
};
struct polyc_emu_event {
  double at;
};
typedef polyc_emu_event *cudaEvent_t;

inline const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "cudaSuccess";
  case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
  }
  return "cudaErrorUnknown";
}
inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess: return "no error";
  case cudaErrorInvalidValue: return "invalid argument";
  case cudaErrorMemoryAllocation: return "out of memory";
  case cudaErrorInvalidConfiguration: return "invalid configuration argument";
  }
  return "unknown error";
}
inline cudaError_t cudaGetLastError() {
  cudaError_t e = (cudaError_t)polyc_emu::last_error;
  polyc_emu::last_error = 0;
  return e;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  size_t rounded = (bytes + 255) / 256 * 256;
  *p = aligned_alloc(256, rounded ? rounded : 256);
  if (!*p) return cudaErrorMemoryAllocation;
  memset(*p, 0xff, rounded);
  polyc_emu::allocations[(uintptr_t)*p] = bytes;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  if (!polyc_emu::allocations.erase((uintptr_t)p)) return cudaErrorInvalidValue;
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  if (bytes == 0) return cudaSuccess;
  if (kind == cudaMemcpyHostToDevice) polyc_emu::check_range(dst, bytes, "the destination");
  if (kind == cudaMemcpyDeviceToHost) polyc_emu::check_range(src, bytes, "the source");
  memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new polyc_emu_event{0};
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = nullptr) {
  e->at = polyc_emu::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)((b->at - a->at) * 1e3);
  return cudaSuccess;
}
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *a, const void *) {
  memset(a, 0, sizeof *a);
  a->maxThreadsPerBlock = polyc_emu::MAX_THREADS;
  return cudaSuccess;
}
template <class K>
inline cudaError_t cudaFuncSetAttribute(K *kernel, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 ||
      (size_t)value > polyc_emu::OPTIN_SHARED)
    return cudaErrorInvalidValue;
  polyc_emu::optin[(const void *)kernel] = value;
  return cudaSuccess;
}
#endif
