//! C (and C+OpenMP) printing of a recovered loop program.

use std::fmt::Write;

use rosepolly::analysis::reductions::ReductionOp;
use rosepolly::model::ctype::IntType;
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::syntax::{Node, FLOORD, MAX, MIN};

use crate::atomics::Update;
use crate::ir::{acc, hit, KLoop, KNode, ParamData, Private, ScopData};
use crate::names::{unmarked, user};

/// Definitions of the helpers generated expressions call, guarded so that a file may hold
/// several generated regions (and survive being compiled by polyc again).
pub fn helpers() -> String {
    format!(
        "#ifndef POLYC_HELPERS\n#define POLYC_HELPERS\n\
         #define {MIN}(a, b) ((a) < (b) ? (a) : (b))\n\
         #define {MAX}(a, b) ((a) > (b) ? (a) : (b))\n\
         #define {FLOORD}(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))\n\
         #endif\n{IVDEP}"
    )
}

/// The mark before a loop whose iterations no dependence crosses ([`Printer::host_loop`]),
/// in every file, as the scheduled C without tiles marks its loops too.
const IVDEP: &str = r#"/* Before a loop whose iterations no dependence crosses (polyc's schedule says so), for gcc,
   which cannot prove it where statements write arrays polyc made from scalars, and left such
   loops of deriche's tiles scalar. `-DPOLYC_IVDEP=` leaves the loops unmarked. */
#ifndef POLYC_IVDEP
#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__)
#define POLYC_IVDEP _Pragma("GCC ivdep")
#else
#define POLYC_IVDEP
#endif
#endif
"#;

/// Host support of tiled code, once per file: a clock, and integer helpers for the bound
/// arithmetic of tile loops (functions, so that nested bounds do not grow exponentially as
/// nested macros would; callable from CUDA device code too when `cuda`).
pub fn host_support(cuda: bool) -> String {
    let q = if cuda {
        "static inline __host__ __device__"
    } else {
        "static inline"
    };
    format!(
        r#"#ifndef POLYC_HOST_SUPPORT
#define POLYC_HOST_SUPPORT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
{q} long polyc_lmin(long a, long b) {{ return a < b ? a : b; }}
{q} long polyc_lmax(long a, long b) {{ return a > b ? a : b; }}
{q} long polyc_lfloord(long n, long d) {{ return n >= 0 ? n / d : -((-n + d - 1) / d); }}
/* Memory for an array of polyc's own (an expanded scalar, a row's partial results, a
   wavefront's column progress), on a 64-byte boundary (vector loads of rows that straddle
   cache lines ran ludcmp 1.5x slower); exits when there is none. `polyc_free` releases it. */
static inline __attribute__((unused)) void *polyc_alloc(size_t bytes) {{
  unsigned char *raw = (unsigned char *)malloc(bytes + 64 + sizeof(void *));
  if (!raw) {{
    fprintf(stderr, "polyc: cannot allocate %zu bytes for the tiled code's own arrays\n", bytes);
    exit(1);
  }}
  size_t at = ((size_t)(raw + sizeof(void *)) + 63) & ~(size_t)63;
  ((void **)at)[-1] = raw;
  return (void *)at;
}}
static inline __attribute__((unused)) void polyc_free(void *p) {{
  if (p) free(((void **)p)[-1]);
}}
static inline __attribute__((unused)) double polyc_now(void) {{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}}
{mark}#endif
"#,
        mark = if cuda {
            crate::staging::helper(crate::device::Dialect::Cuda)
        } else {
            String::new()
        }
    )
}

/// The run-time configuration of the C+OpenMP target, once per file: tile sizes from
/// `POLYC_TILE_SIZES`, the `POLYC_MIN_POINTS`, `POLYC_PROFILE` and `POLYC_TRACE` settings, as
/// the run-time contract states them (the GPU targets read the same variables through
/// avelas-rt).
pub fn runtime() -> String {
    format!(
        "{}#ifndef POLYC_RUNTIME\n#define POLYC_RUNTIME\n#include <errno.h>\n{}{}{}{}#endif\n",
        host_support(false),
        avelas_contract::c_config::definitions(),
        avelas_contract::c_tuning::definitions(),
        cost_model(),
        crate::placement::runtime()
    )
}

