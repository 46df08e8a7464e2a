//! The host's walk over the tiles of a group (thesis §6.2.1, Fig. 6.11, Algorithm 5), printed
//! as C. The C+OpenMP target runs each non-empty tile where the walk finds it; the GPU targets
//! put it in the tile bucket and launch a kernel per wavefront.
//!
//! Tiles of one step (a wavefront, or all tiles when the outer tile dimensions are parallel)
//! may run at the same time; steps run in order. Every candidate tile is checked: a tile that
//! passes Algorithm 5's fullness test is non-empty; any other one runs the emptiness probe
//! (the tile's loops, leaving at the first statement instance).

use std::cell::Cell;
use std::fmt::Write;

use ptile::TileMode;

use rosepolly::model::expr::Expr;

use crate::atomics;
use crate::c::{self, COptions};
use crate::ir::{acc, size, tile, GroupIr, ScopIr, TiledGroup};

/// The most bytes of C a group's tiles in lexicographic order may take (a third copy of the
/// tile's code, besides a step's alone and shared): past it, one thread walks the wavefronts
/// too. The suite's kernels take 1.4-18.3 KB (cholesky the most), but heat-3d and fdtd-2d (23
/// and 24 KB, which run their lines at MEDIUM and threads at LARGE); a random program whose
/// loops isl separated into many pieces (`tests/inputs/hostile/separation-growth.c`) took three
/// of 21.7 KB, its output growing from 234 to 323 KB.
const LEXICOGRAPHIC_MAX_BYTES: usize = 20_000;

/// What the walk does besides finding tiles.
pub struct TileWalk<'a> {
    pub ir: &'a ScopIr,
    pub group: &'a GroupIr,
    pub tiles: &'a TiledGroup,
    /// Run the tiles of a step with OpenMP threads.
    pub openmp: bool,
    /// Code run for every non-empty tile, with `polyc_t<k>`, `polyc_o<k>` and `polyc_full`
    /// defined.
    pub visit: String,
    /// Code run after a step that found tiles.
    pub flush: String,
    /// A label unique in the generated function.
    pub label: String,
    /// The function that reads the trace switch.
    pub trace: &'static str,
    /// Visit no tile once `polyc tune` stops the trial that runs (the C target's
    /// `polyc_tr_late`): a configuration far slower than the best so far is not run to its end.
    pub stoppable: bool,
}

/// The code of [`TileWalk::row_partials`]: before the rows, at the start and end of each, and
/// after them (all empty without partial results).
#[derive(Default)]
struct RowPartials {
    before: String,
    start: String,
    end: String,
    after: String,
}

/// Labels of the emptiness probes, unique in one generated function.
#[derive(Default)]
pub struct Labels(Cell<usize>);

impl Labels {
    /// The next label of SCoP `scop`: `polyc_probed_<scop>_<n>`.
    pub fn next(&self, scop: usize) -> String {
        let n = self.0.get();
        self.0.set(n + 1);
        format!("polyc_probed_{scop}_{n}")
    }
}

/// The declaration of band dimension `k`'s range of points, `polyc_plo<k>` to `polyc_phi<k>`
/// (`TiledGroup::points`), given those of the dimensions before it.
pub fn points_range(k: usize, (lo, hi): &(Expr, Expr)) -> String {
    format!("const long polyc_plo{k} = {lo}, polyc_phi{k} = {hi};")
}

fn origin_decl(k: usize) -> String {
    format!("const long polyc_o{k} = polyc_t{k} * {};", size(k))
}

