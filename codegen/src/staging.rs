//! Local-memory buffers in device code (thesis §6.4.2–6.4.3, Algorithms 7 and 8): which
//! candidate buffers ([`ptile::buffers`]) a group's kernels may use, where each array
//! reference of the tile goes, and the code that fills a buffer before the tile runs and
//! copies back what the tile wrote.
//!
//! A group's kernel comes in versions: version `k` stages the `k` best-ranked units of buffers
//! (a buffer, or all classes of a written array read through several), version 0 none; the host's buffer bucket picks one per execution (`gpu_host`). All of a version's
//! buffers live in one block of local memory the launch sizes (OpenCL: a `__local` argument;
//! CUDA: dynamic shared memory), laid out as avelas-rt's buffer bucket counts it
//! ([`avelas_contract::LOCAL_MEM_ALIGN`]): per buffer its elements, then, for a buffer the tile
//! writes, a flag byte per element, each part rounded up to that alignment.
//!
//! Per tile, the work-items of the group copy the buffer's box in (neighbouring work-items,
//! neighbouring addresses; elements outside the array are skipped, unchecked when the box lies
//! inside it), wait, run the tile on the copies, wait, and copy back the elements whose flag a
//! write set: the move-out's condition `F_i` is the tile's exact write set, recorded as it is
//! written rather than derived, so elements of the box that other tiles of the wavefront own
//! are never written back. A version staging an exclusive array (written, read through several
//! classes) runs a tile staged only when the classes' boxes are apart, else from global memory.

use std::collections::BTreeMap;
use std::fmt::Write;

use avelas_contract::LOCAL_MEM_ALIGN as ALIGN;
use ptile::buffers::Candidate;
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::model::Scop;
use rosepolly::syntax::to_affine;

use crate::device::{row_major, Dialect};
use crate::ir::{origin, size, ScopData};
use crate::names::user;

/// The most units of buffers a group stages: its kernel has `MAX_BUFFERS + 1` versions at
/// most, each a copy of the tile code (the source grows with each).
pub const MAX_BUFFERS: usize = 4;

/// The buffers a tiled group's kernels may use and where their references go.
#[derive(Debug, Clone, Default)]
pub struct Staging {
    /// Best first, by units: a buffer, or all classes of an array marked
    /// [`Candidate::exclusive`] (staged together, in tiles where their boxes are apart).
    pub buffers: Vec<Candidate>,
    /// Per kernel version `k >= 1`, how many of [`Staging::buffers`] it stages (`ends[k - 1]`):
    /// its first `k` units.
    pub ends: Vec<usize>,
    /// Per statement of the group, per array reference of its expression (in the order
    /// `Expr::map` visits them), the buffer that holds its element, if any.
    pub refs: BTreeMap<usize, Vec<Option<usize>>>,
    /// The C names of the columns of the buffers' `params`: the SCoP's parameters, then the
    /// outer dimensions' values.
    pub params: Vec<String>,
}

impl Staging {
    /// The stageable candidates of a group's statements, best first: arrays whose every
    /// extent the declaration gives (a buffer's copy is clipped to them), at most
    /// [`MAX_BUFFERS`] units. An exclusive array's classes form one unit, ranked as its best
    /// class, and only when each of its references belongs to one of them.
    pub fn new(
        scop: &Scop,
        candidates: &[Candidate],
        statements: &[usize],
        params: Vec<String>,
    ) -> Staging {
        let declared = |name: &str| {
            scop.symbols
                .data
                .values()
                .any(|d| d.name == name && d.extents.iter().all(Option::is_some))
        };
        let usable: Vec<&Candidate> = candidates
            .iter()
            .filter(|c| declared(&c.datum))
            .filter(|c| c.dims.iter().all(|d| d.origin.params.len() <= params.len()))
            .collect();
        let mut units: Vec<Vec<Candidate>> = Vec::new();
        for c in &usable {
            if units.len() == MAX_BUFFERS {
                break;
            }
            if !c.exclusive {
                units.push(vec![(*c).clone()]);
                continue;
            }
            if units.iter().flatten().any(|u| u.datum == c.datum) {
                continue;
            }
            let unit: Vec<Candidate> = usable
                .iter()
                .filter(|u| u.datum == c.datum)
                .map(|u| (*u).clone())
                .collect();
            let covered = statements.iter().all(|&s| {
                references(scop, &unit, s)
                    .iter()
                    .all(|(array, b)| *array != c.datum || b.is_some())
            });
            if covered {
                units.push(unit);
            }
        }
        let ends = units
            .iter()
            .scan(0, |n, u| {
                *n += u.len();
                Some(*n)
            })
            .collect();
        let buffers: Vec<Candidate> = units.into_iter().flatten().collect();
        let refs = statements
            .iter()
            .map(|&s| {
                let r = references(scop, &buffers, s);
                (s, r.into_iter().map(|(_, b)| b).collect())
            })
            .collect();
        Staging {
            buffers,
            ends,
            refs,
            params,
        }
    }