/// On a CPU, a SCoP runs tiled (and on several threads) only when that is expected to pay:
/// with `POLYC_MIN_POINTS` unset, when its points exceed [`COLD_POINTS`] while OpenMP's threads
/// have not yet run in this process (their start-up is paid once, and measured 1 to 6 ms on
/// our 2-core machine: more than a whole MEDIUM gemm), [`WARM_POINTS`] once they have; on one
/// thread, only when the data exceed the last-level cache (tiles then buy locality alone; a third
/// of it for a stencil's time tiles, `polyc_one_thread`), which
/// also holds below the thread thresholds for an original order that steps across array rows
/// (`ptile::locality`). The threads are those of OpenMP less the cores other processes keep
/// busy when the SCoP starts.
pub const COLD_POINTS: i64 = 1 << 25;
/// See [`COLD_POINTS`] (measured: jacobi-1d LARGE, 10^6 points, runs in 0.2 ms untiled and
/// 3 ms tiled on two threads).
pub const WARM_POINTS: i64 = 1 << 22;
/// The fewest points for which a SCoP too small for tiles runs as one tile where its order is
/// better than the original's (`crate::inner_loops`): below, the tile walk's set-up (the
/// emptiness probes, the bounds of partial tiles) costs more than the better order gains.
pub const WHOLE_POINTS: i64 = 1 << 18;
/// The fewest points from which a SCoP whose work runs in register blocks of rows runs its
/// tiles on one thread where threads do not pay (`ir::OriginalOrder::rows`).
pub const ROW_POINTS: i64 = 1 << 16;
/// The fewest points (weighed by the original order's latency) per start of OpenMP's threads
/// for the threads to pay: each `parallel for` or wavefront region of a group ends at a join.
/// Measured on floyd-warshall on the 2-core Intel Xeon VM (its nine index-set pieces per `k`,
/// each a `parallel for` of vectorised points), tiles on two threads against one: N = 700,
/// 54,000 points per start, 78 against 47 ms; N = 1000, 111,000, 153 against 197 ms; LARGE,
/// 870,000, 2.45 against 4.49 s. An empty fork and join of two threads took 1.1-1.3 us there,
/// one over 2 us of work 4.5-4.9 us.
pub const SYNC_POINTS: i64 = 1 << 16;
/// The fewest threads on which tiles pay where folded jammed rows run the original order's
/// deepest loops as vectors (`ir::OriginalOrder::vectorised`, `reorder` + 16): a block runs
/// [`crate::jam::ROWS`] rows' updates at once, and a thread of tiles runs them one at a time,
/// gaining by locality alone (nussinov LARGE on the 2-core VM: its tiles on two threads 1.8 s,
/// its jammed rows on one 0.73 s, its original 4.5 s: a thread of tiles is worth about 1.25
/// of the original's, a block 6).
pub const VECTOR_ROWS_THREADS: i64 = crate::jam::ROWS;
/// The fewest points (weighed by the latency) per start of the threads for a SCoP's tiles to
/// keep all of OpenMP's threads where other processes keep cores busy
/// (`polyc_busy_threads`): a thread that shares its core with another process still runs
/// about half the time, and each start ends at a join that waits for it once. Measured on the
/// 2-core AMD EPYC VM beside a process spinning on a core, LARGE, all threads against the free
/// one (medians of 7): gemm (one start, 2^30 points) 175 against 221 ms; floyd-warshall
/// (25,190 starts of 870,000 points, rounds of 3) 24.6-30.3 against 17.5-18.7 s. Wavefronts
/// follow the same rule since their columns wait for their neighbours alone
/// (`host::unit_sync`): beside a spinning process on the 2-core Intel Xeon VM, LARGE, medians
/// of 3, all threads against the free one, cholesky 0.37 against 0.43 s, heat-3d 1.25 against
/// 1.52, lu 1.30 against 1.55 (with a barrier after each step, all threads had run cholesky
/// 0.52 s and lu 1.47: docs/decisions.md, "Wavefront columns wait for their neighbours").
pub const BUSY_SYNC_POINTS: i64 = 1 << 25;
/// How long, per point of work, a SCoP may watch /proc/loadavg for another process's task to
/// go before it takes threads away (`polyc_usable_threads`): 1% of a nanosecond a point.
pub const WATCH_SHARE: f64 = 1e-11;
/// The longest such watch, seconds.
pub const WATCH_MAX_S: f64 = 0.01;
/// The size of every tile dimension of a SCoP that runs as one tile: the largest size
/// `POLYC_TILE_SIZES` accepts (10^9), larger than any band's extent in practice (an array of
/// that many elements in one dimension holds 8 GB of doubles); a larger band runs as a few
/// tiles, correctly.
pub const WHOLE_TILE: i64 = avelas_contract::config::MAX_TILE_SIZE;

/// The fewest points (of a band's bounding box) a wavefront step must hold on average for its
/// tiles to run on several threads: each step's columns wait for their neighbours
/// (`host::unit_sync`). Measured on ludcmp (2 threads, the steps of its inner band under a
/// sequential loop), when a barrier ended each step: about 1,400 per step at MEDIUM ran
/// 1.1-2.5x slower than one thread, about 7,700 at LARGE 1.7x faster (not measured again).
pub const STEP_POINTS: i64 = 4096;