impl TileWalk<'_> {
    /// The C block that walks the group's tiles.
    pub fn print(&self) -> String {
        let t = self.tiles;
        let n = t.host_dims;
        let mut out = String::from("{\n");
        let w = &mut out;
        // The points' bounding box, which clips the tile ranges (`TiledGroup::ranges`).
        for (k, range) in t.points.iter().enumerate() {
            let _ = writeln!(w, "  {}", points_range(k, range));
            let _ = writeln!(w, "  (void)polyc_plo{k}; (void)polyc_phi{k};");
        }
        // A step's tiles run on several threads only when there are enough of them to share
        // (`polyc_lo`..`polyc_hi`, the outermost tile loop's range): a fork and join per step
        // costs more than a handful of tiles gain.
        let omp = if self.openmp {
            "#pragma omp parallel for if(polyc_hi - polyc_lo + 1 >= polyc_min_parallel()) num_threads(polyc_threads) schedule(dynamic) reduction(+:polyc_tiles)\n"
        } else {
            ""
        };
        if n == 0 {
            let _ = writeln!(w, "  const long polyc_before = polyc_tiles;");
            w.push_str(&indent(&self.tile(&self.label), 2));
            w.push_str(&indent(&self.end_of_step(), 2));
        } else {
            match t.mode {
                TileMode::Parallel if self.openmp => w.push_str(&indent(&self.shared_rows(omp), 2)),
                TileMode::Parallel => w.push_str(&indent(&self.rows(Some(omp), &self.label), 2)),
                TileMode::Sequential => w.push_str(&indent(&self.rows(None, &self.label), 2)),
                TileMode::Wavefront => w.push_str(&indent(&self.wavefronts(), 2)),
            }
        }
        out.push_str("}\n");
        out
    }

    /// The tiles of a group whose outermost tile loop is parallel, shared out among the threads
    /// by the pragma `omp`; where the group runs inside the host's loops, a loop too short to
    /// share (`polyc_min_parallel`, the pragma's `if` clause) runs on this thread without
    /// entering a parallel region: one whose `if` clause fails still calls into the OpenMP
    /// run-time (0.6 us on the AMD EPYC VM), at every iteration of those loops (gramschmidt
    /// MEDIUM as one tile: 1,677 executions of its groups, 6.4 ms against 4.9 without). Not
    /// where the second copy of the rows' code would pass [`LEXICOGRAPHIC_MAX_BYTES`].
    fn shared_rows(&self, omp: &str) -> String {
        let mut w = self.row_range();
        let shared = self.row_loop(Some(omp), &self.label);
        let alone = (!self.group.outer.is_empty())
            .then(|| self.row_loop(Some(""), &format!("{}_alone", self.label)))
            .filter(|alone| alone.len() <= LEXICOGRAPHIC_MAX_BYTES);
        let Some(alone) = alone else {
            w.push_str(&shared);
            return w;
        };
        let _ = writeln!(w, "if (polyc_hi - polyc_lo + 1 < polyc_min_parallel()) {{");
        w.push_str(&indent(&alone, 2));
        let _ = writeln!(w, "}} else {{");
        w.push_str(&indent(&shared, 2));
        let _ = writeln!(w, "}}");
        w
    }

    /// The tiles in lexicographic order, the outermost tile loop shared out among threads
    /// with the pragma `omp` where given (the steps then are the whole loop, else each of its
    /// rows), the emptiness probe jumping to `label`.
    fn rows(&self, omp: Option<&str>, label: &str) -> String {
        let mut w = self.row_range();
        w.push_str(&self.row_loop(omp, label));
        w
    }

    /// `polyc_lo`..`polyc_hi`: the range of the outermost tile loop.
    fn row_range(&self) -> String {
        let (lo, hi) = &self.tiles.ranges[0];
        format!("const long polyc_lo = {lo}, polyc_hi = {hi};\n")
    }

    /// [`TileWalk::rows`] without the range's declaration.
    fn row_loop(&self, omp: Option<&str>, label: &str) -> String {
        let mut w = String::new();
        let rows = self.row_partials();
        if let Some(omp) = omp {
            let _ = writeln!(w, "const long polyc_before = polyc_tiles;");
            w.push_str(&rows.before);
            w.push_str(omp);
        }
        let _ = writeln!(
            w,
            "for (long polyc_t0 = polyc_lo; polyc_t0 <= polyc_hi; polyc_t0++) {{"
        );
        if omp.is_none() {
            let _ = writeln!(w, "  const long polyc_before = polyc_tiles;");
        }
        w.push_str(&indent(&rows.start, 2));
        let _ = writeln!(w, "  {}", origin_decl(0));
        w.push_str(&indent(&self.inner_loops(1, label), 2));
        w.push_str(&indent(&rows.end, 2));
        if omp.is_none() {
            w.push_str(&indent(&self.end_of_step(), 2));
        }
        let _ = writeln!(w, "}}");
        if omp.is_some() {
            w.push_str(&rows.after);
            w.push_str(&self.end_of_step());
        }
        w
    }

    /// How many tile dimensions number the wavefronts (their sum).
    fn wave_dims(&self) -> usize {
        let t = self.tiles;
        t.wave_dims.clamp(2, t.depth).min(t.host_dims)
    }

    /// The wavefront loop over the first `m` tile dimensions. With OpenMP, one team runs all
    /// the steps (thesis §6.2's fork per wavefront cost more than small steps gain): every
    /// thread walks the steps and shares out each step's outermost tile loop; a column of
    /// tiles waits for the two it depends on in the step before ([`unit_sync`]), not for the
    /// whole step at a barrier.
    fn wavefronts(&self) -> String {
        let t = self.tiles;
        let m = self.wave_dims();
        debug_assert!(m >= 2, "a wavefront spans two tile dimensions");
        let team = self.openmp;
        let mut w = String::new();
        for k in 0..m {
            let (lo, hi) = &t.global[k];
            let _ = writeln!(w, "const long polyc_glo{k} = {lo}, polyc_ghi{k} = {hi};");
        }
        let sum = |pre: &str, from: usize| wave_sum(pre, from, m);
        let mut steps = String::new();
        let _ = writeln!(
            steps,
            "for (long polyc_w = {}; polyc_w <= {}; polyc_w++) {{",
            sum("glo", 0),
            sum("ghi", 0)
        );
        let _ = writeln!(steps, "  const long polyc_before = polyc_tiles;");
        let (range, tiles) = self.step_tiles(m, &self.label, team);
        steps.push_str(&indent(&range, 2));
        if team {
            // The step's loop is printed twice (alone, shared), each with its own probe label.
            let (_, shared) = self.step_tiles(m, &format!("{}_shared", self.label), true);
            steps.push_str(&indent(&team_step(&tiles, &shared), 2));
        } else {
            steps.push_str(&indent(&tiles, 2));
            steps.push_str(&indent(&self.end_of_step(), 2));
        }
        let _ = writeln!(steps, "}}");
        if !team {
            w.push_str(&steps);
            return w;
        }
        // The team: the average count of `polyc_t0` values a step holds, over the bounding
        // box of the tile coordinates, against the threads.
        let points: Vec<String> = (0..t.points.len())
            .map(|k| format!("(double)polyc_lmax(0, polyc_phi{k} - polyc_plo{k} + 1)"))
            .collect();
        let _ = writeln!(w, "const double polyc_box = {};", points.join(" * "));
        // `(void)`: where the rows are too long to print twice, only the region's pragma reads
        // the team, and a build without OpenMP warned of an unused variable.
        let _ = writeln!(
            w,
            "const int polyc_team_size = polyc_team((double)(polyc_ghi0 - polyc_glo0 + 1) * (double)(({}) - ({}) + 1), ({}) - ({}) + 1, polyc_box); (void)polyc_team_size;",
            sum("ghi", 1),
            sum("glo", 1),
            sum("ghi", 0),
            sum("glo", 0),
        );
        // On one thread the tiles run in lexicographic order, which a band whose tiles may
        // run by wavefronts allows (no dependence goes back along any tile dimension), and
        // which visits neighbouring tiles one after another where the steps go diagonally:
        // trisolv LARGE 3.9 -> 2.4 ms, gramschmidt MEDIUM 7.0 -> 5.2 ms (one thread, the
        // 2-core Intel Xeon VM). The steps are then the rows of the outermost tile loop.
        let rows = self.rows(None, &format!("{}_rows", self.label));
        let region = |guarded| team_region(&self.tiles.ranges[0], m, &steps, guarded);
        if rows.len() > LEXICOGRAPHIC_MAX_BYTES {
            w.push_str(&region(true));
            return w;
        }
        let _ = writeln!(w, "if (polyc_team_size == 1) {{");
        w.push_str(&indent(&rows, 2));
        let _ = writeln!(w, "}} else {{");
        w.push_str(&indent(&region(false), 2));
        let _ = writeln!(w, "}}");
        w
    }

    /// The tiles of step `polyc_w` of a walk over the first `m` tile dimensions, the emptiness
    /// probe jumping to `label`: the declaration of `polyc_lo`, `polyc_hi` (the outermost tile
    /// loop's range, which decides whether the step's tiles are shared out), and the loops;
    /// each value of that loop waiting for the tiles it depends on where `sync`
    /// ([`unit_sync`]).
    fn step_tiles(&self, m: usize, label: &str, sync: bool) -> (String, String) {
        let inner = self.inner_loops(m, label);
        let t = self.tiles;
        let sum = |pre: &str, from: usize| wave_sum(pre, from, m);
        // t_0 .. t_{m-2} as loops, t_{m-1} = w - (t_0 + ... + t_{m-2}).
        let mut body = String::new();
        let last = m - 1;
        let rest: Vec<String> = (0..last).map(tile).collect();
        let _ = writeln!(
            body,
            "const long {} = polyc_w - ({});",
            tile(last),
            rest.join(" + ")
        );
        let (lo, hi) = &t.ranges[last];
        let _ = writeln!(body, "if ({t} >= {lo} && {t} <= {hi}) {{", t = tile(last));
        let _ = writeln!(body, "  {}", origin_decl(last));
        body.push_str(&indent(&inner, 2));
        let _ = writeln!(body, "}}");
        let mut range = String::new();
        for k in (0..last).rev() {
            let before: Vec<String> = (0..k).map(tile).collect();
            let taken = if before.is_empty() {
                "polyc_w".to_string()
            } else {
                format!("polyc_w - ({})", before.join(" + "))
            };
            let (lo, hi) = &t.ranges[k];
            let (lo, hi) = (
                format!("polyc_lmax({lo}, {taken} - ({}))", sum("ghi", k + 1)),
                format!("polyc_lmin({hi}, {taken} - ({}))", sum("glo", k + 1)),
            );
            body = if k == 0 {
                // The outermost loop keeps OpenMP's canonical form (one variable, a bound).
                range = format!("const long polyc_lo = {lo}, polyc_hi = {hi};\n");
                if sync {
                    body = unit_sync(&body, &sum("glo", 1));
                }
                tile_loop(k, "polyc_lo", "polyc_hi", &body, true)
            } else {
                tile_loop(k, &lo, &hi, &body, false)
            };
        }
        (range, body)
    }

    /// The C target's partial results per row of tiles ([`TiledGroup::partials`]): each value
    /// of `polyc_t0` starts its own at the operator's identity (one that leaves any value as it
    /// is, so a row without an instance changes nothing) and stores it in its row's slot; after
    /// the rows, the accumulator takes them in the rows' order. Whatever the threads, the result
    /// is the same for the same tile sizes.
    fn row_partials(&self) -> RowPartials {
        let mut rows = RowPartials::default();
        let partials = &self.tiles.partials;
        if partials.is_empty() {
            return rows;
        }
        rows.before
            .push_str("const long polyc_rows = polyc_lmax(0, polyc_hi - polyc_lo + 1);\n");
        for p in partials {
            let (acc, slot, elem) = (acc(p.slot), p.slot, &p.update.elem);
            let part = format!("polyc_part{slot}");
            let _ = writeln!(
                rows.before,
                "{elem} *{part} = ({elem} *)polyc_alloc((size_t)polyc_rows * sizeof({elem}));"
            );
            let identity = atomics::host_identity(p.update.op, elem);
            let _ = writeln!(rows.start, "{elem} {acc} = {identity};");
            let _ = writeln!(rows.end, "{part}[polyc_t0 - polyc_lo] = {acc};");
            let slot = Expr::Index {
                array: part.clone(),
                subscripts: vec![Expr::var("polyc_r")],
            };
            let combine = c::host_combine(&self.ir.data, p.stmt, &p.args, p.update.op, &slot);
            let _ = writeln!(
                rows.after,
                "for (long polyc_r = 0; polyc_r < polyc_rows; polyc_r++) {combine}\npolyc_free({part});"
            );
        }
        rows
    }

    /// Sequential loops over tile dimensions `from..host_dims`, around the tile (its probe
    /// jumping to `label`).
    fn inner_loops(&self, from: usize, label: &str) -> String {
        let t = self.tiles;
        let mut body = self.tile(label);
        for k in (from..t.host_dims).rev() {
            let (lo, hi) = &t.ranges[k];
            body = tile_loop(k, &lo.to_string(), &hi.to_string(), &body, false);
        }
        body
    }

    fn end_of_step(&self) -> String {
        format!(
            "if (polyc_tiles > polyc_before) {{\n  polyc_waves++;\n{}}}\n",
            indent(&self.flush, 2)
        )
    }

    /// One candidate tile: fullness, emptiness probe (jumping to `label` when it finds an
    /// instance), then the visit.
    fn tile(&self, label: &str) -> String {
        let mut w = String::from("{\n");
        w.push_str(&self.probe(label));
        let late = if self.stoppable {
            " && !polyc_tr_late"
        } else {
            ""
        };
        let _ = writeln!(w, "  if (polyc_nonempty{late}) {{");
        let _ = writeln!(w, "    polyc_tiles++;");
        let _ = writeln!(w, "{}", indent(&self.trace(), 4).trim_end());
        w.push_str(&indent(&self.visit, 4));
        let _ = writeln!(w, "  }}");
        w.push_str("}\n");
        w
    }

    /// A candidate tile's fullness and emptiness probe (jumping to `label` when it finds an
    /// instance): `polyc_nonempty` says whether the tile holds instances.
    fn probe(&self, label: &str) -> String {
        let t = self.tiles;
        let mut w = String::new();
        // The fullness of a tile the host only partly enumerates is the device's to decide.
        let full = match &t.full_test {
            Some(test) if t.host_dims == t.depth => test.to_string(),
            _ => "0".into(),
        };
        let _ = writeln!(w, "  const int polyc_full = {full};");
        let _ = writeln!(w, "  int polyc_nonempty = polyc_full;");
        let _ = writeln!(w, "  if (!polyc_nonempty) {{");
        let probe = COptions {
            openmp: false,
            index_type: "long".into(),
            indent: 4,
            probe: Some(format!("{{ polyc_nonempty = 1; goto {label}; }}")),
            clauses: "",
        };
        w.push_str(&c::print_k(&self.ir.data, &t.probe, &probe, None));
        let _ = writeln!(w, "  }}");
        let _ = writeln!(w, "  {label}:;");
        w
    }

    /// The `POLYC_TRACE=1` line of a tile.
    fn trace(&self) -> String {
        let t = self.tiles;
        let step = match t.mode {
            _ if t.host_dims == 0 => "0L".to_string(),
            // The wavefront the tile belongs to, also where one thread walks the tiles in
            // lexicographic order (with OpenMP).
            TileMode::Wavefront if !self.openmp => "polyc_w".to_string(),
            TileMode::Wavefront => format!(
                "({})",
                (0..self.wave_dims())
                    .map(tile)
                    .collect::<Vec<_>>()
                    .join(" + ")
            ),
            TileMode::Parallel => "0L".to_string(),
            TileMode::Sequential => tile(0),
        };
        let list = |n: usize| vec!["%ld"; n].join(",");
        let outer: Vec<String> = self
            .group
            .outer
            .iter()
            .map(|x| format!(", (long)({x})"))
            .collect();
        let tiles: Vec<String> = (0..t.host_dims).map(|k| format!(", {}", tile(k))).collect();
        format!(
            "if ({}()) fprintf(stderr, \"polyc-tile: scop={} group={} outer={} step=%ld tile={}\\n\"{}, (long)({step}){});",
            self.trace,
            self.ir.id,
            self.group.index,
            list(self.group.outer.len()),
            list(t.host_dims),
            outer.concat(),
            tiles.concat()
        )
    }
}

