//! The untiled path, and the tiled one, in functions of their own: where tiles do not pay, the
//! C target runs the SCoP in its original order (the user's own lines, or jammed rows where a
//! loop qualifies, [`crate::jam`]), and runs it from a function that holds nothing else.
//!
//! Inside the kernel's function, beside polyc's run-time decision (calls to the tuning and cost
//! functions, the trials' loop, the profile's clock), gcc allocates registers for the user's
//! loops differently: syr2k MEDIUM ran its untiled lines 0.5-0.7 ms slower than the original's
//! 5.1 ms (medians of 15, interleaved) with near-identical inner loops, more spills in the
//! loops around them. The same lines in a `noinline` function of their own ran as fast as the
//! original (5.14 against 5.22 ms in that run).
//!
//! The function goes right before the function that holds the SCoP, where the file's macros,
//! types and globals that the lines use are already declared. Its parameters are what the lines
//! name that is local to the enclosing function: the SCoP's parameters and read-only scalars by
//! value, arrays by pointer, and written scalars (iterators included) copied in and back out
//! through a pointer, so that inside the function they are locals again, as in the original.
//!
//! Local arrays go by pointer, as parameter arrays do. They were kept inline once, lest a pointer
//! lose what gcc knows of a distinct object; measured, durbin MEDIUM (its local `z`) ran its
//! lines inline in 0.070-0.072 ms against the original's 0.068-0.070, and outlined in 0.061-0.064
//! ms (medians of 101 and 151 rotated runs), LARGE the same either way (2.00 ms).
//!
//! The tiled path goes in a function of its own too ([`Outlined::tiled`]): past the test that
//! runs the lines where no tiles could pay (`polyc_surely_untiled`), the run-time decision, the
//! trials and the tiles, with the same parameters as the lines' plus the SCoP's derived
//! parameters and the work estimate the test computed. The function that holds the SCoP then
//! keeps its overlap guard, the estimate, the test and two calls. Where the lines run, entering
//! a function that also held the tiled path, and the code it touches after PolyBench's cache
//! flush, cost jacobi-1d MEDIUM (16 us) 0.3-0.5 us against the original, measured by hand.
//! Its loops are aligned as the lines' are: without it, gramschmidt MEDIUM's tiles ran 8%
//! slower outlined than inline (5.35 against 4.93 ms, medians of 41 rotated runs), with it as
//! fast (5.30 against 5.29 ms, 31 runs); as fast as `hot` or `noclone` made it: where loops
//! land is luck that alignment takes out.
//! Tuning keys do not change: their fingerprint covers the block as it would be printed with
//! the path in place.
//!
//! Outlining is refused, and the lines stay inline, wherever the function could mean something
//! else than the lines in place: a name declared in the enclosing function that is not data
//! (`typedef`, `struct`, `enum`, `extern`), an address that cannot be taken (`register`),
//! preprocessor directives between the function's head and the SCoP's end, a head whose line
//! starts with anything else (the end of a comment, a macro), or lines whose meaning depends on
//! where they are (`sizeof`, `typeof`, `__func__`, `return`, `goto`).

use std::collections::BTreeSet;
use std::fmt::Write;

use rosepolly::compilation::source::words;
use rosepolly::compilation::SourceUnit;
use rosepolly::model::{Scop, Storage};

use crate::ir::DatumData;
use crate::names::user;
use crate::splice::lines_inclusive;

/// The lines of one SCoP as a function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outlined {
    /// The function's definition.
    pub definition: String,
    /// The line of the user's file the definition goes before: the enclosing function's head.
    pub before_line: u32,
    /// The statement that runs the lines through the function (indented by two).
    pub call: String,
    /// The function's name.
    pub name: String,
    /// The statement that runs the tiled path through its function ([`Outlined::tiled`]).
    pub tiled_call: String,
    /// The parameters of the tiled path's function.
    tiled_params: Vec<Param>,
    /// The SCoP's number.
    scop: usize,
}

impl Outlined {
    /// The definition of the function that runs the tiled path `rest` (the C target's code
    /// past the test that runs the lines where no tiles could pay: the run-time decision,
    /// the trials, the tiles), which [`Outlined::tiled_call`] calls. It goes after the lines'
    /// function, which `rest` calls where tiles do not pay after all.
    pub fn tiled(&self, rest: &str) -> String {
        let comment = format!(
            "/* polyc: the tiled path of SCoP {}, in a function of its own: the function that holds the SCoP keeps its test and two calls, and runs its lines where tiles do not pay as fast as the original (codegen/src/outline.rs) */",
            self.scop
        );
        definition(&comment, &tiled_name(self.scop), &self.tiled_params, rest)
    }
}

/// The name of SCoP `id`'s tiled path's function.
fn tiled_name(id: usize) -> String {
    format!("polyc_scop{id}_tiled")
}

