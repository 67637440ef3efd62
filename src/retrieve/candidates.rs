//! The symbols a name stands for in a pool of chunks: exact or
//! case-insensitive, impl blocks only when asked or when nothing else has the
//! name, the parts of a split symbol joined, copies at other places and
//! declarations folded into the definition they declare.

use super::Duplicate;
use super::fold::{counterpart, near_duplicate};
use super::implicit::{dir, package_name};
use crate::chunk::code::language_by_name;
use crate::chunk::{Chunk, DeclaredMember, Symbol};

/// One symbol: its chunks (several when it was split into parts).
pub(super) struct Found {
    pub(super) qualified: String,
    pub(super) kind: String,
    /// Lines of all its parts.
    pub(super) lines: [usize; 2],
    /// Its first chunk (ID, document), holding the text of all its parts.
    pub(super) whole: Chunk,
    /// The same code at other places (a package's `dist/cjs` and `dist/esm`).
    pub(super) copies: Vec<Duplicate>,
    /// Declarations of it elsewhere (a header's prototype, a `.d.ts` stub).
    pub(super) declarations: Vec<Duplicate>,
    /// For a member declared in its container's chunk (a required method, a
    /// prototype, a field), that container: `trait ProgressTracker`.
    pub(super) declared_in: Option<String>,
}

impl Found {
    /// Its qualified name, or for an impl block its header
    /// (`impl Iterator for Walk`), which tells it from the type's other blocks.
    pub(super) fn shown_name(&self) -> String {
        match (self.kind.as_str(), &self.whole.symbol) {
            ("impl", Some(sym)) if !sym.signature.is_empty() => sym.signature.clone(),
            _ => self.qualified.clone(),
        }
    }
}

/// Folds each candidate that copies an earlier one into it (search's rule
/// for copies, on whole texts: a split symbol's two copies can be cut at
/// different lines): copies are one answer, not a choice to make.
fn fold_copies(found: Vec<Found>) -> Vec<Found> {
    let mut kept: Vec<Found> = Vec::new();
    for f in found {
        match kept.iter_mut().find(|k| near_duplicate(&k.whole, &f.whole)) {
            Some(k) => k.copies.push(Duplicate {
                id: f.whole.id,
                doc: f.whole.doc,
                lines: f.lines,
            }),
            None => kept.push(f),
        }
    }
    kept
}

/// A qualified name with `.` for `::`, so both spellings meet.
pub(super) fn canon(s: &str) -> String {
    s.replace("::", ".")
}

/// Which kinds of symbol a name selects.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kinds<'a> {
    /// Definitions; impl blocks only when the name has no definition.
    Definitions,
    /// Impl blocks only: of this trait when given, else the inherent ones
    /// (every impl block when the type has none).
    Impls(Option<&'a str>),
    /// Every kind (a chunk asked for by ID).
    All,
}