/// `polyc_<pre><from> + ... + polyc_<pre><m-1>` (`0` when empty): sums of the walk's global
/// tile bounds.
fn wave_sum(pre: &str, from: usize, m: usize) -> String {
    let v: Vec<String> = (from..m).map(|k| format!("polyc_{pre}{k}")).collect();
    if v.is_empty() {
        "0".into()
    } else {
        v.join(" + ")
    }
}

/// One step of a team's walk (see [`TileWalk::wavefronts`]), `alone` and `shared` the step's
/// outermost tile loop (the same loop, with its own probe label in each). Every thread decides
/// alike from the step's range:
/// - a step of fewer tile values than `polyc_min_parallel` runs on thread 0 alone, and the
///   others go on to the next shared step;
/// - a shared step's loop is an `omp for` without a barrier after it.
///
/// Each value of that loop waits for the ones it depends on ([`unit_sync`]), so no thread waits
/// for a whole step: a free thread runs on past the tiles of a thread whose core another
/// process holds. Whether a step found tiles (the profile's `wavefronts=`) is marked in
/// `polyc_stepped`, counted after the region.
fn team_step(alone: &str, shared: &str) -> String {
    let found = "if (polyc_tiles > polyc_before) __atomic_store_n(&polyc_stepped[polyc_w - polyc_wlo], 1, __ATOMIC_RELAXED);";
    format!(
        "if (polyc_hi - polyc_lo + 1 < polyc_min_parallel()) {{
  if (polyc_thread_num() == 0) {{
{}    {found}
  }}
}} else {{
  #pragma omp for schedule(dynamic) nowait
{}  {found}
}}
",
        indent(alone, 4),
        indent(shared, 2)
    )
}

