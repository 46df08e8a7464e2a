//! Diagnostics: what went wrong, and where in the user's *original* file.
//!
//! Locations come from the preprocessor's line markers (see [`crate::compilation::source`]), so
//! they name the file and line the user wrote, also inside headers. Columns are given only when
//! the preprocessed line is the original line unchanged (no macro expanded on it before the
//! construct); inside macro expansions there is no column to give.

use std::fmt;

use serde::Serialize;

/// A place in the user's original source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Loc {
    pub file: String,
    pub line: u32,
    /// 1-based column, when it is known exactly.
    pub column: Option<u32>,
}

impl Loc {
    pub fn new(file: impl Into<String>, line: u32, column: Option<u32>) -> Loc {
        Loc {
            file: file.into(),
            line,
            column,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (0, _) => write!(f, "{}", self.file),
            (l, Some(c)) => write!(f, "{}:{l}:{c}", self.file),
            (l, None) => write!(f, "{}:{l}", self.file),
        }
    }
}

/// One error found in the user's input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub loc: Loc,
    /// What is wrong, naming the construct (`while loop`, `non-affine subscript`...).
    pub message: String,
    /// The offending source text as the compiler saw it (after macro expansion).
    pub snippet: Option<String>,
    /// Further explanation or a hint.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(loc: Loc, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            loc,
            message: message.into(),
            snippet: None,
            notes: Vec::new(),
        }
    }

    pub fn with_snippet(mut self, snippet: impl Into<String>) -> Diagnostic {
        let s: String = snippet.into();
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        self.snippet = Some(s);
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: error: {}", self.loc, self.message)?;
        if let Some(s) = &self.snippet {
            write!(f, ": `{s}`")?;
        }
        for n in &self.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

/// The errors of one run, in source order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, thiserror::Error)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn one(d: Diagnostic) -> Diagnostics {
        Diagnostics(vec![d])
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d)
    }
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0)
    }
    /// Sort by location and drop exact repeats (one construct can be reached twice).
    pub fn normalize(mut self) -> Diagnostics {
        self.0.sort_by(|a, b| a.loc.cmp(&b.loc));
        self.0.dedup();
        self
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics::one(d)
    }
}

/// A place where a compilation did less than it could instead of failing: a budget ran out, isl
/// failed, or a limit that keeps generated code buildable applied. The code stays correct; it
/// is slower, or the SCoP's original code. `polyc --dump fallbacks` lists them per SCoP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fallback {
    pub phase: Phase,
    /// What was done instead, and why.
    pub what: String,
}

impl Fallback {
    pub fn new(phase: Phase, what: impl Into<String>) -> Fallback {
        Fallback {
            phase,
            what: what.into(),
        }
    }
}

/// The part of the compiler a [`Fallback`] happened in, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Dependence analysis (isl's dataflow).
    Analysis,
    /// Pluto's scheduler and diamond tiling.
    Scheduling,
    /// The tile space: the tile loops' bounds.
    Tiling,
    /// AST generation and printing: the loops, the kernels, the SCoP's code as a whole.
    CodeGeneration,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Analysis => "analysis",
            Phase::Scheduling => "scheduling",
            Phase::Tiling => "tiling",
            Phase::CodeGeneration => "code generation",
        })
    }
}
