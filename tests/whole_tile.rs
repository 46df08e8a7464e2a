//! Where tiles do not pay, the C target runs the original order (its own lines, or jammed rows),
//! or the whole band as one
//! tile when the tiles' innermost loops suit the vectoriser better than the original's
//! (`codegen/src/inner_loops.rs`, `polyc_tiles_pay`), or the tiles on one thread when that
//! better order strides across rows. These tests pin which suite kernels the
//! comparison picks, so that a change to the measure or to the tiles' loop order that flips a
//! kernel shows here, and run a program that takes the one-tile path against the original; and
//! that a recurrence's points weigh more when threads are weighed (`recurrence_latency`).
//! `tests/tiled_c.rs` runs every kernel with tiles of 10^9, the one-tile path's size.

mod common;

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use polybench::harness::{self, scratch_dir, Build};

/// The `reorder` argument of each SCoP's `polyc_tiles_pay` call in `text` before the tile
/// sizes are known (0: the original's order is as good; 1: the tiles' is better, one tile; 2:
/// better but striding across rows, tiles on one thread; plus 4 where full tiles hold register
/// blocks, 8 more where those are rows; plus 16 where jammed rows run the work as vectors;
/// plus 32 where time tiles pay on one thread).
fn reorder_flags(text: &str) -> Vec<u8> {
    let declared: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("int polyc_reorder = "))
        .collect();
    let mut declared = declared.into_iter();
    text.lines()
        .filter_map(|l| l.split_once("polyc_tiles_pay(polyc_points, polyc_bytes, "))
        .map(|(_, args)| {
            let arg = args.split(", ").nth(1).expect("a reorder argument");
            // Register-blocked SCoPs pass a variable declared just before the call.
            let value = match arg {
                "polyc_reorder" => declared.next().expect("its declaration"),
                v => v,
            };
            value
                .trim_end_matches(';')
                .parse()
                .expect("a reorder value")
        })
        .collect()
}

#[test]
fn the_suite_kernels_whose_original_inner_loops_accumulate_run_the_tiles_order() {
    let work = scratch_dir("whole-tile-suite");
    let build = Build::new("MINI", true);
    let (mut whole, mut tiles) = (Vec::new(), Vec::new());
    let (mut registers, mut rows, mut vectors) = (Vec::new(), Vec::new(), Vec::new());
    let mut time_tiles = Vec::new();
    for k in polybench::kernels() {
        let out = work.join(format!("{}.c", k.name));
        common::polyc_kernel(&k, &build, &["--target", "c"], &out).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        let flags = reorder_flags(&text);
        assert!(!flags.is_empty(), "{}: no cost-model call", k.name);
        match flags.iter().map(|f| f & 3).max() {
            Some(1) => whole.push(k.name.clone()),
            Some(2) => tiles.push(k.name.clone()),
            _ => {}
        }
        if flags.iter().any(|f| f & 4 != 0) {
            registers.push(k.name.clone());
        }
        if flags.iter().any(|f| f & 8 != 0) {
            rows.push(k.name.clone());
        }
        if flags.iter().any(|f| f & 16 != 0) {
            vectors.push(k.name.clone());
        }
        if flags.iter().any(|f| f & 32 != 0) {
            time_tiles.push(k.name.clone());
        }
    }
    whole.sort();
    tiles.sort();
    registers.sort();
    // Their original inner loops accumulate into one element (2mm's `tmp[i][j]` under `k`) or
    // walk columns, where the tiles' do neither. Not picked, for instance: gemm and the
    // stencils (unit-stride inner loops already), atax and syr2k (the tiles' are no better).
    assert_eq!(whole, WHOLE_TILE, "{whole:?}");
    // The tiles' order is better but strides across rows (bicg's `A[c0][c1]`, `c0` innermost;
    // floyd-warshall's column `k`, whose pieces keep the rest of each row apart from
    // `path[i][k]`, which its original inner loop writes at `j = k` and gcc's vector code then
    // cannot run).
    assert_eq!(tiles, TILES, "{tiles:?}");
    // Full tiles with register blocks (`codegen/src/registers.rs`): the tiles run on one thread
    // from 2^22 points, or 2^16 where the blocks are rows that hold all of the work. atax and
    // gemver have row blocks too, but not in every statement of their work: gemver's lines walk
    // columns, and its blocks count as others do (from 2^22 points); atax's walk rows, and its
    // flags are as without the blocks. cholesky and trmm read the array they update at other
    // elements, which their full tiles keep apart. gramschmidt had rows along `i` until its
    // groups' own dependences ordered its tiles (`ptile::intra::cpu_order`): `j` innermost,
    // unit-stride, no chain to block.
    assert_eq!(registers, REGISTERS, "{registers:?}");
    // gesummv's and trisolv's rows were, before their jammed rows ran all their work
    // (`codegen/src/jam.rs`).
    rows.sort();
    assert!(rows.is_empty(), "{rows:?}");
    // Folded jammed rows run the deepest loops' work as vectors (`codegen/src/jam.rs`): tiles
    // then pay only on many threads (`codegen::c::VECTOR_ROWS_THREADS`).
    assert_eq!(vectors, ["nussinov"], "{vectors:?}");
    // Stencils that repeat sweeps in a band of at most four dimensions: their time tiles pay
    // on one thread once the arrays outgrow a third of the cache (`codegen::ir::
    // MAX_TIME_TILE_DEPTH`; heat-3d's band has four, and it lost at every size measured
    // before its rows of 128); adi sets scalars before its time loop
    // (`ptile::locality::repeats_sweeps`).
    time_tiles.sort();
    assert_eq!(
        time_tiles,
        ["fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d"],
        "{time_tiles:?}"
    );
}