/// `body`, the tiles of step `polyc_w` at outermost tile coordinate `polyc_t0` (a column of
/// tiles whose other wave coordinates sum to `polyc_w - polyc_t0`, at least `rest_lo`), between
/// a wait for the columns it depends on and the mark that it is done. A band whose tiles run
/// by wavefronts has no dependence that goes back along a tile dimension, so a tile depends
/// only on tiles at or below its coordinates: those of the columns at `polyc_t0 - 1` and at
/// `polyc_t0` in earlier steps. `polyc_col[c]` holds the last step column `polyc_cf + c` has
/// finished: a column that waits for both neighbours' previous step before it runs, and marks
/// its own after, has every tile below it done, and a neighbour outside the walk (below a
/// lower bound of the column or the rest) has none below it either.
fn unit_sync(body: &str, rest_lo: &str) -> String {
    format!(
        "if (polyc_w > polyc_wlo) {{
  if (polyc_t0 > polyc_cf) polyc_wait_step(&polyc_col[polyc_t0 - 1 - polyc_cf], polyc_w - 1);
  if (polyc_w - polyc_t0 > {rest_lo}) polyc_wait_step(&polyc_col[polyc_t0 - polyc_cf], polyc_w - 1);
}}
{body}__atomic_store_n(&polyc_col[polyc_t0 - polyc_cf], polyc_w, __ATOMIC_RELEASE);
"
    )
}