/// The C of the decision [`COLD_POINTS`] describes: `polyc_tiles_pay(points, bytes, strided,
/// reorder, latency, tuned)`.
fn cost_model() -> String {
    format!(
        r#"#ifdef _OPENMP
#include <omp.h>
#endif
#include <sched.h>
#include <unistd.h>
/* Whether OpenMP's threads have run in this process (their start-up is paid). */
static int polyc_threads_started = 0;
/* The threads tiled code runs on (`num_threads` of its parallel loops). */
static int polyc_threads = 1;
/* Bytes of the last-level cache this CPU uses: Linux's sysfs first (the cache of the highest
   level that cpu0 sees), else sysconf, else 8 MiB. On AMD EPYC glibc's sysconf reports the L3
   of the whole package (64 MiB on our VM, whose core shares 8 MiB), and mvt LARGE's 32 MB were
   judged to fit. */
static inline __attribute__((unused)) long polyc_sysfs_cache_bytes(void) {{
  long best = -1;
  int best_level = 0;
  for (int k = 0; k < 8; k++) {{
    char path[80];
    int level = 0;
    long size = 0;
    char unit = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", k);
    FILE *f = fopen(path, "r");
    if (!f) break;
    if (fscanf(f, "%d", &level) != 1) level = 0;
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", k);
    f = fopen(path, "r");
    if (!f) continue;
    if (fscanf(f, "%ld%c", &size, &unit) < 1) size = 0;
    fclose(f);
    if (unit == 'K') size <<= 10;
    else if (unit == 'M') size <<= 20;
    if (size > 0 && level >= best_level) {{
      best_level = level;
      best = size;
    }}
  }}
  return best;
}}
static inline __attribute__((unused)) double polyc_cache_bytes(void) {{
  static long v = -1;
  if (v < 0) {{
    long c = polyc_sysfs_cache_bytes();
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (c <= 0) c = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (c <= 0) c = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    v = c > 0 ? c : 8L << 20;
  }}
  return (double)v;
}}
/* The fewest tiles a step shares out among the threads (fewer: one thread runs them, as a fork
   and join costs more than a handful of tiles gain). */
static inline __attribute__((unused)) long polyc_min_parallel(void) {{
  return 2L * polyc_threads;
}}
/* The team that runs a group's wavefronts: its threads, or one thread when the steps hold on
   average fewer tiles than `polyc_min_parallel` (`units` tile columns, a bounding box, over
   `waves` steps) or fewer than {STEP_POINTS} points (`points`, the band's bounding box): a
   column of tiles waits for the columns it depends on (`polyc_wait_step`), and a handful of
   tiles or of points per step gains less than the waiting costs. */
static inline __attribute__((unused)) int polyc_team(double units, long waves, double points) {{
  return waves > 0 && units >= (double)polyc_min_parallel() * (double)waves
      && points >= {STEP_POINTS}.0 * (double)waves ? polyc_threads : 1;
}}
/* This thread's number in its team (0 without OpenMP). */
static inline __attribute__((unused)) int polyc_thread_num(void) {{
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}}
/* Waits until the wavefront walk's column of tiles at `column` has finished step `step`
   (`codegen/src/host.rs`, `unit_sync`): a thread whose tile needs another thread's tile waits
   for that one alone, not for the whole step. It spins a little, then yields the core: the
   thread it waits for may be waiting for a core itself. */
static inline __attribute__((unused)) void polyc_wait_step(const long *column, long step) {{
  int spins = 0;
  while (__atomic_load_n(column, __ATOMIC_ACQUIRE) < step) {{
    if (++spins < 128) {{
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }} else {{
      sched_yield();
    }}
  }}
}}
/* OpenMP's threads (1 without OpenMP). */
static inline __attribute__((unused)) int polyc_omp_threads(void) {{
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}}
/* The runnable tasks of /proc/loadavg now (-1 where it cannot be read). */
static inline __attribute__((unused)) int polyc_runnable(void) {{
  double load[3];
  int running = -1, tasks = 0;
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f) return -1;
  if (fscanf(f, "%lf %lf %lf %d/%d", &load[0], &load[1], &load[2], &running, &tasks) != 5) running = -1;
  fclose(f);
  return running;
}}
/* OpenMP's threads, fewer where other processes keep cores busy right now (Linux: the runnable
   tasks of /proc/loadavg, less this one and the threads it may have left spinning): threads
   that wait for a descheduled one at every step run many times slower than one thread. The
   fewest of readings 0.2 ms apart, read again only while the reading would take threads away,
   for at least 0.4 ms and, for `work` points (weighed), up to {WATCH_SHARE:e} s a point, at most
   {WATCH_MAX_S:e} s: tasks that run for a moment are not other processes' work. One reading
   counted the parent that had just started this program (seidel-2d LARGE then ran on one
   thread, twice as long). On the development VM another task stayed runnable after the
   program's set-up (PolyBench's cache flush) for up to 3.7 ms (16 runs of heat-3d LARGE,
   readings until it went: 9 runs saw it, for 0.2-3.7 ms), and three readings over 0.4 ms took
   heat-3d LARGE to one thread in 2 of 8 runs (1.4 s against 0.7 s). On a machine that is busy
   the wait costs at most 1% of the work at 1 ns a point. */
static inline __attribute__((unused)) int polyc_usable_threads(double work) {{
  int threads = polyc_omp_threads();
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads <= 1) return threads;
  const long own = polyc_threads_started ? threads : 1;
  const long spare = (cores > 0 ? cores : threads) - threads;
  int running = polyc_runnable();
  double window = work * {WATCH_SHARE:e};
  if (window < 4e-4) window = 4e-4;
  if (window > {WATCH_MAX_S:e}) window = {WATCH_MAX_S:e};
  const double start = polyc_now();
  while (running - own > spare && polyc_now() - start < window) {{
    const double t = polyc_now();
    while (polyc_now() - t < 2e-4) {{
    }}
    const int again = polyc_runnable();
    if (again >= 0 && again < running) running = again;
  }}
  if (running < 0) return threads;
  long others = running - own;
  if (others < 0) others = 0;
  long free = (cores > 0 ? cores : threads) - others;
  if (free < threads) threads = free < 1 ? 1 : (int)free;
  return threads;
}}
/* The threads for a SCoP of `work` points (weighed) that starts them `syncs` times: the free
   ones (`polyc_usable_threads`), or all of OpenMP's where others keep cores busy and each
   start has {BUSY_SYNC_POINTS} points or more of work. A thread on a shared core runs part of
   the time; its share of the tiles, handed out dynamically, shrinks to what it runs, and the
   join waits for it once per start. Wavefronts too: a column of tiles waits only for the
   columns it depends on (`polyc_wait_step`), so the other threads run on while that thread
   waits for its core. */
static inline __attribute__((unused)) int polyc_busy_threads(double points, int latency, long syncs) {{
  const double work = points * latency;
  const int free = polyc_usable_threads(work);
  const int all = polyc_omp_threads();
  return free < all && work >= {BUSY_SYNC_POINTS}.0 * (double)(syncs > 1 ? syncs : 1) ? all : free;
}}
/* Where tiles do not pay: 0, the original's lines, or where the tiles' order is better and the
   work hides the tile walk's set-up (atax MEDIUM, 0.15 ms, ran 0.04 ms slower as one tile),
   on this thread, 2, the whole band as one tile (`reorder` 1), or 1, the tiles, when their
   order strides across rows (`reorder` 2: one tile would step across all of an array's rows;
   codegen::ir::Reorder). `reorder` + 4: full tiles hold register blocks and most points lie
   in full tiles (`polyc_full_share`), and from {WARM_POINTS} points the tiles pay on this
   thread; + 8 more: the blocks are rows of chains of additions the original runs one after
   another, and they pay from {ROW_POINTS} points. */
static inline __attribute__((unused)) int polyc_untiled_plan(double points, int reorder) {{
  if ((reorder & 8) && points >= {ROW_POINTS}.0) return 1;
  if ((reorder & 4) && points >= {WARM_POINTS}.0) return 1;
  reorder &= 3;
  if (!reorder || points < {WHOLE_POINTS}.0) return 0;
  return reorder == 2 ? 1 : 2;
}}
/* The share of the box `lo`..`hi` (`n` dimensions) that lies in full tiles of sizes `size`,
   tiles aligned at multiples of their sizes: per dimension the whole tiles inside its range,
   multiplied. Register blocks run in full tiles only. */
