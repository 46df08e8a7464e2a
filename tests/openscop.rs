//! `polyc FILE --dump openscop` on every kernel of the suite: the output is well-formed OpenScop
//! (read back by a small reader written here, independent of polyc's printer) and describes
//! the statements and accesses `--dump model --json` reports.

mod common;

use common::polyc;
use polybench::harness::Build;

/// One part of a relation, as its header states it.
#[derive(Debug)]
struct Part {
    outputs: usize,
    inputs: usize,
    params: usize,
}

/// A relation: its kind and its parts (one unless it is a union).
#[derive(Debug)]
struct Relation {
    kind: String,
    parts: Vec<Part>,
}

#[derive(Debug)]
struct Statement {
    relations: Vec<Relation>,
    iterators: usize,
}

#[derive(Debug)]
struct OpenScop {
    context: Relation,
    params: Vec<String>,
    statements: Vec<Statement>,
    arrays: Vec<String>,
}

/// The lines that carry data: no blank lines, no `#` comments.
struct Lines<'a> {
    lines: std::iter::Peekable<Box<dyn Iterator<Item = (usize, &'a str)> + 'a>>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Lines<'a> {
        let it: Box<dyn Iterator<Item = (usize, &'a str)>> = Box::new(
            text.lines()
                .enumerate()
                .map(|(n, l)| (n + 1, l.trim()))
                .filter(|(_, l)| !l.is_empty() && !l.starts_with('#')),
        );
        Lines {
            lines: it.peekable(),
        }
    }

    fn next(&mut self) -> Result<(usize, &'a str), String> {
        self.lines
            .next()
            .ok_or_else(|| "unexpected end".to_string())
    }

    fn expect(&mut self, what: &str) -> Result<(), String> {
        let (n, l) = self.next()?;
        if l == what {
            Ok(())
        } else {
            Err(format!("line {n}: expected `{what}`, found `{l}`"))
        }
    }

    fn ints(&mut self) -> Result<(usize, Vec<i64>), String> {
        let (n, l) = self.next()?;
        let v = l
            .split_whitespace()
            .map(|x| x.parse::<i64>())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| format!("line {n}: expected integers, found `{l}`"))?;
        Ok((n, v))
    }

    fn int(&mut self) -> Result<usize, String> {
        match self.ints()? {
            (_, v) if v.len() == 1 && v[0] >= 0 => Ok(v[0] as usize),
            (n, v) => Err(format!("line {n}: expected one count, found {v:?}")),
        }
    }
}

/// Every `<tag>` has its `</tag>`, properly nested.
fn tags_balance(text: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for (n, l) in text.lines().enumerate().map(|(n, l)| (n + 1, l.trim())) {
        if let Some(name) = l.strip_prefix("</").and_then(|r| r.strip_suffix('>')) {
            match open.pop() {
                Some(o) if o == name => {}
                o => return Err(format!("line {n}: `</{name}>` closes {o:?}")),
            }
        } else if let Some(name) = l.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
            open.push(name);
        }
    }
    match open.is_empty() {
        true => Ok(()),
        false => Err(format!("unclosed tags {open:?}")),
    }
}

/// A relation: its kind, the number of parts if it is a union, each part's header and rows.
/// Every row has the header's number of columns, the first one 0 or 1.
fn relation(lines: &mut Lines, kinds: &[&str]) -> Result<Relation, String> {
    let (n, kind) = lines.next()?;
    if !kinds.contains(&kind) {
        return Err(format!(
            "line {n}: expected one of {kinds:?}, found `{kind}`"
        ));
    }
    let (mut n, mut header) = lines.ints()?;
    let count = if header.len() == 1 {
        let count = header[0] as usize;
        (n, header) = lines.ints()?;
        count
    } else {
        1
    };
    let mut parts = Vec::new();
    for part in 0..count {
        if part > 0 {
            (n, header) = lines.ints()?;
        }
        let [rows, cols, outputs, inputs, locals, params] = header[..] else {
            return Err(format!(
                "line {n}: a header has six numbers, found {header:?}"
            ));
        };
        if cols != 1 + outputs + inputs + locals + params + 1 {
            return Err(format!(
                "line {n}: {cols} columns do not add up in {header:?}"
            ));
        }
        for _ in 0..rows {
            let (m, row) = lines.ints()?;
            if row.len() as i64 != cols || !(row[0] == 0 || row[0] == 1) {
                return Err(format!("line {m}: bad row {row:?} for header {header:?}"));
            }
        }
        parts.push(Part {
            outputs: outputs as usize,
            inputs: inputs as usize,
            params: params as usize,
        });
    }
    Ok(Relation {
        kind: kind.to_string(),
        parts,
    })
}