const REGISTERS: [&str; 11] = [
    "2mm",
    "3mm",
    "cholesky",
    "correlation",
    "covariance",
    "doitgen",
    "gemm",
    "gemver",
    "syr2k",
    "syrk",
    "trmm",
];

/// 2mm, 3mm and gemver were here before their original order ran the accumulating statements
/// by jammed rows (`codegen/src/jam.rs`, `inner_loops::reorder`).
/// gramschmidt joined when its tiles ran its columns' updates along the rows of `A`
/// (`ptile::intra::cpu_order`, each group's own dependences).
const WHOLE_TILE: [&str; 7] = [
    "correlation",
    "covariance",
    "doitgen",
    "gramschmidt",
    "ludcmp",
    "symm",
    "trmm",
];

/// bicg and mvt were here before their original order ran by jammed rows (`codegen/src/jam.rs`).
const TILES: [&str; 4] = ["cholesky", "deriche", "floyd-warshall", "lu"];

/// bicg and gesummv at MEDIUM (320,000 and 125,000 points): too few for threads. Their tiles
/// ran on one thread before (bicg's order strides across the rows of `A`, gesummv's full tiles
/// hold row blocks); now their jammed original order runs all their work, faster
/// (`codegen/src/jam.rs`), and the dumps equal the original's.
#[test]
fn medium_matrix_vector_kernels_run_their_jammed_rows_not_tiles() {
    let _quiet = quiet();
    for kernel in ["bicg", "gesummv"] {
        let (line, _, _work) =
            common::checked_profile(kernel, "MEDIUM", &[("OMP_NUM_THREADS", "2")]);
        assert!(line.contains("untiled=1 whole_tile=0"), "{kernel}: {line}");
    }
}

/// covariance at SMALL, 400,000 points: too few for tiles, enough for one tile; its dumps equal
/// the original's, and the profile says which path ran. 2mm at SMALL ran as one tile too, until
/// its original order ran its products by jammed rows (0.066 -> 0.040 ms, one thread).
#[test]
fn a_small_covariance_runs_as_one_tile_and_computes_what_the_original_computes() {
    let _quiet = quiet();
    let (line, exe, _work) = common::checked_profile("covariance", "SMALL", &[]);
    assert!(line.contains("untiled=0 whole_tile=1"), "{line}");
    // One tile per group: covariance's SCoP has eight.
    let tiles: usize = line
        .split_once(" tiles=")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .expect("a tile count");
    assert!((1..=8).contains(&tiles), "{line}");
    // POLYC_MIN_POINTS still means the original's lines below it.
    let profile = harness::run(
        &exe,
        &[("POLYC_PROFILE", "1"), ("POLYC_MIN_POINTS", "1000000000")],
    )
    .unwrap();
    assert!(profile.contains("untiled=1 whole_tile=0"), "{profile}");
    let (mm, _, _work) = common::checked_profile("2mm", "SMALL", &[]);
    assert!(mm.contains("untiled=1 whole_tile=0"), "{mm}");
}