static inline __attribute__((unused)) double polyc_full_share(int n, const long *lo, const long *hi, const long *size) {{
  double share = 1;
  for (int k = 0; k < n; k++) {{
    const long a = hi[k] + 1, b = -lo[k], t = size[k], extent = hi[k] - lo[k] + 1;
    /* floor(a / t) - ceil(lo / t) */
    const long whole = (a >= 0 ? a / t : -((-a + t - 1) / t)) + (b >= 0 ? b / t : -((-b + t - 1) / t));
    if (extent <= 0 || whole <= 0) return 0;
    share *= (double)whole * (double)size[k] / (double)extent;
  }}
  return share;
}}
/* How a SCoP runs on one thread, the user's (OMP_NUM_THREADS=1) or the one that other
   processes' busy cores leave (`polyc_busy_threads`): the same choice for both. Tiles buy
   locality alone there (from as many points as before the weighing: the latency is a reason
   for threads, not for locality): where the data exceed the last-level cache, or a third of
   it where the SCoP's time tiles pay (`reorder` + 32, codegen::ir::MAX_TIME_TILE_DEPTH): they
   reuse what a step wrote in the steps after it, while the original's lines sweep arrays that
   the cache no longer holds from one step to the next; at any size where those lines are a
   recurrence (`latency` over 1: seidel-2d MEDIUM, 1.3 MB, one thread, medians of 7: tiles
   0.142 s, its lines 0.165, the original 0.166), whose skewed tiles run independent points
   side by side; else the plan without tiles (`untiled`). */
static inline __attribute__((unused)) int polyc_one_thread(double points, double bytes, int reorder, int latency, int untiled) {{
  polyc_threads = 1;
  if (points < {WARM_POINTS}.0) return untiled;
  if (reorder & 32) return latency > 1 || 3 * bytes > polyc_cache_bytes() ? 1 : untiled;
  return bytes > polyc_cache_bytes() ? 1 : untiled;
}}
/* Whether the work is below every threshold, where nothing more is asked: counting the busy
   cores reads /proc/loadavg, and may wait 0.2 ms twice, as much as a small kernel takes
   (syr2k MEDIUM, untiled, lost 0.6 ms to it). */
static inline __attribute__((unused)) int polyc_small(double points, int latency) {{
  return points * latency < {WARM_POINTS}.0;
}}
/* How a SCoP of `points` statement instances over `bytes` of arrays runs, and on how many
   threads (`polyc_threads`): 0, the original's own lines; 1, tiled; 2, as one tile spanning the
   whole band on one thread (`POLYC_WHOLE_TILE`), Pluto's order without tiles. As
   POLYC_MIN_POINTS says, else as the tuning file's entry `tuned` says, else as the cost model
   estimates. `strided`: the original order's innermost loops step across array rows;
   `reorder`: the tiles' innermost loops suit the vectoriser better than the original's
   (codegen/src/inner_loops.rs), so where tiles do not pay the whole band as one tile (1), or
   the tiles on one thread where that order strides across rows (2), still do. `latency`: what
   a point of the original order costs against one that vectorises
   (ptile::locality::recurrence_latency, 1 but for recurrences along the innermost loop); the
   thread thresholds weigh the points by it, since a thread start that costs more than a MEDIUM
   jacobi-2d (12 million points, 4 ms) is little beside a MEDIUM seidel-2d (16 million points
   each waiting for the one before, 137 ms; tiled on two threads, 110 ms). `syncs`: how many
   times the tiles would start the threads (at least that many, where counting stopped early;
   codegen::openmp, `sync_count`). `reorder` + 16: the original order's jammed rows run its
   deepest loops as vectors, and tiles pay only on {VECTOR_ROWS_THREADS} threads or more; + 32: the SCoP
   has time tiles that pay on one thread (`polyc_one_thread`). On one thread, whatever left it one,
   `polyc_one_thread` decides. Not
   inlined: it runs once per SCoP execution, and inlined into the kernel's function it changed
   how gcc laid out the kernel's own loops (gemm MEDIUM, run untiled: 5.5 ms against the
   original's 4.0 ms, 4.0 ms with it apart). */
static __attribute__((noinline, unused)) int polyc_tiles_pay(double points, double bytes, int strided, int reorder, int latency, long syncs, int tuned) {{
  const long min = polyc_min_points();
  if (min >= 0) {{
    polyc_threads = polyc_omp_threads();
    return points >= (double)min;
  }}
  if (tuned >= 0) {{
    if (polyc_tuned_untiled(tuned)) return 0;
    polyc_threads = polyc_busy_threads(points, latency, syncs);
    polyc_threads_started = 1;
    return 1;
  }}
  const int untiled = polyc_untiled_plan(points, reorder);
  const double work = points * latency;
  if (polyc_small(points, latency) || ((reorder & 16) && polyc_omp_threads() < {VECTOR_ROWS_THREADS})) {{
    polyc_threads = 1;
    return untiled;
  }}
  if (polyc_omp_threads() <= 1) return polyc_one_thread(points, bytes, reorder, latency, untiled);
  if (work < (polyc_threads_started ? {WARM_POINTS}.0 : {COLD_POINTS}.0)
      || work < {SYNC_POINTS}.0 * (double)syncs) {{
    /* Too little work to start threads for, or to start them `syncs` times (each start ends
       at a join), but an original order that steps across the rows of arrays larger than the
       cache: tiles on this thread pay for their locality (mvt LARGE, 8 million points: 5x
       faster). */
    polyc_threads = 1;
    return strided && points >= {WARM_POINTS}.0 && bytes > polyc_cache_bytes() ? 1 : untiled;
  }}
  /* Fewer threads where other processes are busy (a snapshot, which can be wrong): the tiled
     schedule still runs, on the free threads, or on all of them for parallel loops that start
     them seldom (`polyc_busy_threads`). */
  polyc_threads = polyc_busy_threads(points, latency, syncs);
  if ((reorder & 16) && polyc_threads < {VECTOR_ROWS_THREADS}) {{
    polyc_threads = 1;
    return untiled;
  }}
  if (polyc_threads <= 1) return polyc_one_thread(points, bytes, reorder, latency, untiled);
  polyc_threads_started = 1;
  return 1;
}}
/* Whether nothing but the cost model decides how SCoPs run: no tuning file entry, no
   `polyc tune` trial, no POLYC_MIN_POINTS, no profile or trace line to print. Read once. */