/// The parallel region whose team walks the wavefronts `steps` over the first `m` tile
/// dimensions, the outermost tile coordinate in `range` (`TiledGroup::ranges`): on
/// `polyc_team_size` threads, or on this one alone where `guarded` and the team is 1. Before
/// it, the columns' progress (`polyc_col`, [`unit_sync`]) and the steps' marks; after it, the
/// count of steps that found tiles.
fn team_region(range: &(Expr, Expr), m: usize, steps: &str, guarded: bool) -> String {
    let guard = if guarded {
        " if(polyc_team_size > 1)"
    } else {
        ""
    };
    let (lo, hi) = range;
    let (wlo, whi) = (wave_sum("glo", 0, m), wave_sum("ghi", 0, m));
    format!(
        "const long polyc_wlo = {wlo}, polyc_wn = polyc_lmax(1, ({whi}) - polyc_wlo + 1);
const long polyc_cf = {lo}, polyc_cn = polyc_lmax(1, ({hi}) - polyc_cf + 1);
long *polyc_col = (long *)polyc_alloc((size_t)polyc_cn * sizeof(long));
for (long polyc_c = 0; polyc_c < polyc_cn; polyc_c++) polyc_col[polyc_c] = polyc_wlo - 1;
unsigned char *polyc_stepped = (unsigned char *)polyc_alloc((size_t)polyc_wn);
memset(polyc_stepped, 0, (size_t)polyc_wn);
#pragma omp parallel num_threads(polyc_team_size){guard} reduction(+:polyc_tiles)
{{
{}}}
for (long polyc_s = 0; polyc_s < polyc_wn; polyc_s++) polyc_waves += polyc_stepped[polyc_s];
polyc_free(polyc_col);
polyc_free(polyc_stepped);
",
        indent(steps, 2)
    )
}