    /// Kernel versions beyond version 0.
    pub fn versions(&self) -> usize {
        self.ends.len()
    }

    /// The kernel version whose unit buffer `b` belongs to.
    pub fn version_of(&self, b: usize) -> usize {
        self.ends.iter().position(|&e| b < e).map_or(0, |v| v + 1)
    }
}

/// Statement `s`'s array references in `Expr::map` order, each with its array and the buffer
/// holding its element. A written array's buffer takes every reference to it when it is the
/// array's one class; otherwise a reference goes to the buffer of the class whose reference
/// has the same subscripts, and stays in global memory when none has (harmless for a
/// read-only array, whose copies may coexist; an exclusive array must have them all).
fn references(scop: &Scop, buffers: &[Candidate], s: usize) -> Vec<(String, Option<usize>)> {
    let st = &scop.statements[s];
    let linear = |subs: &[Expr]| -> Option<Vec<_>> {
        subs.iter()
            .map(|e| to_affine(e).and_then(|a| a.linear()))
            .collect()
    };
    let mut out = Vec::new();
    st.body.map(&mut |e| {
        if let Expr::Index { array, subscripts } = &e {
            let target = linear(subscripts);
            let b = buffers.iter().position(|c| {
                c.datum == *array
                    && ((c.written && !c.exclusive)
                        || c.refs.iter().any(|r| {
                            r.stmt == s
                                && target.is_some()
                                && st.accesses[r.access]
                                    .subscripts
                                    .iter()
                                    .map(|a| a.linear())
                                    .collect::<Option<Vec<_>>>()
                                    == target
                        }))
            });
            out.push((array.clone(), b));
        }
        e
    });
    out
}

/// Names of buffer `b`'s kernel variables.
fn bo(b: usize, i: usize) -> String {
    format!("polyc_bo{b}_{i}")
}
fn be(b: usize, i: usize) -> String {
    format!("polyc_be{b}_{i}")
}
fn bn(b: usize) -> String {
    format!("polyc_bn{b}")
}
/// The buffer's elements, and its flags.
pub fn bl(b: usize) -> String {
    format!("polyc_bl{b}")
}
pub fn bf(b: usize) -> String {
    format!("polyc_bf{b}")
}

/// The function that sets a written element's flag and returns its index.
pub const MARK: &str = "polyc_mark";

/// The helper a kernel with written buffers calls, once per file.
pub fn helper(dialect: Dialect) -> String {
    match dialect {
        Dialect::OpenCl => {
            format!("inline int {MARK}(__local uchar *f, int i) {{ f[i] = 1; return i; }}\n")
        }
        Dialect::Cuda => format!(
            "static __device__ __forceinline__ __attribute__((unused)) int {MARK}(unsigned char *f, int i) {{ f[i] = 1; return i; }}\n"
        ),
    }
}

/// The kernel parameter holding a version's local memory (OpenCL), if the dialect has one.
pub fn parameter(dialect: Dialect) -> Option<&'static str> {
    (dialect == Dialect::OpenCl).then_some("__local uchar *polyc_lm")
}

/// Prints one version's staging code.
pub struct Stager<'a> {
    pub staging: &'a Staging,
    pub data: &'a ScopData,
    pub dialect: Dialect,
    /// The kernel version: it stages the first `version` units of [`Staging::buffers`].
    pub version: usize,
    /// An element index expression of the device's flat arrays: `array[subscripts]`.
    pub linearize: &'a dyn Fn(&str, &[Expr]) -> Expr,
}