/// The tiled path's function's parameters: the lines' (`params`), the SCoP's derived
/// parameters, which the tiled code names, and the work estimate, which the caller computed
/// for its test.
fn tiled_params(scop: &Scop, params: &[Param]) -> Vec<Param> {
    let long = |name: &str| Param::Generated {
        ty: "long".into(),
        name: name.into(),
    };
    let double = |name: &str| Param::Generated {
        ty: "double".into(),
        name: name.into(),
    };
    let mut out = params.to_vec();
    out.extend(scop.derived.iter().map(|d| long(&d.name)));
    out.extend([double("polyc_points"), double("polyc_bytes")]);
    out
}

/// Words whose meaning in the enclosing function a function placed before it would not share.
const FUNCTION_WORDS: &[&str] = &[
    "typedef",
    "struct",
    "union",
    "enum",
    "extern",
    "register",
    "_Thread_local",
    "__thread",
];

/// Words whose meaning in the SCoP's lines depends on where the lines are.
const LINE_WORDS: &[&str] = &[
    "sizeof",
    "_Alignof",
    "__alignof__",
    "typeof",
    "__typeof__",
    "__typeof",
    "_Generic",
    "__func__",
    "__FUNCTION__",
    "__PRETTY_FUNCTION__",
    "return",
    "goto",
    "asm",
    "__asm__",
    "static",
    "volatile",
    "_Atomic",
];

/// One parameter of the outlined function.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Param {
    /// Passed by value: `ty name`.
    Value { ty: String, name: String },
    /// An array, by pointer: `elem (*name)[e1]...`.
    Array {
        elem: String,
        name: String,
        dims: String,
    },
    /// A written scalar, copied in from `*ref` and back out.
    Copied { ty: String, name: String },
    /// A name polyc declares before the call (a derived parameter, the work estimate), by
    /// value.
    Generated { ty: String, name: String },
}

/// `scop`'s lines (`user_lines`, as [`crate::fallback::user_lines`] gives them) as a function
/// of their own, or `None` where the lines must stay inline (see the module's text).
/// `original` is the text of the user's file.
pub fn outline(
    src: &SourceUnit,
    scop: &Scop,
    original: &str,
    user_lines: &str,
) -> Option<Outlined> {
    let lines = lines_inclusive(original);
    let before_line = function_head(src, scop, &lines)?;
    let directives = (before_line..=scop.region.end.line)
        .filter_map(|l| lines.get(l as usize - 1))
        .any(|l| is_directive(l));
    if directives {
        return None;
    }
    let region = src
        .text
        .get(scop.region.start_offset..scop.region.end_offset)?;
    if words(region).any(|w| LINE_WORDS.contains(&w)) {
        return None;
    }
    let params = params(scop)?;
    let name = format!("polyc_scop{}_lines", scop.id);
    let tiled_params = tiled_params(scop, &params);
    Some(Outlined {
        definition: definition(LINES_COMMENT, &name, &params, user_lines),
        call: call(&name, &params),
        tiled_call: call(&tiled_name(scop.id), &tiled_params),
        before_line,
        name,
        tiled_params,
        scop: scop.id,
    })
}

/// The line of the head of the function holding `scop`, where nothing else of the file is on
/// that line before it, and the function declares nothing but data (see [`FUNCTION_WORDS`]).
fn function_head(src: &SourceUnit, scop: &Scop, lines: &[&str]) -> Option<u32> {
    let (start, end) = src.function_around(scop.region.start_offset, scop.region.end_offset)?;
    let before = src.text.get(..start)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before[line_start..].trim().is_empty() {
        return None;
    }
    if words(src.text.get(start..end)?).any(|w| FUNCTION_WORDS.contains(&w)) {
        return None;
    }
    let head = src.loc(start);
    if head.file != scop.region.start.file || head.line < 1 || head.line >= scop.region.start.line {
        return None;
    }
    // The user's line starts with the head's first word, as the preprocessor saw it: not with
    // the end of a comment (the function would go inside the comment) or a macro.
    let first = words(&src.text[start..]).next()?;
    let line = lines.get(head.line as usize - 1)?;
    words(line)
        .next()
        .filter(|w| *w == first && line.trim_start().starts_with(first))
        .map(|_| head.line)
}

/// A preprocessor directive other than a pragma: its meaning could change if the lines moved
/// across it.
fn is_directive(line: &str) -> bool {
    line.trim_start()
        .strip_prefix('#')
        .is_some_and(|rest| !rest.trim_start().starts_with("pragma"))
}