/// gemm and doitgen at MEDIUM both hold register blocks and more than 2^22 points, too few for
/// threads. gemm's points lie mostly in full tiles at the default 32 (200, 220 and 240: a
/// share of 0.78), and its tiles run; doitgen's do not (50, 40, 60 and 60: 0.15), and it runs
/// as one tile, as it did before the blocks (1.38 against 1.49 ms in tiles). Both compute what
/// the original computes.
#[test]
fn register_blocks_pay_on_one_thread_only_where_most_points_lie_in_full_tiles() {
    let _quiet = quiet();
    let (gemm, _, _work) = common::checked_profile("gemm", "MEDIUM", &[("OMP_NUM_THREADS", "2")]);
    assert!(gemm.contains("untiled=0 whole_tile=0"), "{gemm}");
    let (doitgen, _, _work) =
        common::checked_profile("doitgen", "MEDIUM", &[("OMP_NUM_THREADS", "2")]);
    assert!(doitgen.contains("untiled=0 whole_tile=1"), "{doitgen}");
    // At sizes that divide its extents (10 and 20), every tile is full: its tiles run.
    let (divided, _, _work) = common::checked_profile(
        "doitgen",
        "MEDIUM",
        &[
            ("OMP_NUM_THREADS", "2"),
            ("POLYC_TILE_SIZES", "10,10,20,20"),
        ],
    );
    assert!(divided.contains("untiled=0 whole_tile=0"), "{divided}");
}

/// trisolv's rows sum (`x[i] -= L[i][j] * x[j]`, `j < i` innermost), each addition waiting for
/// the one before in the original order. Its tiles' register rows ran eight chains at once, on
/// one thread from 2^16 points; its jammed rows do too, reading `L` row after row, and run all
/// its work: at MEDIUM (80,000 points) and SMALL its original order runs, jammed, and computes
/// what the original computes (MEDIUM, one thread, first quartiles of 101 rotated runs:
/// 0.029 ms, tiles 0.047, the original 0.051; LARGE, medians of 21: 2.4, 3.3 and 4.5 ms).
#[test]
fn trisolv_runs_its_jammed_rows() {
    let _quiet = quiet();
    for dataset in ["MEDIUM", "SMALL"] {
        let (line, _, _work) =
            common::checked_profile("trisolv", dataset, &[("OMP_NUM_THREADS", "2")]);
        assert!(line.contains("untiled=1 whole_tile=0"), "{dataset}: {line}");
    }
}

/// The profile line of `kernel` built at `dataset` (its arrays not dumped), run on `threads`
/// OpenMP threads, beside `busy` busy processes.
fn profile_line_on(kernel: &str, dataset: &str, threads: &str, busy: usize) -> String {
    profile_line_with(kernel, dataset, &[], threads, busy)
}

/// [`profile_line_on`] with `defines` (`-DN=...`, sizes other than the dataset's) given to
/// polyc and to gcc.
fn profile_line_with(
    kernel: &str,
    dataset: &str,
    defines: &[&str],
    threads: &str,
    busy: usize,
) -> String {
    let work = scratch_dir(&format!(
        "cost-model-{kernel}-{dataset}{}",
        defines.concat()
    ));
    let k = polybench::kernel(kernel).expect("a bundled kernel");
    let mut build = Build::new(dataset, true);
    build.dump_arrays = false;
    build.cflags.extend(defines.iter().map(|d| d.to_string()));
    let src = work.join(format!("{kernel}.c"));
    let flags: Vec<&str> = ["--target", "c"].iter().chain(defines).copied().collect();
    common::polyc_kernel(&k, &build, &flags, &src).unwrap();
    let exe = work.join(kernel);
    harness::compile(&k, &src, &build, &exe).unwrap();
    let env = [("POLYC_PROFILE", "1"), ("OMP_NUM_THREADS", threads)];
    let out = if busy > 0 {
        let _beside = Busy::start(busy);
        harness::run(&exe, &env)
    } else {
        let _quiet = quiet();
        harness::run(&exe, &env)
    }
    .unwrap();
    out.lines()
        .find(|l| l.starts_with("polyc: scop=0"))
        .expect("a profile line")
        .to_string()
}