static inline __attribute__((unused)) int polyc_plain(void) {{
  static int v = -1;
  if (v < 0) {{
    if (polyc_tu_n < 0) polyc_tu_read();
    if (polyc_tr_n < 0) polyc_tr_load();
    v = !polyc_tu_n && !polyc_tr_n && !polyc_profile() && !polyc_trace() && polyc_min_points() < 0;
  }}
  return v;
}}
static __attribute__((constructor, unused)) void polyc_plain_load(void) {{
  (void)polyc_plain();
}}
/* Whether `polyc_tiles_pay` would answer 0 (the original's lines) without asking anything
   more: the test a SCoP makes before any of its own set-up. After PolyBench's flush of the
   caches every line of code runs from memory, and the set-up before the decision (the trials,
   the tuning entry, the tile sizes, the decision's own function) cost jacobi-1d MEDIUM, a 16 us
   kernel, 2 to 3 us (median of 41 runs: 19-20 us against the original's 17; with the lines
   called first, 17). */
static inline __attribute__((unused)) int polyc_surely_untiled(double points, int reorder, int latency) {{
  return polyc_plain() && polyc_small(points, latency) && polyc_untiled_plan(points, reorder) == 0;
}}
"#
    )
}

/// The declarations and allocations of the arrays polyc made from scalars, and their release.
/// They are flat (`ScopData::flat_expanded`): C++ (the CUDA target's host code) has no
/// pointers to rows of run-time length.
pub fn expanded_arrays(data: &ScopData) -> (String, String) {
    let (mut alloc, mut free) = (String::new(), String::new());
    for d in data.expanded() {
        let bytes: Vec<String> = d
            .extents
            .iter()
            .map(|e| {
                format!(
                    "(size_t)(long)({})",
                    e.as_ref().expect("expanded arrays have extents")
                )
            })
            .collect();
        let name = crate::names::user(&d.name);
        let _ = writeln!(
            alloc,
            "{elem} *{name} = ({elem} *)polyc_alloc({} * sizeof({elem}));",
            bytes.join(" * "),
            elem = d.elem
        );
        let _ = writeln!(free, "polyc_free({name});");
    }
    (alloc, free)
}

/// How to print.
#[derive(Debug, Clone)]
pub struct COptions {
    /// Mark the outermost parallel loops `#pragma omp parallel for`.
    pub openmp: bool,
    /// The integer type of generated loop iterators.
    pub index_type: String,
    /// Indentation of the outermost level.
    pub indent: usize,
    /// Print this line instead of every statement instance (the empty-tile probe).
    pub probe: Option<String>,
    /// Clauses after `#pragma omp parallel for` (` num_threads(...)`).
    pub clauses: &'static str,
}

impl Default for COptions {
    fn default() -> Self {
        COptions {
            openmp: true,
            index_type: "int".into(),
            indent: 2,
            probe: None,
            clauses: "",
        }
    }
}

/// What device code prints differently from host C: its statements' memory accesses, the
/// work-items' barrier and points (thesis Fig. 6.12).
pub trait DeviceHooks {
    /// A statement instance, rewritten for device memory.
    fn statement(&self, stmt: usize, e: Expr) -> Expr;
    /// The barrier of a work-group (empty where a work-group has one work-item).
    fn barrier(&self) -> String;
    /// Lines that open the loop over the work-item's thread-bucket entries: its header (which
    /// opens one brace), then declarations of the mapped iterators.
    fn points_open(&self, wave: &Expr, vars: &[String], origins: &[String]) -> Vec<String>;
    /// The guard that lets work-item 0 alone through.
    fn single(&self) -> String;
    /// The value a private partial result of `op` in C type `elem` starts from.
    fn identity(&self, op: ReductionOp, elem: &str) -> &'static str;
    /// The statement that combines `value` into `target` (an lvalue) as `update` does,
    /// atomically.
    fn atomic_update(&self, update: &Update, target: &Expr, value: &str) -> String;
    /// Print loops whose bodies hold barriers entered unconditionally (`Printer::entered_loop`).
    fn entered_barrier_loops(&self) -> bool {
        false
    }
    /// After a pass of lane groups ([`crate::lanes`]): the lanes' combination of `privates`
    /// and the atomic updates of their accumulators (`targets`).
    fn lanes_close(&self, privates: &[Private], targets: &[Expr]) -> Vec<String>;
}

/// One statement instance: the statement's expression with its iterators replaced by `args`
/// (expressions computed in `long`). Where that would change what the statement computes, the values are
/// converted back to the iterators' C types, and on a device (where parameters are `long`
/// too) the parameters' as well.
pub fn statement_instance(scop: &ScopData, stmt: usize, args: &[Expr], device: bool) -> Expr {
    let st = &scop.statements[stmt];
    let cast_params = device && st.casts.iterators_and_params;
    let cast_iters = st.casts.iterators || cast_params;
    let cast = |ty: IntType, e: Expr| Expr::Cast {
        ty: ty.spelling().into(),
        expr: Box::new(e),
    };
    st.body.map(&mut |e| match e {
        Expr::Var(name) => {
            if let Some(k) = st.iterators.iter().position(|i| *i == name) {
                // An iterator's value over the parameters (`m - 7` in a peeled instance) is
                // computed in `long` like every control expression (`-m` of an unsigned `m`
                // would wrap); device code has its parameters in `long` already.
                let a = if device {
                    args[k].clone()
                } else {
                    host_control(&scop.params, &args[k])
                };
                return if cast_iters {
                    cast(st.iterator_types[k], a)
                } else {
                    a
                };
            }
            let v = Expr::Var(user(&name));
            match scop.params.iter().position(|p| p.name == name) {
                Some(p) if cast_params => cast(scop.params[p].ty, v),
                _ => v,
            }
        }
        Expr::Index { array, subscripts } => Expr::Index {
            array: user(&array),
            subscripts,
        },
        other => other,
    })
}

