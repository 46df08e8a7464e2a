//! Where the C target's threads run: one OpenMP thread pinned to each CPU of the process while a
//! SCoP's tiles run on as many threads as it has CPUs (`polyc_place`), the calling thread's own
//! CPUs, as they were before, given back after them (`polyc_unplace`).
//!
//! Why: beside another process that keeps a core busy, Linux's scheduler must put three
//! runnable tasks on two cores, and it often left the team's two threads together on one core
//! and the other process alone on the other. The team then ran on one core's time, slower than
//! one thread on the free core (every join waits for the thread that shares it). Pinned, each
//! core holds one of the team's threads and the other process shares a core with one of them:
//! measured on the 2-core AMD EPYC VM beside `while :; do :; done`, LARGE, 5 runs each
//! interleaved, correlation 0.197-0.271 s unpinned against 0.113-0.144 s pinned (quiet: about
//! 0.095 s both ways; `docs/decisions.md`, "One thread per CPU while a team runs").
//!
//! Not done where the user chose the threads' places (`OMP_PROC_BIND`, `OMP_PLACES`,
//! `GOMP_CPU_AFFINITY`, `KMP_AFFINITY` set: `OMP_PROC_BIND=false` turns it off), inside another
//! parallel region, or for a team with fewer or more threads than the process has CPUs: with
//! spare CPUs the scheduler may move a thread off a busy one, which a pin would forbid. Linux
//! only; elsewhere the functions do nothing.

/// The C of `polyc_place` and `polyc_unplace`, part of the C target's run-time support
/// (`c::runtime`). The affinity calls are declared under names of their own bound to glibc's
/// symbols (`__asm__`), since `sched.h` declares them only under `_GNU_SOURCE`, which the
/// user's file may not define before its first include.
pub fn runtime() -> &'static str {
    r#"/* One thread per CPU while a team of as many threads runs (codegen/src/placement.rs). */
#if defined(__linux__) && defined(_OPENMP)
extern int polyc_getaffinity(int pid, size_t bytes, void *mask) __asm__("sched_getaffinity");
extern int polyc_setaffinity(int pid, size_t bytes, const void *mask) __asm__("sched_setaffinity");
#define POLYC_MASK_WORDS (1024 / (8 * (int)sizeof(unsigned long)))
/* The process's CPUs when it first placed threads (its affinity mask), as a mask and a list. */
static unsigned long polyc_cpu_mask[POLYC_MASK_WORDS];
static int polyc_cpu_list[1024];
static int polyc_cpu_n = -1;
/* The team size whose threads are pinned now (0: none). */
static int polyc_pinned = 0;
/* The calling thread's own CPUs before `polyc_place` pinned it, which `polyc_unplace` restores
   (the user's program may have narrowed them itself). */
static unsigned long polyc_caller_mask[POLYC_MASK_WORDS];
/* Whether polyc may place threads (no placement variable set); reads the mask once. */
static int polyc_may_place(void) {
  if (polyc_cpu_n >= 0) return polyc_cpu_n > 0;
  polyc_cpu_n = 0;
  if (getenv("OMP_PROC_BIND") || getenv("OMP_PLACES") || getenv("GOMP_CPU_AFFINITY") || getenv("KMP_AFFINITY")) return 0;
  if (polyc_getaffinity(0, sizeof polyc_cpu_mask, polyc_cpu_mask) != 0) return 0;
  const int bits = 8 * (int)sizeof(unsigned long);
  for (int c = 0; c < POLYC_MASK_WORDS * bits; c++) {
    if (polyc_cpu_mask[c / bits] >> (c % bits) & 1UL) polyc_cpu_list[polyc_cpu_n++] = c;
  }
  return polyc_cpu_n > 0;
}
/* Gives every thread of the last pinned team all of the process's CPUs again. */
static void polyc_unpin_team(void) {
  if (!polyc_pinned) return;
#pragma omp parallel num_threads(polyc_pinned)
  (void)polyc_setaffinity(0, sizeof polyc_cpu_mask, polyc_cpu_mask);
  polyc_pinned = 0;
}
/* Before a SCoP's tiles run on `threads` threads: with one thread per CPU, pins thread k of the
   team to the k-th CPU (OpenMP reuses the same threads for the next teams of that size) and
   returns how many threads it pinned; with any other team, undoes an earlier pin and returns 0. */
static __attribute__((noinline, unused)) int polyc_place(int threads) {
  if (omp_in_parallel() || !polyc_may_place()) return 0;
  if (threads < 2 || threads != polyc_cpu_n) {
    polyc_unpin_team();
    return 0;
  }
  if (polyc_getaffinity(0, sizeof polyc_caller_mask, polyc_caller_mask) != 0) return 0;
  int pinned = 0;
#pragma omp parallel num_threads(threads) reduction(+:pinned)
  {
    const int bits = 8 * (int)sizeof(unsigned long);
    unsigned long one[POLYC_MASK_WORDS] = {0};
    const int c = polyc_cpu_list[omp_get_thread_num()];
    one[c / bits] |= 1UL << (c % bits);
    pinned += polyc_setaffinity(0, sizeof one, one) == 0;
  }
  polyc_pinned = threads;
  return pinned;
}
/* After the tiles, where `polyc_place` pinned `pins` threads: the calling thread (the user's
   code runs on it) gets the CPUs it had before back; the team's other threads stay pinned until
   a team of another size runs. */
static __attribute__((noinline, unused)) void polyc_unplace(int pins) {
  if (pins > 0) (void)polyc_setaffinity(0, sizeof polyc_caller_mask, polyc_caller_mask);
}
#else
static inline __attribute__((unused)) int polyc_place(int threads) { (void)threads; return 0; }
static inline __attribute__((unused)) void polyc_unplace(int pins) { (void)pins; }
#endif
"#
}