pub(super) fn candidates(
    chunks: &[Chunk],
    name: &str,
    file: Option<&str>,
    fold: bool,
    kinds: Kinds<'_>,
) -> Vec<Found> {
    let want = canon(name);
    let eq = |a: &str| {
        if fold {
            a.eq_ignore_ascii_case(&want)
        } else {
            a == want
        }
    };
    // Go code names another package's symbol with the package's name
    // (`io.Reader`, `http.ServeMux.Handle`): the directory's, by convention.
    let in_go_package = |c: &Chunk, q: &str| {
        c.lang.as_deref() == Some("go")
            && want.split_once('.').is_some_and(|(package, rest)| {
                let named = package_name(dir(&c.doc));
                if fold {
                    named.eq_ignore_ascii_case(package) && rest.eq_ignore_ascii_case(q)
                } else {
                    named == package && rest == q
                }
            })
    };
    // `UnitTest::Run` names `testing::UnitTest::Run`: the namespaces a C++
    // (or TypeScript) name sits in are rarely written.
    let in_namespace = |q: &str| {
        let at = q.len().saturating_sub(want.len());
        want.contains('.')
            && at > 0
            && q.is_char_boundary(at)
            && q[..at].ends_with('.')
            && eq(&q[at..])
    };
    let mut found: Vec<Found> = Vec::new();
    for c in chunks {
        let Some(sym) = &c.symbol else {
            continue;
        };
        let q = canon(&sym.qualified);
        if !(eq(&q) || eq(&sym.name) || in_go_package(c, &q) || in_namespace(&q)) {
            continue;
        }
        if let Kinds::Impls(of) = kinds {
            // The trait by name (the block's supertype, as the list under a
            // trait's window reads it); generic arguments, when given, must
            // be the header's.
            let of_trait = |t: &str| {
                let header = sym
                    .signature
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                sym.supers
                    .first()
                    .map(|s| crate::chunk::code::super_name(s))
                    == Some(crate::chunk::code::type_name(t).as_str())
                    && (!t.contains('<') || header.contains(&format!("{t} for ")))
            };
            if sym.kind != "impl" || of.is_some_and(|t| !of_trait(t)) {
                continue;
            }
        }
        if let Some(f) = file
            && !in_place(&c.doc, f)
        {
            continue;
        }
        // Only the parts of one split symbol are joined: a type and its
        // `impl` blocks share a name but are separate nodes, with other code
        // between them.
        match found.iter_mut().find(|x| {
            x.whole.doc == c.doc
                && x.qualified == sym.qualified
                && x.kind == sym.kind
                && x.whole.part.is_some()
                && c.part.is_some()
                && c.lines[0] <= x.lines[1] + 1
        }) {
            Some(x) => {
                x.lines[0] = x.lines[0].min(c.lines[0]);
                x.lines[1] = x.lines[1].max(c.lines[1]);
                x.whole.text.push_str(&c.text);
            }
            None => found.push(Found {
                qualified: sym.qualified.clone(),
                kind: sym.kind.clone(),
                lines: c.lines,
                whole: c.clone(),
                copies: Vec::new(),
                declarations: Vec::new(),
                declared_in: None,
            }),
        }
    }
    // A member declared in its container's chunk answers only when no
    // definition does: `ProgressTracker::tick` of a trait, `Config::timeout`.
    let last = want.rsplit('.').next().unwrap_or(&want);
    let declared = declared_named(chunks, last);
    if found.is_empty() && matches!(kinds, Kinds::Definitions) {
        for (c, member, qualified) in declared {
            if file.is_some_and(|f| !in_place(&c.doc, f)) {
                continue;
            }
            let q = canon(&qualified);
            if !(eq(&q) || eq(&member.name) || in_go_package(c, &q) || in_namespace(&q)) {
                continue;
            }
            // Overloads of one signature are one answer.
            if let Some(f) = found
                .iter_mut()
                .find(|f| f.whole.id == c.id && f.qualified == qualified)
            {
                f.lines = [
                    f.lines[0].min(member.lines[0]),
                    f.lines[1].max(member.lines[1]),
                ];
                continue;
            }
            let container = c
                .symbol
                .as_ref()
                .map(|s| format!("{} {}", s.kind, s.qualified));
            found.push(Found {
                qualified,
                kind: member.kind.clone(),
                lines: member.lines,
                whole: c.clone(),
                copies: Vec::new(),
                declarations: Vec::new(),
                declared_in: container,
            });
        }
        return fold_copies(found);
    }
    // `symbol Walk` means the type, not an `impl Walk {` header, whose
    // methods are symbols of their own; impl blocks answer only when no
    // definition of the name is indexed.
    if matches!(kinds, Kinds::Definitions) && found.iter().any(|f| f.kind != "impl") {
        found.retain(|f| f.kind != "impl");
    }
    // `impl Walk` is written as the inherent block is: the trait impls
    // (`impl Iterator for Walk`) answer only when the type has none.
    let inherent = |f: &Found| f.whole.symbol.as_ref().is_none_or(|s| s.supers.is_empty());
    if matches!(kinds, Kinds::Impls(None)) && found.iter().any(inherent) {
        found.retain(inherent);
    }
    for f in &mut found {
        // The node's own lines when the pack has them (a container's whole
        // body, a last member without its container's `}`); packs built
        // before they were stored fall back to the chunk's.
        f.lines = match f.whole.symbol.as_ref().and_then(|s| s.lines) {
            Some(lines) => lines,
            None => without_blank_ends(f.lines, &f.whole.text),
        };
    }
    // A constructor named after its class (Java, C++) is not a second
    // answer to the class's name.
    let containers: Vec<String> = found
        .iter()
        .map(|f| {
            format!(
                "{}.{}",
                canon(&f.qualified),
                f.whole.symbol.as_ref().map_or("", |s| s.name.as_str())
            )
        })
        .collect();
    found.retain(|f| !containers.contains(&canon(&f.qualified)) || canon(&f.qualified) == want);
    // A C++ method defined outside its class is declared in the class's
    // chunk: that prototype is named with the definition.
    for f in &mut found {
        for (c, member, qualified) in &declared {
            if canon(qualified) == canon(&f.qualified)
                && !(c.doc == f.whole.doc && member.lines == f.lines)
            {
                f.declarations.push(Duplicate {
                    id: c.id.clone(),
                    doc: c.doc.clone(),
                    lines: member.lines,
                });
            }
        }
    }
    fold_declarations(fold_copies(found))
}