/// The profile line of `kernel` built at `dataset`, run on two threads.
fn profile_line(kernel: &str, dataset: &str) -> String {
    profile_line_on(kernel, dataset, "2", 0)
}

/// seidel-2d and jacobi-2d at MEDIUM hold alike numbers of points (16 and 12 million, below
/// the threads' threshold), but each point of seidel-2d waits for the one before
/// (`ptile::locality::recurrence_latency`): it runs 30 times longer, and tiled on two threads.
#[test]
fn a_recurrence_weighs_its_points_when_threads_are_weighed() {
    let seidel = profile_line("seidel-2d", "MEDIUM");
    assert!(seidel.contains("untiled=0 whole_tile=0"), "{seidel}");
    let jacobi = profile_line("jacobi-2d", "MEDIUM");
    assert!(jacobi.contains("untiled=1"), "{jacobi}");
}

/// floyd-warshall at MEDIUM holds 125 million points, enough for threads, but its tiles would
/// start them nine times per `k` (its index-set pieces, each a `parallel for`), about 28,000
/// points per start, where a start and its join cost more than half of those points save
/// (`c::SYNC_POINTS`): its tiles run on one thread (16.5 ms against 42 ms on two threads
/// and the original's 50). The count of starts stops once it shows that (`syncs=`, one past
/// `points / 2^16`). The tiles' order keeps `path[i][k]` apart from the row each vectorised
/// loop writes, which the original's inner loop cannot (`ptile::locality::Inner::Written`).
#[test]
fn threads_start_only_where_each_start_holds_enough_points() {
    let _quiet = quiet();
    let (line, _, _work) =
        common::checked_profile("floyd-warshall", "MEDIUM", &[("OMP_NUM_THREADS", "2")]);
    assert!(line.contains("untiled=0 whole_tile=0 threads=1"), "{line}");
    let syncs: u64 = line
        .split_once(" syncs=")
        .and_then(|(_, rest)| rest.split(' ').next()?.trim().parse().ok())
        .expect("a count of starts");
    // 500 values of `k`, nine pieces each; counting stopped past 125,000,000 / 65,536.
    assert!((1_900..4_500).contains(&syncs), "{line}");
}

/// gramschmidt's tiles run its columns' sums and updates (`R[k][j] += Q[i][k] * A[i][j]`,
/// `A[i][j] -= Q[i][k] * R[k][j]`) with `j` innermost, along the rows of `A`, where its lines
/// walk columns (`ptile::intra::cpu_order`): a problem too small for threads runs them as one
/// tile on one thread, at MEDIUM (23 million points in its bounding boxes) and at SMALL
/// (768,000) alike. On the AMD EPYC VM, medians of 7: MEDIUM 5.0 ms, against 7.6 for the tiles
/// with `i` innermost (row blocks) and 15.7 for the original; SMALL 0.25 ms against its lines'
/// 0.44. Both compute what the original computes.
#[test]
fn gramschmidt_runs_its_columns_along_rows_as_one_tile() {
    let _quiet = quiet();
    for dataset in ["MEDIUM", "SMALL"] {
        let (line, _, _work) =
            common::checked_profile("gramschmidt", dataset, &[("OMP_NUM_THREADS", "2")]);
        assert!(
            line.contains("untiled=0 whole_tile=1 threads=1"),
            "{dataset}: {line}"
        );
    }
}

/// Tests that run a program and read the cost model's choice hold this for reading, tests that
/// start busy loops for writing: one test's busy loops would take another's threads away.
static MACHINE: RwLock<()> = RwLock::new(());

/// The machine without this binary's busy loops, while the guard lives.
fn quiet() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|e| e.into_inner())
}

/// Busy loops that no other test of this binary runs beside (`MACHINE`); dropped, the loops
/// stop before the machine is released.
struct Busy {
    _loops: Vec<BusyLoop>,
    _machine: RwLockWriteGuard<'static, ()>,
}

impl Busy {
    fn start(loops: usize) -> Busy {
        let machine = MACHINE.write().unwrap_or_else(|e| e.into_inner());
        Busy {
            _loops: (0..loops).map(|_| BusyLoop::start()).collect(),
            _machine: machine,
        }
    }
}