/// A control expression of host code (a loop bound, a condition): parameters enter `long`
/// arithmetic whatever their C type (`-m` of an `unsigned` m, `2 * n` of an `int` n near its
/// maximum would not compute the model's values otherwise).
pub fn host_control(params: &[ParamData], e: &Expr) -> Expr {
    e.substitute(&|name| {
        let p = param(params, name)?;
        let t = params[p].ty;
        let v = Expr::var(user(unmarked(name)));
        Some(if t.signed && t.bits == 64 {
            v
        } else {
            Expr::Cast {
                ty: "long".into(),
                expr: Box::new(v),
            }
        })
    })
}

/// Definitions of the parameters a SCoP derives from others with a C conversion
/// ([`rosepolly::model::Derived`]): C computes the conversion itself.
pub fn derived_params(scop: &rosepolly::model::Scop) -> String {
    let params = ParamData::of(scop);
    scop.derived
        .iter()
        .map(|d| {
            let v = host_control(&params, &rosepolly::syntax::from_affine(&d.value));
            format!("  const long {} = ({})({v});\n", d.name, d.ty.spelling())
        })
        .collect()
}

/// A control expression of device code, where the parameters are `long` already.
fn device_control(params: &[ParamData], e: &Expr) -> Expr {
    e.substitute(&|name| param(params, name).map(|_| Expr::var(user(unmarked(name)))))
}

/// The parameter a name of recovered code is: a parameter whose name has polyc's prefix is
/// marked there (see [`crate::names`]), a generated name is not.
fn param(params: &[ParamData], name: &str) -> Option<usize> {
    let p = params.iter().position(|p| p.name == unmarked(name))?;
    (user(&params[p].name) == name).then_some(p)
}

/// `for (ty var = init; cond; var++) {` (or `var += step`).
pub fn loop_header(ty: &str, var: &str, init: &Expr, cond: &Expr, step: i64) -> String {
    let step = loop_step(var, step);
    format!("for ({ty} {var} = {init}; {cond}; {step}) {{")
}

fn loop_step(var: &str, step: i64) -> String {
    if step == 1 {
        format!("{var}++")
    } else {
        format!("{var} += {step}")
    }
}

/// Print a recovered loop program.
pub fn print(scop: &ScopData, program: &Node, opts: &COptions) -> String {
    print_k(scop, &KNode::from_syntax(program), opts, None)
}

/// Print a statement tree; `device` for device code.
pub fn print_k(
    scop: &ScopData,
    program: &KNode,
    opts: &COptions,
    device: Option<&dyn DeviceHooks>,
) -> String {
    let mut p = Printer {
        scop,
        opts,
        device,
        call: None,
        out: String::new(),
    };
    p.node(program, opts.indent, false);
    p.out
}

/// Print a loop tree whose statement instances are calls `call(stmt, args)` returns the code
/// of (the host's outer loops, whose "statements" are groups).
pub fn print_calls(
    scop: &ScopData,
    program: &Node,
    opts: &COptions,
    call: &dyn Fn(usize, &[Expr]) -> String,
) -> String {
    let mut p = Printer {
        scop,
        opts,
        device: None,
        call: Some(call),
        out: String::new(),
    };
    p.node(&KNode::from_syntax(program), opts.indent, false);
    p.out
}

/// The code of a call `(stmt, args)` of a host tree.
type CallFn<'a> = &'a dyn Fn(usize, &[Expr]) -> String;

struct Printer<'a> {
    scop: &'a ScopData,
    opts: &'a COptions,
    device: Option<&'a dyn DeviceHooks>,
    call: Option<CallFn<'a>>,
    out: String,
}