fn statement(lines: &mut Lines) -> Result<Statement, String> {
    let n = lines.int()?;
    let mut relations = Vec::new();
    for _ in 0..n {
        relations.push(relation(
            lines,
            &["DOMAIN", "SCATTERING", "READ", "WRITE", "MAY_WRITE"],
        )?);
    }
    let extensions = lines.int()?;
    let mut iterators = 0;
    for _ in 0..extensions {
        lines.expect("<body>")?;
        iterators = lines.int()?;
        if iterators > 0 {
            let (m, names) = lines.next()?;
            if names.split_whitespace().count() != iterators {
                return Err(format!("line {m}: expected {iterators} iterators"));
            }
        }
        let (m, body) = lines.next()?;
        if !body.ends_with(';') {
            return Err(format!(
                "line {m}: a body is one C statement, found `{body}`"
            ));
        }
        lines.expect("</body>")?;
    }
    Ok(Statement {
        relations,
        iterators,
    })
}

fn arrays(lines: &mut Lines) -> Result<Vec<String>, String> {
    let n = lines.int()?;
    let mut names = Vec::new();
    for k in 1..=n {
        let (m, l) = lines.next()?;
        match l.split_once(' ') {
            Some((id, name)) if id.parse() == Ok(k) => names.push(name.to_string()),
            _ => return Err(format!("line {m}: expected `{k} NAME`, found `{l}`")),
        }
    }
    lines.expect("</arrays>")?;
    Ok(names)
}

/// Every `<OpenScop>` block of `text`.
fn read(text: &str) -> Result<Vec<OpenScop>, String> {
    tags_balance(text)?;
    let mut lines = Lines::new(text);
    let mut scops = Vec::new();
    while lines.lines.peek().is_some() {
        lines.expect("<OpenScop>")?;
        lines.expect("C")?;
        let context = relation(&mut lines, &["CONTEXT"])?;
        let mut params = Vec::new();
        if lines.int()? == 1 {
            lines.expect("<strings>")?;
            params = lines
                .next()?
                .1
                .split_whitespace()
                .map(String::from)
                .collect();
            lines.expect("</strings>")?;
        }
        let n = lines.int()?;
        let statements = (0..n)
            .map(|_| statement(&mut lines))
            .collect::<Result<Vec<_>, _>>()?;
        let mut names = Vec::new();
        loop {
            match lines.next()? {
                (_, "</OpenScop>") => break,
                (_, "<arrays>") => names = arrays(&mut lines)?,
                (m, l) => return Err(format!("line {m}: unexpected `{l}`")),
            }
        }
        scops.push(OpenScop {
            context,
            params,
            statements,
            arrays: names,
        });
    }
    Ok(scops)
}

