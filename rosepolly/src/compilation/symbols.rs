//! Declarations visible to a SCoP: globals, the function's parameters, and locals declared
//! before the region, with typedefs resolved to C's arithmetic types.

use std::collections::{HashMap, HashSet};

use lang_c::ast::{self, DeclarationSpecifier, DerivedDeclarator, ExternalDeclaration};
use lang_c::span::Node;

use super::cexpr::{type_specifier_word, ExprConverter};
use super::flowgraph::declarator_name;
use super::source::SourceUnit;
use crate::diag::Loc;
use crate::model::ctype::{CType, IntType};
use crate::model::expr::Expr;

use crate::model::Storage;

/// One array dimension of a declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum Extent {
    /// `A[expr]` (a constant after preprocessing, or a VLA size).
    Sized(Expr),
    /// `A[]` or a pointer parameter.
    Unknown,
}

/// A declared variable.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub name: String,
    /// The arithmetic element type, typedefs resolved (`double`, `unsigned int`, `char`...).
    /// `None` for structs, unions and other types a SCoP cannot use.
    pub elem_type: Option<String>,
    /// The type as written (typedef names kept), for messages and generated declarations.
    pub written_type: String,
    pub extents: Vec<Extent>,
    pub storage: Storage,
    pub loc: Loc,
    /// Declared `volatile`: its accesses are behaviour, which a SCoP would reorder.
    pub volatile: bool,
}

impl Symbol {
    /// The type of the symbol's value (of an element, for arrays).
    pub fn elem_ctype(&self, char_signed: bool) -> CType {
        self.elem_type
            .as_deref()
            .map_or(CType::Other, |t| CType::from_name(t, char_signed))
    }

    pub fn is_integer(&self) -> bool {
        self.extents.is_empty() && self.elem_type.as_deref().is_some_and(is_integer_type)
    }
    pub fn is_arithmetic(&self) -> bool {
        self.elem_type.is_some()
    }
}

/// True for C integer types (after typedef resolution).
pub fn is_integer_type(t: &str) -> bool {
    t.split_whitespace().all(|w| {
        matches!(
            w,
            "char" | "short" | "int" | "long" | "signed" | "unsigned" | "_Bool"
        )
    })
}

/// The symbols a region can see, innermost declaration winning, and what the translation
/// unit says about types and functions.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    symbols: HashMap<String, Symbol>,
    typedefs: Typedefs,
    /// Plain `char` is signed.
    pub char_signed: bool,
    /// Functions declared or defined anywhere in the translation unit.
    declared_functions: HashSet<String>,
    /// Functions the translation unit defines (with a body).
    defined_functions: HashSet<String>,
}

impl Scope {
    pub fn get(&self, name: &str) -> Option<&Symbol> {
        self.symbols.get(name)
    }