impl Stager<'_> {
    /// How many buffers this version stages.
    pub fn count(&self) -> usize {
        match self.version {
            0 => 0,
            v => self.staging.ends[v - 1],
        }
    }

    fn used(&self) -> &[Candidate] {
        &self.staging.buffers[..self.count()]
    }

    /// The test, per tile, that the boxes of each exclusive array's classes are apart (each
    /// element has one copy); `None` when this version stages no exclusive array.
    pub fn apart(&self) -> Option<String> {
        let used = self.used();
        let mut tests = Vec::new();
        for (a, x) in used.iter().enumerate() {
            for (b, y) in used.iter().enumerate().skip(a + 1) {
                if !(x.exclusive && y.exclusive && x.datum == y.datum) {
                    continue;
                }
                let sides: Vec<String> = (0..x.dims.len())
                    .map(|i| {
                        format!(
                            "({} + {} <= {}) | ({} + {} <= {})",
                            bo(a, i),
                            be(a, i),
                            bo(b, i),
                            bo(b, i),
                            be(b, i),
                            bo(a, i)
                        )
                    })
                    .collect();
                tests.push(format!("({})", sides.join(" | ")));
            }
        }
        (!tests.is_empty()).then(|| tests.join(" & "))
    }

    fn extents(&self, c: &Candidate) -> Vec<String> {
        let d = self.data.datum(&c.datum).expect("buffers are of data");
        d.extents
            .iter()
            .map(|e| {
                format!(
                    "(long)({})",
                    e.as_ref().expect("staged arrays are declared")
                )
            })
            .collect()
    }

    /// At the kernel's start: the buffers' extents (they depend on the tile sizes only) and
    /// their places in local memory.
    pub fn declarations(&self) -> String {
        let mut out = String::new();
        let (space, raw) = match self.dialect {
            Dialect::OpenCl => ("__local ", "uchar"),
            Dialect::Cuda => ("", "unsigned char"),
        };
        if self.dialect == Dialect::Cuda {
            let _ = writeln!(
                out,
                "extern __shared__ __align__(16) unsigned char polyc_lm[];"
            );
        }
        let _ = writeln!(out, "long polyc_loff = 0;");
        for (b, c) in self.used().iter().enumerate() {
            let elem = &self.data.datum(&c.datum).expect("buffers are of data").elem;
            let mut n = Vec::new();
            for (i, d) in c.dims.iter().enumerate() {
                let e = d
                    .extent
                    .render_with(origin, size, &self.staging.params, "polyc_lfloord");
                let _ = writeln!(out, "const long {} = {e};", be(b, i));
                n.push(be(b, i));
            }
            let _ = writeln!(out, "const int {} = (int)({});", bn(b), n.join(" * "));
            let _ = writeln!(
                out,
                "{space}{elem} *{} = ({space}{elem} *)(polyc_lm + polyc_loff);",
                bl(b)
            );
            let _ = writeln!(
                out,
                "polyc_loff += ((long){} * (long)sizeof({elem}) + {}) / {ALIGN} * {ALIGN};",
                bn(b),
                ALIGN - 1
            );
            if c.written {
                let _ = writeln!(
                    out,
                    "{space}{raw} *{} = ({space}{raw} *)(polyc_lm + polyc_loff);",
                    bf(b)
                );
                let _ = writeln!(
                    out,
                    "polyc_loff += ((long){} + {}) / {ALIGN} * {ALIGN};",
                    bn(b),
                    ALIGN - 1
                );
            }
        }
        let _ = writeln!(out, "(void)polyc_loff;");
        out
    }

    /// The element of buffer `b` that `subscripts` (of the array) name.
    pub fn element(&self, b: usize, subscripts: Vec<Expr>) -> Expr {
        let local: Vec<Expr> = subscripts
            .into_iter()
            .enumerate()
            .map(|(i, s)| Expr::binary(BinaryOp::Sub, s, Expr::var(bo(b, i))))
            .collect();
        let inner: Vec<Expr> = (1..local.len()).map(|i| Expr::var(be(b, i))).collect();
        let lin = Expr::Cast {
            ty: "int".into(),
            expr: Box::new(row_major(local, &inner)),
        };
        Expr::Index {
            array: bl(b),
            subscripts: vec![lin],
        }
    }

    /// The boxes' origins in the tile, and whether each lies inside its array.
    pub fn origins(&self) -> String {
        let mut out = String::new();
        for (b, c) in self.used().iter().enumerate() {
            for (i, d) in c.dims.iter().enumerate() {
                let o = d
                    .origin
                    .render_with(origin, size, &self.staging.params, "polyc_lfloord");
                let _ = writeln!(out, "const long {} = {o};", bo(b, i));
            }
            let inside: Vec<String> = self
                .extents(c)
                .iter()
                .enumerate()
                .map(|(i, x)| format!("({} >= 0) & ({} + {} <= {x})", bo(b, i), bo(b, i), be(b, i)))
                .collect();
            // Bitwise: an origin may be a constant, and PoCL's compiler prints a warning (into
            // the program's stderr) for `&&` with a constant operand.
            let _ = writeln!(out, "const int polyc_bin{b} = {};", inside.join(" & "));
        }
        out
    }

    /// Around one tile's code, after [`Stager::origins`]: the move-in and a barrier before, a
    /// barrier and the move-out after.
    pub fn moves(&self, code: &str, barrier: &str) -> String {
        let mut out = String::new();
        for (b, c) in self.used().iter().enumerate() {
            let (array, test) = self.point(c);
            let mut body = format!(
                "if (polyc_bin{b} | ({test})) {}[polyc_r] = {array};\n",
                bl(b)
            );
            if c.written {
                let _ = writeln!(body, "{}[polyc_r] = 0;", bf(b));
            }
            out.push_str(&self.over_buffer(b, c, &body));
        }
        let _ = writeln!(out, "{barrier}");
        out.push_str(code);
        let _ = writeln!(out, "{barrier}");
        let mut written = false;
        for (b, c) in self.used().iter().enumerate().filter(|(_, c)| c.written) {
            let (array, _) = self.point(c);
            let body = format!("if ({}[polyc_r]) {array} = {}[polyc_r];\n", bf(b), bl(b));
            out.push_str(&self.over_buffer(b, c, &body));
            written = true;
        }
        if written {
            // The next tile's move-in reads what other work-items wrote back.
            let _ = writeln!(out, "{barrier}");
        }
        out
    }

    /// A loop of the work-group over buffer `b`'s elements `polyc_r`, with the element's array
    /// coordinates `polyc_g<i>` before `body`.
    fn over_buffer(&self, b: usize, c: &Candidate, body: &str) -> String {
        // The same trip count on every work-item (a uniform loop, which PoCL's work-group
        // compiler handles where it mishandles `r = lid; r < n; r += wg` beside others).
        let mut out = format!(
            "for (int polyc_r0 = 0; polyc_r0 < {n}; polyc_r0 += (int)polyc_wg) {{\n  const int polyc_r = polyc_r0 + (int)polyc_lid;\n  if (polyc_r >= {n}) continue;\n",
            n = bn(b)
        );
        let _ = writeln!(out, "  int polyc_q = polyc_r;");
        for i in (0..c.dims.len()).rev() {
            if i == 0 {
                let _ = writeln!(out, "  const long polyc_g0 = {} + polyc_q;", bo(b, 0));
            } else {
                let _ = writeln!(
                    out,
                    "  const long polyc_g{i} = {} + polyc_q % (int){}; polyc_q /= (int){};",
                    bo(b, i),
                    be(b, i),
                    be(b, i)
                );
            }
        }
        for l in body.lines() {
            let _ = writeln!(out, "  {l}");
        }
        out.push_str("}\n");
        out
    }

    /// The array element at `polyc_g<i>`, and the test that it lies inside the array.
    fn point(&self, c: &Candidate) -> (String, String) {
        let gs: Vec<Expr> = (0..c.dims.len())
            .map(|i| Expr::var(format!("polyc_g{i}")))
            .collect();
        let array = (self.linearize)(&user(&c.datum), &gs).to_string();
        let test: Vec<String> = self
            .extents(c)
            .iter()
            .enumerate()
            .map(|(i, x)| format!("(polyc_g{i} >= 0) & (polyc_g{i} < {x})"))
            .collect();
        (array, test.join(" & "))
    }
}