/// Compare one kernel's OpenScop with its model; the reasons it does not match.
fn check(os: &[OpenScop], model: &serde_json::Value) -> Result<(), String> {
    let scops = model["scops"].as_array().unwrap();
    if os.len() != scops.len() {
        return Err(format!(
            "{} OpenScop blocks for {} SCoPs",
            os.len(),
            scops.len()
        ));
    }
    for (o, m) in os.iter().zip(scops) {
        let params: Vec<&str> = m["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let over_params = |r: &Relation| r.parts.iter().all(|p| p.params == params.len());
        if o.params != params || !over_params(&o.context) {
            return Err(format!("parameters {:?} for {params:?}", o.params));
        }
        let statements = m["statements"].as_array().unwrap();
        if o.statements.len() != statements.len() {
            return Err(format!(
                "{} statements for {}",
                o.statements.len(),
                statements.len()
            ));
        }
        for (k, (s, j)) in o.statements.iter().zip(statements).enumerate() {
            let depth = j["depth"].as_u64().unwrap() as usize;
            let accesses = j["accesses"].as_array().unwrap();
            let expected = |kind: &str| accesses.iter().filter(|a| a["kind"] == kind).count();
            let found = |kind: &str| s.relations.iter().filter(|r| r.kind == kind).count();
            // The domain's outputs are the iterators; every other relation's inputs are.
            let dims = |r: &Relation| {
                r.parts.iter().all(|p| match r.kind.as_str() {
                    "DOMAIN" => (p.outputs, p.inputs) == (depth, 0),
                    _ => p.inputs == depth,
                })
            };
            let ok = found("DOMAIN") == 1
                && found("SCATTERING") == 1
                && found("READ") == expected("read")
                && found("WRITE") == expected("write")
                && s.relations.len() == 2 + accesses.len()
                && s.iterators == depth
                && s.relations.iter().all(|r| dims(r) && over_params(r));
            if !ok {
                return Err(format!(
                    "statement {k}: {s:?} against depth {depth}, {} reads, {} writes",
                    expected("read"),
                    expected("write")
                ));
            }
        }
        if o.arrays.is_empty() {
            return Err("no <arrays> extension".into());
        }
    }
    Ok(())
}

#[test]
fn every_kernel_is_well_formed_openscop_with_the_models_statements_and_accesses() {
    let build = Build::new("MINI", false);
    let mut failures = Vec::new();
    for k in polybench::kernels() {
        let mut args: Vec<String> = vec![k.source.display().to_string()];
        args.extend(build.cpp_flags(&k));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, text, err) = polyc(&[&args[..], &["--dump", "openscop"]].concat());
        if code != 0 {
            failures.push(format!("{}: polyc failed: {err}", k.name));
            continue;
        }
        let (code, json, err) = polyc(&[&args[..], &["--dump", "model", "--json"]].concat());
        assert_eq!(code, 0, "{}: {err}", k.name);
        let model: serde_json::Value = serde_json::from_str(&json).unwrap();
        if let Err(e) = read(&text).and_then(|os| check(&os, &model)) {
            failures.push(format!("{}: {e}", k.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn non_affine_input_is_a_located_error_not_a_dump() {
    let input = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/invalid/macro-nonaffine.c");
    let text = std::fs::read_to_string(&input).unwrap();
    // `// expect: LINE: TEXT`, as tests/invalid_inputs.rs reads it.
    let expect = text
        .lines()
        .next()
        .unwrap()
        .strip_prefix("// expect: ")
        .unwrap();
    let (line, message) = expect.split_once(": ").unwrap();
    let (code, out, err) = polyc(&[input.to_str().unwrap(), "--dump", "openscop"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains(&format!("macro-nonaffine.c:{line}")), "{err}");
    assert!(err.contains(message), "{err}");
}

#[test]
fn openscop_with_json_is_bad_usage() {
    let k = polybench::kernel("gemm").unwrap();
    let (code, out, err) = polyc(&[k.source.to_str().unwrap(), "--dump", "openscop", "--json"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        out.is_empty() && err.contains("--json does not apply"),
        "{err}"
    );
}

#[test]
fn the_reader_rejects_malformed_relations() {
    let good = "<OpenScop>\nC\nCONTEXT\n0 3 0 0 0 1\n1\n<strings>\nn\n</strings>\n1\n3\n\
                DOMAIN\n1 4 1 0 0 1\n1 1 0 0\nSCATTERING\n1 5 1 1 0 1\n0 -1 1 0 0\n\
                WRITE\n2 6 2 1 0 1\n0 -1 0 0 0 1\n0 0 -1 1 0 0\n1\n<body>\n1\ni\nA[i] = 0;\n</body>\n\
                <arrays>\n1\n1 A\n</arrays>\n</OpenScop>\n";
    let scops = read(good).unwrap();
    assert_eq!(scops[0].statements[0].relations.len(), 3);
    // A row one column short, a header whose columns do not add up, an unclosed tag.
    for (from, to) in [
        ("0 0 -1 1 0 0", "0 0 -1 1 0"),
        ("1 4 1 0 0 1", "1 5 1 0 0 1"),
        ("</body>\n", ""),
        ("1 1 0 0", "2 1 0 0"),
    ] {
        let bad = good.replacen(from, to, 1);
        assert!(read(&bad).is_err(), "accepted:\n{bad}");
    }
}