    /// The names of the global variables in scope.
    pub fn globals(&self) -> impl Iterator<Item = String> + '_ {
        self.symbols
            .values()
            .filter(|s| s.storage == Storage::Global)
            .map(|s| s.name.clone())
    }

    /// The integer type of a scalar symbol.
    pub fn int_type(&self, name: &str) -> Option<IntType> {
        let s = self.get(name)?;
        if !s.extents.is_empty() {
            return None;
        }
        s.elem_ctype(self.char_signed).int()
    }

    /// The arithmetic type that specifier words name, spelt with C's own words (typedefs
    /// resolved: `size_t` → `unsigned long`), so that code without the program's typedefs in
    /// scope (a GPU kernel) can use it; `None` for another type or a name not known here.
    pub fn resolved_type(&self, words: &str) -> Option<String> {
        let words: Vec<String> = words.split_whitespace().map(str::to_string).collect();
        match self.typedefs.resolve(&words) {
            (Some(t), extents) if extents.is_empty() => Some(t),
            _ => None,
        }
    }

    /// The type that specifier words name (`unsigned`, `size_t`, `long int`...), typedefs
    /// resolved: an arithmetic type, or [`CType::Other`].
    pub fn type_of_words(&self, words: &str) -> CType {
        let words: Vec<String> = words.split_whitespace().map(str::to_string).collect();
        match self.typedefs.resolve(&words) {
            (Some(t), extents) if extents.is_empty() => CType::from_name(&t, self.char_signed),
            _ => CType::Other,
        }
    }

    /// Whether the translation unit declares or defines a function of this name (so that a
    /// call is the user's function, not one polyc knows).
    pub fn is_user_function(&self, name: &str) -> bool {
        self.declared_functions.contains(name)
    }

    /// Whether the translation unit defines (with a body) a function of this name.
    pub fn defines_function(&self, name: &str) -> bool {
        self.defined_functions.contains(name)
    }

    fn insert(&mut self, s: Symbol) {
        self.symbols.insert(s.name.clone(), s);
    }

    /// The scope at byte offset `at` inside function `f`: globals declared before the function,
    /// its parameters, and the locals declared in its body before `at`.
    pub fn at(src: &SourceUnit, f: &Node<ast::FunctionDefinition>, at: usize) -> Scope {
        let typedefs = Typedefs::collect(src, f.span.start);
        let mut scope = Scope {
            char_signed: src.char_signed,
            ..Scope::default()
        };
        scope.collect_functions(src);
        let conv = ExprConverter::new(src);
        for ext in &src.unit.0 {
            if ext.span.start >= f.span.start {
                break;
            }
            if let ExternalDeclaration::Declaration(d) = &ext.node {
                if !is_typedef(&d.node) {
                    for s in declared_symbols(
                        src,
                        &conv,
                        &typedefs,
                        &d.node.specifiers,
                        &d.node.declarators,
                        Storage::Global,
                    ) {
                        scope.insert(s);
                    }
                }
            }
        }
        for p in function_parameters(&f.node.declarator.node) {
            if let Some(decl) = &p.node.declarator {
                if let Some(s) = symbol(
                    src,
                    &conv,
                    &typedefs,
                    &p.node.specifiers,
                    &decl.node,
                    Storage::Parameter,
                    true,
                ) {
                    scope.insert(s);
                }
            }
        }
        // A K&R definition declares its parameters between the declarator and the body.
        for d in &f.node.declarations {
            for decl in &d.node.declarators {
                if let Some(s) = symbol(
                    src,
                    &conv,
                    &typedefs,
                    &d.node.specifiers,
                    &decl.node.declarator.node,
                    Storage::Parameter,
                    true,
                ) {
                    scope.insert(s);
                }
            }
        }
        collect_locals(src, &conv, &typedefs, &f.node.statement, at, &mut scope);
        scope.typedefs = typedefs;
        scope
    }

    fn collect_functions(&mut self, src: &SourceUnit) {
        for ext in &src.unit.0 {
            match &ext.node {
                ExternalDeclaration::FunctionDefinition(f) => {
                    let name = function_name(&f.node);
                    self.declared_functions.insert(name.clone());
                    self.defined_functions.insert(name);
                }
                ExternalDeclaration::Declaration(d) => {
                    for decl in &d.node.declarators {
                        let dd = &decl.node.declarator.node;
                        if is_function_declarator(dd) {
                            if let Some(n) = declarator_name(dd) {
                                self.declared_functions.insert(n);
                            }
                        }
                    }
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
    }
}

fn collect_locals(
    src: &SourceUnit,
    conv: &ExprConverter,
    typedefs: &Typedefs,
    s: &Node<ast::Statement>,
    at: usize,
    scope: &mut Scope,
) {
    if s.span.start >= at {
        return;
    }
    match &s.node {
        ast::Statement::Compound(items) => {
            for item in items {
                if item.span.start >= at {
                    break;
                }
                match &item.node {
                    ast::BlockItem::Declaration(d) if !is_typedef(&d.node) => {
                        for sym in declared_symbols(
                            src,
                            conv,
                            typedefs,
                            &d.node.specifiers,
                            &d.node.declarators,
                            Storage::Local,
                        ) {
                            scope.insert(sym);
                        }
                    }
                    ast::BlockItem::Statement(st) if st.span.end > at => {
                        collect_locals(src, conv, typedefs, st, at, scope)
                    }
                    _ => {}
                }
            }
        }
        ast::Statement::For(f) if f.span.end > at => {
            if let ast::ForInitializer::Declaration(d) = &f.node.initializer.node {
                for sym in declared_symbols(
                    src,
                    conv,
                    typedefs,
                    &d.node.specifiers,
                    &d.node.declarators,
                    Storage::Local,
                ) {
                    scope.insert(sym);
                }
            }
            collect_locals(src, conv, typedefs, &f.node.statement, at, scope);
        }
        ast::Statement::If(i) => {
            collect_locals(src, conv, typedefs, &i.node.then_statement, at, scope);
            if let Some(e) = &i.node.else_statement {
                collect_locals(src, conv, typedefs, e, at, scope);
            }
        }
        ast::Statement::While(w) => {
            collect_locals(src, conv, typedefs, &w.node.statement, at, scope)
        }
        ast::Statement::DoWhile(w) => {
            collect_locals(src, conv, typedefs, &w.node.statement, at, scope)
        }
        _ => {}
    }
}

fn is_typedef(d: &ast::Declaration) -> bool {
    d.specifiers.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::StorageClass(sc) if sc.node == ast::StorageClassSpecifier::Typedef)
    })
}