impl Printer<'_> {
    fn line(&mut self, indent: usize, text: &str) {
        let _ = writeln!(self.out, "{:indent$}{text}", "");
    }

    /// Device code receives the parameters as `long` already.
    fn control(&self, e: &Expr) -> Expr {
        match self.device {
            Some(_) => device_control(&self.scop.params, e),
            None => host_control(&self.scop.params, e),
        }
    }

    /// A statement instance in device code.
    fn device_instance(&self, stmt: usize, args: &[Expr]) -> Expr {
        let e = statement_instance(self.scop, stmt, args, true);
        self.device().statement(stmt, e)
    }

    /// The element a reduction statement's instance at `args` updates, in device code.
    fn accumulator(&self, stmt: usize, args: &[Expr]) -> Expr {
        device_accumulator(self.scop, self.device(), stmt, args)
    }

    fn device(&self) -> &dyn DeviceHooks {
        self.device
            .expect("work-item constructs are only lowered for device code")
    }

    /// Whether a loop that no dependence crosses, around `body`, is one to mark
    /// `POLYC_IVDEP` ([`helpers`]): host code whose statements it runs itself, with no
    /// loop, register block or partial result inside. Its points are independent by the
    /// schedule (every other loop's value is fixed within it), which gcc cannot tell where
    /// the statements write arrays polyc made from scalars, or scalars it shares with the
    /// program by reference: deriche MEDIUM's tiles ran scalar, 9.3-12.0 ms against the
    /// original's 7.1, and 4.0-5.4 (median 4.2) against its 5.8-6.5 with the mark.
    fn vector_loop(&self, body: &KNode) -> bool {
        self.device.is_none()
            && self.call.is_none()
            && self.opts.probe.is_none()
            && !body.any(&|n| {
                matches!(
                    n,
                    KNode::For(_)
                        | KNode::Reduce { .. }
                        | KNode::Registers(_)
                        | KNode::Jam(_)
                        | KNode::Points { .. }
                        | KNode::Single(_)
                        | KNode::Barrier
                )
            })
    }

    /// A loop: `#pragma omp parallel for` where it is parallel and no enclosing loop is, else
    /// `POLYC_IVDEP` where no dependence crosses its iterations and it runs statements alone
    /// ([`Printer::vector_loop`]). gcc attaches that mark to a condition without branches
    /// only, and ignores it with a warning where the condition holds a `polyc_min` it does
    /// not fold or a `&&` (syrk's and adi's partial tiles): the bound is evaluated once, in
    /// the loop's initialisation, and a loop whose condition is not `var < bound` (or `<=`)
    /// gets no mark.
    fn host_loop(&mut self, l: &KLoop, indent: usize, in_parallel: bool) {
        let parallel = self.opts.openmp && l.parallel && !in_parallel;
        if parallel {
            let pragma = format!("#pragma omp parallel for{}", self.opts.clauses);
            self.line(indent, &pragma);
        }
        let ty = &self.opts.index_type;
        let init = self.control(&l.init);
        let marked = !parallel && l.parallel && self.vector_loop(&l.body);
        let head = match crate::jam::bound(l).filter(|_| marked) {
            Some((op, end)) => {
                self.line(indent, "POLYC_IVDEP");
                let (var, end, op) = (&l.var, self.control(end), op.symbol());
                let step = loop_step(var, l.step);
                format!(
                    "for ({ty} {var} = {init}, polyc_end = {end}; {var} {op} polyc_end; {step}) {{"
                )
            }
            None => loop_header(ty, &l.var, &init, &self.control(&l.cond), l.step),
        };
        self.line(indent, &head);
        self.node(&l.body, indent + 2, in_parallel || parallel);
        self.line(indent, "}");
    }

    /// `in_parallel`: an enclosing loop is already parallel.
    fn node(&mut self, n: &KNode, indent: usize, in_parallel: bool) {
        match n {
            KNode::Block(children) => children
                .iter()
                .for_each(|c| self.node(c, indent, in_parallel)),
            KNode::Stmt { stmt, args } => match &self.opts.probe {
                _ if self.call.is_some() => {
                    // A group's outer values (`-m` of an unsigned `m`) are control expressions.
                    let args: Vec<Expr> = args.iter().map(|a| self.control(a)).collect();
                    let text = (self.call.expect("checked"))(*stmt, &args);
                    for l in text.lines() {
                        self.line(indent, l);
                    }
                }
                Some(text) => self.line(indent, text),
                None => {
                    let mut e = statement_instance(self.scop, *stmt, args, self.device.is_some());
                    if let Some(d) = self.device {
                        e = d.statement(*stmt, e);
                    }
                    self.line(indent, &format!("{e};"));
                }
            },
            KNode::If { cond, then, other } => {
                let cond = self.control(cond);
                self.line(indent, &format!("if ({cond}) {{"));
                self.node(then, indent + 2, in_parallel);
                if let Some(o) = other {
                    self.line(indent, "} else {");
                    self.node(o, indent + 2, in_parallel);
                }
                self.line(indent, "}");
            }
            KNode::For(l)
                if self.device.is_some_and(|d| d.entered_barrier_loops())
                    && l.body.any(&|n| *n == KNode::Barrier) =>
            {
                self.entered_loop(l, indent, in_parallel)
            }
            KNode::For(l) => self.host_loop(l, indent, in_parallel),
            KNode::Barrier => {
                let b = self.device().barrier();
                if !b.is_empty() {
                    self.line(indent, &b);
                }
            }
            KNode::Points {
                wave,
                vars,
                origins,
                privates,
                lanes,
                body,
            } if *lanes > 0 => self.lane_points(wave, vars, origins, privates, body, indent),
            KNode::Points {
                wave,
                vars,
                origins,
                privates,
                body,
                ..
            } => {
                let lines = self.device().points_open(wave, vars, origins);
                let (open, decls) = lines.split_first().expect("a loop header");
                self.line(indent, open);
                for l in decls {
                    self.line(indent + 2, l);
                }
                self.partial_results(privates, indent + 2);
                self.node(body, indent + 2, in_parallel);
                for p in privates {
                    let target = self.accumulator(p.stmt, &p.args);
                    let update = self
                        .device()
                        .atomic_update(&p.update, &target, &acc(p.slot));
                    self.line(indent + 2, &format!("if ({}) {update}", hit(p.slot)));
                }
                self.line(indent, "}");
            }
            KNode::Reduce { stmt, args, slot } => {
                // Host code: a row of tiles' partial result (`crate::host`'s walk), which needs
                // no flag: it starts from an identity that leaves every value as it is.
                let e = match self.device {
                    Some(_) => self.device_instance(*stmt, args),
                    None => statement_instance(self.scop, *stmt, args, false),
                };
                let target = assigned(&e).clone();
                let private = Expr::var(acc(*slot));
                let e = e.map(&mut |x| if x == target { private.clone() } else { x });
                match self.device {
                    Some(_) => self.line(indent, &format!("{e}; {} = 1;", hit(*slot))),
                    None => self.line(indent, &format!("{e};")),
                }
            }
            KNode::Registers(tile) => {
                for l in tile.lines(self.scop, &self.opts.index_type) {
                    self.line(indent, &l);
                }
            }
            KNode::Jam(jam) => {
                for l in jam.lines(self.scop, &self.opts.index_type) {
                    self.line(indent, &l);
                }
            }
            KNode::Single(body) => {
                let s = self.device().single();
                self.line(indent, &format!("if ({s}) {{"));
                self.node(body, indent + 2, in_parallel);
                self.line(indent, "}");
            }
        }
    }

    /// A work-item's partial results of `privates`, each from its operator's identity, and
    /// their flags.
    fn partial_results(&mut self, privates: &[Private], indent: usize) {
        for p in privates {
            let (acc, hit) = (acc(p.slot), hit(p.slot));
            let start = self.device().identity(p.update.op, &p.update.elem);
            self.line(
                indent,
                &format!("{} {acc} = {start}; int {hit} = 0;", p.update.elem),
            );
        }
    }

    /// Points that lane groups share ([`crate::lanes`]): every work-item makes the same
    /// passes over the entries (a loop entered unconditionally, as [`Printer::entered_loop`]'s),
    /// runs its entry's lane where it has one, and takes part in the combination regardless.
    fn lane_points(
        &mut self,
        wave: &Expr,
        vars: &[String],
        origins: &[String],
        privates: &[Private],
        body: &KNode,
        indent: usize,
    ) {
        self.line(indent, "{");
        self.line(
            indent + 2,
            &format!("long polyc_r0 = polyc_th_off[{wave}];"),
        );
        self.line(indent + 2, "do {");
        for l in crate::lanes::head(wave, vars, origins) {
            self.line(indent + 4, &l);
        }
        self.partial_results(privates, indent + 4);
        self.line(indent + 4, "if (polyc_in) {");
        self.node(body, indent + 6, false);
        self.line(indent + 4, "}");
        let targets: Vec<Expr> = privates
            .iter()
            .map(|p| self.accumulator(p.stmt, &p.args))
            .collect();
        for l in self.device().lanes_close(privates, &targets) {
            self.line(indent + 4, &l);
        }
        self.line(indent + 4, "polyc_r0 += polyc_wg;");
        self.line(
            indent + 2,
            &format!("}} while (polyc_r0 < polyc_th_off[{wave} + 1]);"),
        );
        self.line(indent, "}");
    }

    /// A uniform loop with barriers, entered unconditionally: every pass evaluates the loop's
    /// condition into `polyc_in_<var>`, runs the body's work under it and its barriers
    /// regardless, and the loop ends after the first pass where the condition fails (one
    /// barrier more than the loop needs). PoCL's work-group compiler replicates the rest of
    /// the kernel behind every barrier it cannot prove all work-items reach, and a loop that
    /// may run no iteration is such a barrier: its build time doubled with every loop in a
    /// row (12 loops of differential seed 4850 took over 100 s, 0.7 s in this form).
    fn entered_loop(&mut self, l: &KLoop, indent: usize, in_parallel: bool) {
        let go = format!("polyc_in_{}", l.var);
        let ty = &self.opts.index_type;
        let (init, cond) = (self.control(&l.init), self.control(&l.cond));
        self.line(indent, "{");
        self.line(indent + 2, &format!("{ty} {} = {init};", l.var));
        self.line(indent + 2, &format!("int {go};"));
        self.line(indent + 2, "do {");
        self.line(indent + 4, &format!("{go} = {cond};"));
        let guard = Expr::var(&go);
        for child in top_level(&l.body) {
            let guarded = match child {
                KNode::Barrier => KNode::Barrier,
                // Folded into the inner loop's condition: a barrier loop stays unconditional.
                KNode::For(inner) => KNode::For(KLoop {
                    cond: Expr::binary(BinaryOp::And, guard.clone(), inner.cond.clone()),
                    ..inner.clone()
                }),
                work => KNode::If {
                    cond: guard.clone(),
                    then: Box::new(work.clone()),
                    other: None,
                },
            };
            self.node(&guarded, indent + 4, in_parallel);
        }
        self.line(indent + 4, &format!("{} += {};", l.var, l.step));
        self.line(indent + 2, &format!("}} while ({go});"));
        self.line(indent, "}");
    }
}

