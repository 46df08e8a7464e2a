//! Printing diagnostics: rustc-style snippets (codespan-reporting) when the original file can
//! be read, the plain `file:line:col: error: message` line otherwise.

use codespan_reporting::diagnostic::{Diagnostic as Report, Label};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{
    self,
    termcolor::{ColorChoice, StandardStream},
};
use rosepolly::diag::{Diagnostic, Diagnostics};

/// Print every diagnostic on stderr.
pub fn print(diags: &Diagnostics) {
    let writer = StandardStream::stderr(if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    });
    let config = term::Config::default();
    let mut files = SimpleFiles::new();
    for d in &diags.0 {
        let message = match &d.snippet {
            Some(s) => format!("{}: `{s}`", d.message),
            None => d.message.clone(),
        };
        match source_range(&mut files, d) {
            Some((id, range)) => {
                let report = Report::error()
                    .with_message(message)
                    .with_labels(vec![Label::primary(id, range)])
                    .with_notes(d.notes.clone());
                let _ = term::emit(&mut writer.lock(), &config, &files, &report);
            }
            // No source to show: the one-line form editors jump to.
            None => eprintln!("{d}"),
        }
    }
}

/// The byte range to underline: from the known column to the end of the line, or the whole
/// line when the column is not known (macro expansion).
fn source_range(
    files: &mut SimpleFiles<String, String>,
    d: &Diagnostic,
) -> Option<(usize, std::ops::Range<usize>)> {
    if d.loc.line == 0 {
        return None;
    }
    let text = std::fs::read_to_string(&d.loc.file).ok()?;
    let start_of_line: usize = text
        .split_inclusive('\n')
        .take(d.loc.line as usize - 1)
        .map(str::len)
        .sum();
    let line = text[start_of_line..].lines().next()?;
    let indent = line.len() - line.trim_start().len();
    let col = d
        .loc
        .column
        .map(|c| c as usize - 1)
        .unwrap_or(indent)
        .min(line.len());
    let range = start_of_line + col..start_of_line + line.trim_end().len().max(col);
    let id = files.add(d.loc.file.clone(), text);
    Some((id, range))
}