/// Whether a declarator declares a function (`f(void)`, `f()`, `(f)(int)`; a pointer to a
/// function counts too: a call through it is not polyc's either).
fn is_function_declarator(d: &ast::Declarator) -> bool {
    let inner = match &d.kind.node {
        ast::DeclaratorKind::Declarator(inner) => is_function_declarator(&inner.node),
        _ => false,
    };
    inner
        || d.derived.iter().any(|x| {
            matches!(
                x.node,
                DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_)
            )
        })
}

/// The parameters of a function declarator.
pub fn function_parameters(d: &ast::Declarator) -> Vec<&Node<ast::ParameterDeclaration>> {
    for derived in &d.derived {
        if let DerivedDeclarator::Function(f) = &derived.node {
            return f.node.parameters.iter().collect();
        }
    }
    if let ast::DeclaratorKind::Declarator(inner) = &d.kind.node {
        return function_parameters(&inner.node);
    }
    Vec::new()
}

/// The name of the function a definition defines.
pub fn function_name(f: &ast::FunctionDefinition) -> String {
    declarator_name(&f.declarator.node).unwrap_or_else(|| "<anonymous>".into())
}

fn declared_symbols(
    src: &SourceUnit,
    conv: &ExprConverter,
    typedefs: &Typedefs,
    specifiers: &[Node<DeclarationSpecifier>],
    declarators: &[Node<ast::InitDeclarator>],
    storage: Storage,
) -> Vec<Symbol> {
    declarators
        .iter()
        .filter_map(|d| {
            symbol(
                src,
                conv,
                typedefs,
                specifiers,
                &d.node.declarator.node,
                storage,
                false,
            )
        })
        .collect()
}

fn symbol(
    src: &SourceUnit,
    conv: &ExprConverter,
    typedefs: &Typedefs,
    specifiers: &[Node<DeclarationSpecifier>],
    d: &ast::Declarator,
    storage: Storage,
    is_parameter: bool,
) -> Option<Symbol> {
    let name = declarator_name(d)?;
    let words = specifier_words(specifiers);
    let written_type = words.join(" ");
    let mut extents = Vec::new();
    let mut is_function = false;
    collect_extents(conv, d, &mut extents, &mut is_function);
    if is_function {
        return None;
    }
    let (elem_type, typedef_extents) = typedefs.resolve(&words);
    extents.extend(typedef_extents);
    // A pointer parameter is an array of unknown extent to a SCoP (`T p[]` already is one); an
    // array of pointers (`T *a[N]`) is not one block of memory and gets no extra extent.
    let has = |f: fn(&DerivedDeclarator) -> bool| d.derived.iter().any(|x| f(&x.node));
    let is_pointer = has(|x| matches!(x, DerivedDeclarator::Pointer(_)))
        && !has(|x| matches!(x, DerivedDeclarator::Array(_)));
    if is_parameter && is_pointer && extents.first() != Some(&Extent::Unknown) {
        extents.insert(0, Extent::Unknown);
    }
    let volatile = specifiers.iter().any(|s| {
        matches!(
            &s.node,
            DeclarationSpecifier::TypeQualifier(q) if q.node == ast::TypeQualifier::Volatile
        )
    });
    Some(Symbol {
        name,
        elem_type,
        written_type,
        extents,
        storage,
        loc: src.span_loc(d.kind.span),
        volatile,
    })
}

fn collect_extents(
    conv: &ExprConverter,
    d: &ast::Declarator,
    out: &mut Vec<Extent>,
    is_function: &mut bool,
) {
    // A declarator reads from the name outwards: a parenthesised inner declarator applies first,
    // so its arrays are the outer dimensions; a pointer there (`double (*a)[N]`) points to the
    // arrays the outer declarator adds, one dimension of unknown extent in front of them. (An
    // inner array of pointers, `double (*a[4])[N]`, is not one block of memory: no extent is
    // added, and two subscripts on it are reported.)
    let mut pointer_to_arrays = false;
    if let ast::DeclaratorKind::Declarator(inner) = &d.kind.node {
        collect_extents(conv, &inner.node, out, is_function);
        let has = |f: fn(&DerivedDeclarator) -> bool| inner.node.derived.iter().any(|x| f(&x.node));
        pointer_to_arrays = has(|x| matches!(x, DerivedDeclarator::Pointer(_)))
            && !has(|x| matches!(x, DerivedDeclarator::Array(_)));
    }
    let before = out.len();
    for derived in &d.derived {
        match &derived.node {
            DerivedDeclarator::Array(a) => out.push(match &a.node.size {
                ast::ArraySize::VariableExpression(e) | ast::ArraySize::StaticExpression(e) => {
                    conv.expr(e).map(Extent::Sized).unwrap_or(Extent::Unknown)
                }
                _ => Extent::Unknown,
            }),
            DerivedDeclarator::Function(_) | DerivedDeclarator::KRFunction(_) => {
                *is_function = true
            }
            DerivedDeclarator::Pointer(_) | DerivedDeclarator::Block(_) => {}
        }
    }
    if pointer_to_arrays && out.len() > before {
        out.insert(before, Extent::Unknown);
    }
}