/// The function's parameters: what the lines name that the enclosing function declares.
fn params(scop: &Scop) -> Option<Vec<Param>> {
    let derived: BTreeSet<&str> = scop.derived.iter().map(|d| d.name.as_str()).collect();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (name, ty) in scop.params.iter().zip(&scop.param_types) {
        if !derived.contains(name.as_str()) && seen.insert(name.clone()) {
            out.push(Param::Value {
                ty: ty.spelling().into(),
                name: name.clone(),
            });
        }
    }
    // Extents may name the parameters above only: they are declared before the arrays.
    let values: BTreeSet<String> = seen.clone();
    let mut arrays = Vec::new();
    for d in scop.symbols.data.values() {
        if d.written_type.contains("volatile") || d.written_type.contains("_Atomic") {
            return None;
        }
        if let Some(scalar) = &d.expands {
            // The lines use the scalar this array stands for (an expanded array is still data
            // of the SCoP, which its copy statements write).
            if scop.symbols.data.contains_key(scalar) {
                continue;
            }
            if seen.insert(scalar.clone()) {
                out.push(Param::Copied {
                    ty: d.elem_type.clone(),
                    name: scalar.clone(),
                });
            }
            continue;
        }
        if d.storage == Storage::Global || !seen.insert(d.name.clone()) {
            continue;
        }
        if d.is_scalar() {
            let (ty, name) = (d.elem_type.clone(), d.name.clone());
            out.push(match d.written {
                true => Param::Copied { ty, name },
                false => Param::Value { ty, name },
            });
            continue;
        }
        // A local array goes by pointer like a parameter array: the function sees the same
        // object (durbin's `z`; see the module's text).
        let data = DatumData::of(d);
        let mut dims = String::new();
        for e in &data.extents[1..] {
            let e = e.as_ref()?.to_string();
            if words(&e).any(|w| !values.contains(w) && !is_type_word(w)) {
                return None;
            }
            let _ = write!(dims, "[{e}]");
        }
        arrays.push(Param::Array {
            elem: d.elem_type.clone(),
            name: d.name.clone(),
            dims,
        });
    }
    for e in &scop.exits {
        if seen.insert(e.name.clone()) {
            out.push(Param::Copied {
                ty: e.ty.spelling().into(),
                name: e.name.clone(),
            });
        }
    }
    out.extend(arrays);
    Some(out)
}

/// Words of a printed extent that are not names (its casts).
fn is_type_word(w: &str) -> bool {
    matches!(w, "long" | "int" | "unsigned" | "signed" | "short" | "char")
}

/// The comment of the lines' function.
const LINES_COMMENT: &str = "/* polyc: the SCoP in its original order (its own lines, or by \
jammed rows: codegen/src/jam.rs), run where tiles do not pay; in a function of its own, gcc \
compiles it as in the original (codegen/src/outline.rs) */";

/// Both functions' attributes. Loops at 64-byte boundaries: gemm MEDIUM's inner loop (24
/// bytes) ran 5.3 ms where it straddled one, 3.8 ms where it did not, the original's luck of the
/// draw (gcc 12, EPYC). gcc alone knows the `optimize` attribute; clang would warn of it.
const ATTRIBUTES: &str = "static __attribute__((noinline))
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize(\"align-loops=64\")))
#endif
";

/// A function `name` after `comment`, with `params`, and `body` between the copies in and out
/// of the written scalars.
fn definition(comment: &str, name: &str, params: &[Param], body: &str) -> String {
    let decls: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(k, p)| match p {
            Param::Value { ty, name } => format!("{ty} {}", user(name)),
            Param::Array { elem, name, dims } => format!("{elem} (*{}){dims}", user(name)),
            Param::Copied { .. } => format!("void *polyc_ref{k}"),
            Param::Generated { ty, name } => format!("{ty} {name}"),
        })
        .collect();
    let mut out = format!("{comment}\n{ATTRIBUTES}");
    let _ = writeln!(
        out,
        "void {name}({}) {{",
        if decls.is_empty() {
            "void".to_string()
        } else {
            decls.join(", ")
        }
    );
    let copied = || {
        params.iter().enumerate().filter_map(|(k, p)| match p {
            Param::Copied { ty, name } => Some((k, ty, user(name))),
            _ => None,
        })
    };
    for (k, ty, name) in copied() {
        let _ = writeln!(
            out,
            "  {ty} {name};\n  __builtin_memcpy(&{name}, polyc_ref{k}, sizeof {name});"
        );
    }
    out.push_str(body);
    for (k, _, name) in copied() {
        let _ = writeln!(
            out,
            "  __builtin_memcpy(polyc_ref{k}, &{name}, sizeof {name});"
        );
    }
    out.push_str("}\n");
    out
}

fn call(name: &str, params: &[Param]) -> String {
    let args: Vec<String> = params
        .iter()
        .map(|p| match p {
            Param::Value { name, .. } => user(name),
            Param::Array { name, .. } => format!("(void *)({})", user(name)),
            Param::Copied { name, .. } => format!("(void *)&{}", user(name)),
            Param::Generated { name, .. } => name.clone(),
        })
        .collect();
    format!("  {name}({});\n", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_other_than_pragmas_block_the_move() {
        assert!(is_directive("#define X 1\n"));
        assert!(is_directive("  #  undef X\n"));
        assert!(!is_directive("#pragma omp parallel for\n"));
        assert!(!is_directive("# pragma scop\n"));
        assert!(!is_directive("x = a # b;\n"));
    }
}