/// The opening of a group's code at its call: `{` and the outer-dimension values the call's
/// arguments give.
pub fn group_opening(group: &GroupIr, args: &[rosepolly::model::expr::Expr]) -> String {
    let mut out = String::from("{\n");
    for (x, a) in group.outer.iter().zip(args) {
        let _ = writeln!(out, "  const long {x} = {a}; (void){x};");
    }
    out
}

/// A loop over tile coordinate `k` from `lo` to `hi` (evaluated once, unless `canonical` asks
/// for OpenMP's canonical form), defining the tile's origin, around `body`.
pub fn tile_loop(k: usize, lo: &str, hi: &str, body: &str, canonical: bool) -> String {
    let v = tile(k);
    let head = if canonical {
        format!("for (long {v} = {lo}; {v} <= {hi}; {v}++) {{")
    } else {
        format!("for (long {v} = {lo}, {v}_hi = {hi}; {v} <= {v}_hi; {v}++) {{")
    };
    format!(
        "{head}
  {}
{}}}
",
        origin_decl(k),
        indent(body, 2)
    )
}

/// `text` with every non-empty line indented by `n` spaces, except a line that continues the
/// one before (after a backslash at its end): spaces there would land inside a token or a string
/// of the user's own lines (the untiled path and the fallback print them).
pub fn indent(text: &str, n: usize) -> String {
    let mut continued = false;
    text.lines()
        .map(|l| {
            let line = if l.is_empty() || continued {
                format!("{l}\n")
            } else {
                format!("{:n$}{l}\n", "")
            };
            continued = l.ends_with('\\');
            line
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::indent;

    #[test]
    fn indent_leaves_continued_lines_alone() {
        let text = "a = 12\\\n34;\n\nb = 1;\n";
        assert_eq!(indent(text, 2), "  a = 12\\\n34;\n\n  b = 1;\n");
    }
}