/// The host C statement that combines `part` (a partial result of reduction statement
/// `stmt` under `op`, its instance at `args`) into the accumulator: `acc = acc op part` for
/// sums, products and the bitwise operators (a `-=` accumulates its negated operands); for
/// `min` and `max` the statement itself with `part` for its operand, so that ties between
/// `-0.0` and `+0.0` and `fmax`'s handling of NaN go the way the statement takes them.
pub fn host_combine(
    scop: &ScopData,
    stmt: usize,
    args: &[Expr],
    op: ReductionOp,
    part: &Expr,
) -> String {
    let instance = statement_instance(scop, stmt, args, false);
    let target = assigned(&instance).clone();
    let own = match op {
        ReductionOp::Min | ReductionOp::Max => rosepolly::analysis::reductions::operand(&instance)
            .cloned()
            .map(|e| instance.map(&mut |x| if x == e { part.clone() } else { x })),
        _ => None,
    };
    match own {
        Some(statement) => format!("{statement};"),
        None => format!(
            "{target} = {};",
            crate::atomics::arithmetic(op, &target.to_string(), &part.to_string())
        ),
    }
}

/// The element reduction statement `stmt`'s instance at `args` updates, in device code.
pub fn device_accumulator(
    scop: &ScopData,
    device: &dyn DeviceHooks,
    stmt: usize,
    args: &[Expr],
) -> Expr {
    let e = statement_instance(scop, stmt, args, true);
    assigned(&device.statement(stmt, e)).clone()
}

/// What an assignment assigns to (a reduction statement is one, [`KNode::Reduce`]; so is a
/// register tile's, [`KNode::Registers`]).
pub(crate) fn assigned(e: &Expr) -> &Expr {
    match e {
        Expr::Assign { lhs, .. } => lhs,
        _ => panic!("a reduction statement is an assignment"),
    }
}

/// The children of a block, nested blocks flattened; another node alone.
fn top_level(n: &KNode) -> Vec<&KNode> {
    match n {
        KNode::Block(v) => v.iter().flat_map(top_level).collect(),
        other => vec![other],
    }
}