/// A process spinning on a core while it lives (`while :; do :; done`).
struct BusyLoop(std::process::Child);

impl BusyLoop {
    fn start() -> BusyLoop {
        let child = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("a busy loop");
        BusyLoop(child)
    }
}

impl Drop for BusyLoop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The `threads=` of a profile line.
fn threads_of(line: &str) -> usize {
    line.split_once(" threads=")
        .and_then(|(_, rest)| rest.split(' ').next()?.trim().parse().ok())
        .expect("a thread count")
}

/// The machine's cores, or None (with the reason printed) where there is only one.
fn several_cores() -> Option<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        println!("skipped: one core, so no thread to take away");
        return None;
    }
    Some(cores)
}

/// A process that keeps a core busy takes a thread away for as long as it stays busy: the
/// readings of the runnable tasks (`polyc_usable_threads`) go on for a while before giving up a
/// thread, so that a task that runs for a moment does not, but one that stays runnable does.
/// floyd-warshall 800 a side holds 512 million points, enough for threads on a quiet machine,
/// but starts them 7,190 times, about 71,000 points a start: beside a busy loop, with as many
/// OpenMP threads as cores, each start's join would wait for the thread that shares its core
/// (`c::BUSY_SYNC_POINTS`), and it starts fewer (other tests' processes may take more).
#[test]
fn a_busy_core_takes_a_thread_away() {
    let Some(cores) = several_cores() else { return };
    let threads = cores.to_string();
    let line = profile_line_with("floyd-warshall", "MEDIUM", &["-DN=800"], &threads, 1);
    assert!(line.contains("untiled=0 whole_tile=0"), "{line}");
    let used = threads_of(&line);
    assert!(
        used < cores,
        "{used} threads of {cores} beside a busy loop: {line}"
    );
}

/// Wavefronts keep all of OpenMP's threads beside a busy process where each start of them
/// holds 2^25 points or more (weighed by the latency, `c::BUSY_SYNC_POINTS`), as parallel loops
/// do: a column of tiles waits only for the columns it depends on (`host::unit_sync`), so the
/// other threads run on while the thread that shares its core waits for it. seidel-2d at MEDIUM
/// (16 million points, each weighing 12), fdtd-2d and cholesky at LARGE (with a barrier after
/// each step, the last two ran on the free threads).
#[test]
fn wavefronts_keep_the_threads_beside_a_busy_core() {
    let Some(cores) = several_cores() else { return };
    let threads = cores.to_string();
    for (kernel, dataset) in [
        ("seidel-2d", "MEDIUM"),
        ("fdtd-2d", "LARGE"),
        ("cholesky", "LARGE"),
    ] {
        let line = profile_line_with(kernel, dataset, &[], &threads, 1);
        assert!(line.contains("untiled=0 whole_tile=0"), "{kernel}: {line}");
        assert_eq!(
            threads_of(&line),
            cores,
            "{kernel} beside a busy loop: {line}"
        );
    }
}

/// Parallel loops that start the threads seldom keep them all beside a busy process
/// (`polyc_busy_threads`): the thread that shares its core runs part of the time and takes
/// fewer of the tiles, handed out one at a time, and the join waits for it once. gemm at LARGE
/// starts them once for 2^30 points (its arrays are not dumped: 10 MB of text).
#[test]
fn a_busy_core_leaves_the_threads_to_parallel_loops_that_start_them_seldom() {
    let Some(cores) = several_cores() else { return };
    let line = profile_line_on("gemm", "LARGE", &cores.to_string(), 1);
    assert!(line.contains("untiled=0 whole_tile=0"), "{line}");
    assert_eq!(threads_of(&line), cores, "beside a busy loop: {line}");
}

/// A program that reads its own affinity mask around a SCoP (a matrix product of small
/// integers, exact in any order of the sums). Its `#define _GNU_SOURCE` must stay above
/// polyc's preamble, which includes `<sched.h>` too (`codegen::splice`, `feature_lines`).
const PLACEMENT_PROGRAM: &str = r#"#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#define N 192
static double A[N][N], B[N][N], C[N][N];
static int cpus(void) {
  cpu_set_t s;
  CPU_ZERO(&s);
  return sched_getaffinity(0, sizeof s, &s) ? -1 : CPU_COUNT(&s);
}
int main(void) {
  int i, j, k;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) {
      A[i][j] = (i + j) % 7;
      B[i][j] = (i * j) % 5;
      C[i][j] = 0;
    }
  const int before = cpus();