fn specifier_words(specifiers: &[Node<DeclarationSpecifier>]) -> Vec<String> {
    specifiers
        .iter()
        .filter_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(ts) => {
                Some(type_specifier_word(&ts.node).unwrap_or_else(|| "<struct>".into()))
            }
            _ => None,
        })
        .collect()
}

/// `typedef` names declared at file scope before a point, resolved to arithmetic types.
#[derive(Debug, Clone, Default)]
struct Typedefs {
    map: HashMap<String, (Option<String>, Vec<Extent>)>,
}

impl Typedefs {
    fn collect(src: &SourceUnit, before: usize) -> Typedefs {
        let mut t = Typedefs {
            map: HashMap::new(),
        };
        let conv = ExprConverter::new(src);
        for ext in &src.unit.0 {
            if ext.span.start >= before {
                break;
            }
            let ExternalDeclaration::Declaration(d) = &ext.node else {
                continue;
            };
            if !is_typedef(&d.node) {
                continue;
            }
            let words = specifier_words(&d.node.specifiers);
            for decl in &d.node.declarators {
                let Some(name) = declarator_name(&decl.node.declarator.node) else {
                    continue;
                };
                let mut extents = Vec::new();
                let mut is_function = false;
                collect_extents(
                    &conv,
                    &decl.node.declarator.node,
                    &mut extents,
                    &mut is_function,
                );
                let pointer = decl
                    .node
                    .declarator
                    .node
                    .derived
                    .iter()
                    .any(|x| matches!(x.node, DerivedDeclarator::Pointer(_)));
                let (base, inner) = t.resolve(&words);
                extents.extend(inner);
                let base = if pointer || is_function { None } else { base };
                t.map.insert(name, (base, extents));
            }
        }
        t
    }

    /// The arithmetic type named by specifier words, and array extents a typedef adds.
    fn resolve(&self, words: &[String]) -> (Option<String>, Vec<Extent>) {
        let mut out = Vec::new();
        let mut extents = Vec::new();
        for w in words {
            match w.as_str() {
                "char" | "short" | "int" | "long" | "float" | "double" | "signed" | "unsigned"
                | "_Bool" => out.push(w.clone()),
                "void" | "<struct>" => return (None, extents),
                name => match self.map.get(name) {
                    Some((Some(base), ext)) => {
                        out.push(base.clone());
                        extents = ext.clone();
                    }
                    _ => return (None, extents),
                },
            }
        }
        if out.is_empty() {
            return (None, extents);
        }
        (Some(normalize_type(&out.join(" "))), extents)
    }
}

/// `long int` → `long`, `unsigned` → `unsigned int`, `signed int` → `int`...
fn normalize_type(t: &str) -> String {
    let words: Vec<&str> = t.split_whitespace().collect();
    let unsigned = words.contains(&"unsigned");
    let longs = words.iter().filter(|w| **w == "long").count();
    let base = if words.contains(&"double") {
        return if longs > 0 {
            "long double".into()
        } else {
            "double".into()
        };
    } else if words.contains(&"float") {
        return "float".into();
    } else if words.contains(&"_Bool") {
        return "_Bool".into();
    } else if words.contains(&"char") {
        if unsigned {
            return "unsigned char".into();
        }
        if words.contains(&"signed") {
            return "signed char".into();
        }
        return "char".into();
    } else if words.contains(&"short") {
        "short"
    } else if longs >= 2 {
        "long long"
    } else if longs == 1 {
        "long"
    } else {
        "int"
    };
    if unsigned {
        format!("unsigned {base}")
    } else {
        base.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_types() {
        assert_eq!(normalize_type("long int"), "long");
        assert_eq!(normalize_type("unsigned"), "unsigned int");
        assert_eq!(
            normalize_type("long long unsigned int"),
            "unsigned long long"
        );
        assert_eq!(normalize_type("double long"), "long double");
        assert!(is_integer_type("unsigned long"));
        assert!(!is_integer_type("double"));
    }
}