/// The members declared in a container's chunk among `chunks` whose name is
/// `name` (ASCII case aside), with the chunk and the member's qualified name
/// (`Filter::accept`).
fn declared_named<'c>(
    chunks: &'c [Chunk],
    name: &str,
) -> Vec<(&'c Chunk, &'c DeclaredMember, String)> {
    let mut out = Vec::new();
    for c in chunks {
        let Some(sym) = &c.symbol else { continue };
        for m in sym
            .declared
            .iter()
            .filter(|m| m.name.eq_ignore_ascii_case(name))
        {
            out.push((c, m, member_qualified(c, sym, m)));
        }
    }
    out
}

/// The qualified name of `m`, a member `container` (the symbol of `c`)
/// declares, in its language's spelling: `Filter::accept`, `Dialer.Timeout`.
/// A member of the container's own kind is another name of its declaration
/// (`b` of Go's `var a, b = 1, 2`, of C's `int a, b;`): it sits beside the
/// first name, not inside it.
pub(super) fn member_qualified(c: &Chunk, container: &Symbol, m: &DeclaredMember) -> String {
    let separator = c
        .lang
        .as_deref()
        .and_then(language_by_name)
        .map_or(".", |lang| lang.separator);
    // A sibling of its own kind (`var b` of `var a, b`) is named beside the
    // container, a member inside it.
    let parent = if m.kind == container.kind {
        container
            .qualified
            .rsplit_once(separator)
            .map(|(parent, _)| parent)
    } else {
        Some(container.qualified.as_str())
    };
    match parent {
        Some(parent) => format!("{parent}{separator}{}", m.name),
        None => m.name.clone(),
    }
}

/// Folds each declaration into the one definition it declares, found by
/// qualified name (the one in a file of the same stem, `errors.d.ts` for
/// `errors.js`, when there are several): a prototype and its body are one
/// answer. A declaration that matches no definition, or several equally, is
/// a candidate of its own.
fn fold_declarations(found: Vec<Found>) -> Vec<Found> {
    let is_decl = |f: &Found| f.whole.symbol.as_ref().is_some_and(|s| s.decl);
    // For each declaration, the index of the definition it folds into.
    let targets: Vec<Option<usize>> = found
        .iter()
        .map(|d| {
            if !is_decl(d) {
                return None;
            }
            let defs: Vec<usize> = (0..found.len())
                .filter(|&k| {
                    !is_decl(&found[k]) && canon(&found[k].qualified) == canon(&d.qualified)
                })
                .collect();
            match defs.as_slice() {
                [one] => Some(*one),
                _ => {
                    let mut near = defs
                        .iter()
                        .filter(|&&k| counterpart(&found[k].whole, &d.whole));
                    match (near.next(), near.next()) {
                        (Some(&k), None) => Some(k),
                        _ => None,
                    }
                }
            }
        })
        .collect();
    let mut kept: Vec<Option<Found>> = found.into_iter().map(Some).collect();
    for (index, target) in targets.iter().enumerate() {
        let Some(target) = *target else { continue };
        let Some(d) = kept[index].take() else {
            continue;
        };
        if let Some(def) = kept[target].as_mut() {
            def.declarations.push(Duplicate {
                id: d.whole.id,
                doc: d.whole.doc,
                lines: d.lines,
            });
            def.declarations.extend(d.copies);
        }
    }
    kept.into_iter().flatten().collect()
}

/// A path's file name up to its first dot: `errors` of `esm/errors.d.ts`.
pub(super) fn stem(doc: &str) -> &str {
    let name = doc.rsplit('/').next().unwrap_or(doc);
    name.split('.').next().unwrap_or(name)
}

/// `lines` of a chunk holding `text`, less the blank lines at its ends:
/// chunks tile the file, so a symbol's chunk starts with the gap before it.
fn without_blank_ends(lines: [usize; 2], text: &str) -> [usize; 2] {
    let rows: Vec<&str> = text.split_inclusive('\n').collect();
    let lead = rows.iter().take_while(|l| l.trim().is_empty()).count();
    if lead == rows.len() {
        return lines;
    }
    let trail = rows
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    [
        lines[0] + lead,
        lines[1].saturating_sub(trail).max(lines[0] + lead),
    ]
}

/// Whether document `doc` is the file `place` names (its path in the project
/// or the end of it), or lies in the directory it names (`crates/toml_edit`,
/// `toml_edit/src/`): in a workspace, the member is often all one knows.
pub(super) fn in_place(doc: &str, place: &str) -> bool {
    let place = place.trim_end_matches('/');
    !place.is_empty()
        && (doc == place
            || doc.ends_with(&format!("/{place}"))
            || doc.starts_with(&format!("{place}/"))
            || doc.contains(&format!("/{place}/")))
}