#pragma scop
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      for (k = 0; k < N; k++)
        C[i][j] += A[i][k] * B[k][j];
#pragma endscop
  const int after = cpus();
  double sum = 0;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) sum += C[i][j] * (1 + (i + 2 * j) % 3);
  printf("cpus %d %d sum %.0f\n", before, after, sum);
  return 0;
}
"#;

/// A team with one thread per core runs pinned, a thread to a core, and the thread that calls
/// the SCoP gets all of the process's cores back after its tiles (`codegen::placement`: beside
/// a busy process the scheduler otherwise may stack two of the team on one core): the program
/// above sees the same cores before and after its SCoP, and its profile line counts the pinned
/// threads. With more threads than cores, or with `OMP_PROC_BIND` set, none are pinned. The
/// product is checked against the original's in every run.
#[test]
fn a_team_of_one_thread_per_core_runs_pinned_and_gives_the_cores_back() {
    let Some(cores) = several_cores() else { return };
    let work = scratch_dir("placement");
    let src = work.join("placement.c");
    std::fs::write(&src, PLACEMENT_PROGRAM).unwrap();
    let tiled = work.join("placement-polyc.c");
    let (code, err) = common::polyc_to(&src, "c", &tiled);
    assert_eq!(code, 0, "{err}");
    let exe = work.join("placement-polyc");
    common::gcc(&tiled, &exe, &["-fopenmp".into()]);
    let original = work.join("placement");
    common::gcc(&src, &original, &[]);
    let run = |exe: &std::path::Path, env: &[(&str, &str)]| {
        let out = common::succeeded(
            std::process::Command::new(exe)
                .envs(env.iter().copied())
                .output()
                .unwrap(),
        );
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        (text(&out.stdout), text(&out.stderr))
    };
    let (expected, _) = run(&original, &[]);
    let sum = expected.split_once(" sum ").expect("a sum").1;
    let all = cores.to_string();
    let more = (cores + 1).to_string();
    let _quiet = quiet();
    for (threads, bind, pinned) in [
        (&all, None, cores),
        (&more, None, 0),
        (&all, Some("false"), 0),
    ] {
        let mut env = vec![
            ("OMP_NUM_THREADS", threads.as_str()),
            ("POLYC_MIN_POINTS", "0"),
            ("POLYC_PROFILE", "1"),
        ];
        env.extend(bind.map(|b| ("OMP_PROC_BIND", b)));
        let (out, profile) = run(&exe, &env);
        let line = profile
            .lines()
            .find(|l| l.starts_with("polyc: scop=0"))
            .expect("a profile line");
        let setting = format!("{env:?}");
        assert_eq!(threads_of(line).to_string(), *threads, "{setting}: {line}");
        let field = format!("pinned={pinned}");
        assert!(
            line.split_whitespace().any(|f| f == field),
            "{setting}: {line}"
        );
        assert_eq!(out, format!("cpus {cores} {cores} sum {sum}"), "{setting}");
    }
}

/// Where busy cores leave a SCoP one thread, it runs as it would on one thread by the user's
/// choice (`polyc_one_thread`), not its tiles on that thread: adi at MEDIUM runs its tiles on
/// two threads on a quiet machine, and its lines on one (its tiles on one thread lost to its
/// lines beside a busy process at LARGE, 16.3 against 13.5 s, the original 13.8). With a busy
/// loop on every core but one, its profile line shows one thread and the lines.
#[test]
fn a_scop_left_one_thread_runs_as_on_one_thread() {
    let Some(cores) = several_cores() else { return };
    let alone = profile_line_on("adi", "MEDIUM", "1", 0);
    assert!(
        alone.contains("untiled=1 whole_tile=0 threads=1"),
        "{alone}"
    );
    let line = profile_line_on("adi", "MEDIUM", &cores.to_string(), cores - 1);
    assert!(
        line.contains("untiled=1 whole_tile=0 threads=1"),
        "beside {} busy loops: {line}",
        cores - 1
    );
}
