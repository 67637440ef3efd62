//! What a type has outside its own node: Rust `impl` blocks, methods declared
//! apart from their type (Go receivers, C++ `Type::method` definitions), and
//! the types that extend or implement it (a trait's impl blocks, a Java
//! interface's classes, a Python base class's subclasses). `ctx symbol Walk`
//! shows the struct, whose text names none of its methods; listing where they
//! are lets an agent ask for the right one next instead of reading the file's
//! outline or grepping for `implements`.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::candidates::canon;
use super::file_outline::outline_line;
use super::implicit;
use super::imports::{self, Imports};
use super::modpath::Places;
use super::reading_order;
use crate::catalog::Catalog;
use crate::chunk::code::super_name;
use crate::chunk::{Chunk, Symbol};
use crate::error::Result;
use crate::index::packages;
use crate::sources::Package;

/// Method names listed on an impl block's line before the rest are counted.
const NAMES_SHOWN: usize = 8;

/// A block or method of the type, defined outside the type's own node.
#[derive(Debug, Clone, Serialize)]
pub struct Attached {
    /// Chunk ID of its (first) chunk.
    pub id: String,
    /// `impl Iterator for Walk` for an impl block, the qualified name
    /// otherwise: what `symbol` takes to show it.
    pub symbol: String,
    /// Document path.
    pub doc: String,
    /// Its lines.
    pub lines: [usize; 2],
    /// How it is listed: the impl header or subtype's declaration and its
    /// methods' names (`impl Walk { new, skip_entry }`), or the method's
    /// signature.
    pub line: String,
    /// What it is to the type.
    pub relation: Relation,
}

impl Attached {
    /// Its lines, after its document when that is not `home` (the owner's):
    /// `15-28`, or `archive/zip/reader.go:15-28` for an implementor elsewhere.
    pub fn place(&self, home: &str) -> String {
        let [a, b] = self.lines;
        if self.doc == home {
            format!("{a}-{b}")
        } else {
            format!("{}:{a}-{b}", self.doc)
        }
    }

    /// Its line in a list under the owner's window: `[ID] place  line`.
    pub fn entry(&self, home: &str) -> String {
        format!("[{}] {}  {}\n", self.id, self.place(home), self.line)
    }
}

/// How an [`Attached`] entry relates to the type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// An impl block of the type, or one implementing the trait.
    Impl,
    /// A method of the type defined outside it.
    Method,
    /// A type that extends or implements it.
    Subtype,
}

/// What the list left out for the budget.
#[derive(Debug, Clone, Serialize)]
pub struct MoreAttached {
    /// How many entries.
    pub count: usize,
    /// The budget that shows the window and the whole list.
    pub budget_needed: usize,
}

/// The type a window shows, as [`attached_to`] needs it.
pub struct Owner<'a> {
    /// Its bare name (`Walk`).
    pub name: &'a str,
    /// Its qualified name (`Walk`, `walk.Walk`).
    pub qualified: &'a str,
    /// Its kind: a trait's list is the impl blocks that implement it.
    pub kind: &'a str,
    /// Its document.
    pub doc: &'a str,
    /// Its own lines.
    pub lines: [usize; 2],
}

/// The line above `list`, as a text answer prints it.
pub fn heading(owner: &str, list: &[Attached]) -> String {
    let subtypes = list.iter().any(|a| a.relation == Relation::Subtype);
    let own = list.iter().any(|a| a.relation != Relation::Subtype);
    match (own, subtypes) {
        (true, true) => format!("{owner} is also implemented in, and extended by:\n"),
        (false, true) => format!("{owner} is extended or implemented by:\n"),
        _ => format!("{owner} is also implemented in:\n"),
    }
}

impl MoreAttached {
    /// "2 more impl blocks, methods or subtypes of Walk need BUDGET 412",
    /// with the way the caller names a budget (`--budget`, `"budget":`).
    pub fn describe(&self, owner: &str, budget: &str) -> String {
        let more = super::counted(
            self.count,
            "more impl block, method or subtype",
            "more impl blocks, methods or subtypes",
        );
        let needs = super::needs(self.count);
        format!("{more} of {owner} {needs} {budget} {}", self.budget_needed)
    }
}

/// The impl blocks and the methods of `owner` found in `pool` (chunks whose
/// symbol mentions its name), and the impl blocks and types that name it as
/// a supertype, in document and line order. Code of a same-named type in
/// another file is not the owner's: other files count when `pool` defines
/// the name once, or when they are in the owner's package (see [`unit`])
/// and the package defines it once (serde_json's `Value` has its impl
/// blocks in five files, toml and toml_edit their own `Value`).
///
/// An impl block whose file's `use` declarations lead its trait's name to
/// the owner counts wherever it is (`imported`, by chunk ID).
pub fn attached_to(
    owner: &Owner<'_>,
    pool: &[Chunk],
    packages: &[Package],
    imported: &HashSet<String>,
) -> Vec<Attached> {
    let first_parts = || {
        pool.iter()
            .filter(|c| !c.is_later_part())
            .filter_map(|c| c.symbol.as_ref().map(|s| (c, s)))
    };
    let defines = |s: &Symbol| s.kind != "impl" && s.name == owner.name && !is_member(&s.qualified);
    let definitions: Vec<&str> = first_parts()
        .filter(|(_, s)| defines(s))
        .map(|(c, _)| c.doc.as_str())
        .collect();
    let home = unit(owner.doc, packages);
    let home_defines_once = definitions
        .iter()
        .filter(|d| unit(d, packages) == home)
        .count()
        <= 1;
    let in_scope = |c: &Chunk| {
        c.doc == owner.doc
            || definitions.len() <= 1
            || (home_defines_once && unit(&c.doc, packages) == home)
            || imported.contains(&c.id)
    };
    let extends = |s: &Symbol| s.supers.iter().any(|t| super_name(t) == owner.name);
    let is_owner = |c: &Chunk, at: [usize; 2]| c.doc == owner.doc && at == owner.lines;
    // A Go supertype written with its package (`io.Reader`) names the owner
    // wherever it is, when the package is the owner's.
    let names_owner = |c: &Chunk, t: &str| match t.rsplit_once('.') {
        Some((package, name)) => {
            name == owner.name && package == implicit::package_name(implicit::dir(owner.doc))
        }
        None => t == owner.name && in_scope(c),
    };
    let impls: Vec<(&Chunk, [usize; 2])> = first_parts()
        .filter(|(c, s)| s.kind == "impl" && (s.name == owner.name || extends(s)) && in_scope(c))
        .map(|(c, s)| (c, s.lines.unwrap_or(c.lines)))
        .collect();
    let inside_impl = |c: &Chunk, at: [usize; 2]| {
        impls
            .iter()
            .any(|(i, l)| i.doc == c.doc && l[0] <= at[0] && at[1] <= l[1])
    };
    let own = canon(owner.qualified);
    let mut out = Vec::new();
    // The names of the methods inside a block or type, once each though
    // `#[cfg]` variants define one twice.
    let methods = |c: &Chunk, s: &Symbol, at: [usize; 2]| {
        let mut seen = HashSet::new();
        first_parts()
            .filter(|(m, ms)| {
                let ml = ms.lines.unwrap_or(m.lines);
                m.doc == c.doc
                    && ms.kind != "impl"
                    && at[0] < ml[0]
                    && ml[1] <= at[1]
                    && container(&ms.qualified) == canon(&s.qualified)
            })
            .map(|(_, ms)| ms.name.as_str())
            .filter(|n| seen.insert(*n))
            .collect::<Vec<&str>>()
    };
    for (c, s) in first_parts() {
        let at = s.lines.unwrap_or(c.lines);
        if s.kind == "impl" {
            if !impls.iter().any(|(i, _)| i.id == c.id) {
                continue;
            }
            let header = one_line(&s.signature, || format!("impl {}", s.qualified));
            out.push(Attached {
                id: c.id.clone(),
                line: impl_line(&header, &methods(c, s, at)),
                symbol: header,
                doc: c.doc.clone(),
                lines: at,
                relation: Relation::Impl,
            });
            continue;
        }
        if s.supers.iter().any(|t| names_owner(c, t)) && !is_owner(c, at) {
            out.push(Attached {
                id: c.id.clone(),
                line: impl_line(&declaration(s), &methods(c, s, at)),
                symbol: s.qualified.clone(),
                doc: c.doc.clone(),
                lines: at,
                relation: Relation::Subtype,
            });
            continue;
        }
        let inside_owner = c.doc == owner.doc && owner.lines[0] <= at[0] && at[1] <= owner.lines[1];
        if container(&s.qualified) == own && in_scope(c) && !inside_owner && !inside_impl(c, at) {
            out.push(Attached {
                id: c.id.clone(),
                symbol: s.qualified.clone(),
                doc: c.doc.clone(),
                lines: at,
                line: outline_line(c).trim_start().to_string(),
                relation: Relation::Method,
            });
        }
    }
    out
}

/// Everything listed under the window of `owner` (whose symbol is `symbol`):
/// [`attached_to`] over `pool` (the chunks whose symbol mentions its name)
/// and the chunks [`with_members`] adds, and a Go interface's implicit
/// implementors: the owner's file first, then sources before tests,
/// benches, examples and fixtures, each in document and line order.
/// `named` gives the IDs of the symbol chunks a name key names.
/// `root` is the names the project root goes by.
pub fn collect(
    catalog: &Catalog,
    named: &dyn Fn(&str) -> Result<Vec<String>>,
    root: Vec<String>,
    owner: &Owner<'_>,
    symbol: Option<&Symbol>,
    pool: Vec<Chunk>,
) -> Result<Vec<Attached>> {
    let (pool, uses) = with_members(catalog, owner.name, pool)?;
    let packages = catalog.packages()?;
    let mut places = Places::new(&packages, root);
    let imported = imports::leading_to(owner, &pool, &uses, &mut places, &packages);
    let mut list = attached_to(owner, &pool, &packages, &imported);
    if let Some(s) = symbol.filter(|s| s.kind == "interface") {
        for found in super::implicit::implementors(catalog, named, s, owner.doc)? {
            if !list.iter().any(|a| a.id == found.id) {
                list.push(found);
            }
        }
    }
    // The owner's own file first: its inherent impl blocks are what is
    // most often wanted, and they name no path.
    list.sort_by(|a, b| {
        (a.doc != owner.doc, reading_order(&a.doc, a.lines[0]))
            .cmp(&(b.doc != owner.doc, reading_order(&b.doc, b.lines[0])))
    });
    Ok(list)
}

/// `pool` (the chunks whose symbol mentions `name`) and every code chunk of
/// the files holding an impl block or a subtype of `name` among them: a
/// block's methods seldom mention the type, and the list names them. With
/// it, what the imports of those files bind (see [`Imports`]).
fn with_members(
    catalog: &Catalog,
    name: &str,
    mut pool: Vec<Chunk>,
) -> Result<(Vec<Chunk>, HashMap<String, Imports>)> {
    let mut docs: Vec<String> = pool
        .iter()
        .filter(|c| {
            c.symbol.as_ref().is_some_and(|s| {
                (s.kind == "impl" && s.name == name)
                    || s.supers.iter().any(|t| super_name(t) == name)
            })
        })
        .map(|c| c.doc.clone())
        .collect();
    docs.dedup();
    let mut known: HashSet<String> = pool.iter().map(|c| c.id.clone()).collect();
    let mut uses = HashMap::new();
    for doc in docs {
        // Declarations between the symbols: an import inside a function or
        // module is not the file's.
        let mut between = String::new();
        let mut lang = None;
        catalog.for_each_chunk_of(&doc, |c| {
            if c.symbol.is_some() {
                if known.insert(c.id.clone()) {
                    pool.push(c.clone());
                }
            } else {
                between.push_str(&c.text);
                between.push('\n');
            }
            if lang.is_none() {
                lang = c.lang.clone();
            }
            Ok(())
        })?;
        if let Some(imports) = lang.and_then(|l| Imports::read(&l, &between, &doc)) {
            uses.insert(doc, imports);
        }
    }
    Ok((pool, uses))
}

/// A list of entries with what its first `k` entries cost under the
/// heading they get, for each `k`: priced once, then cut to a budget.
pub struct Priced {
    list: Vec<Attached>,
    costs: Vec<usize>,
}

impl Priced {
    /// Prices `list`, listed under `owner`'s window; `home` is the owner's
    /// document, whose entries are shown without it. Each prefix is
    /// estimated as one text (estimates of pieces, each rounded, would not
    /// add up to the text's); the heading changes at most twice along it.
    pub fn new(list: Vec<Attached>, owner: &str, home: &str) -> Priced {
        let entries: Vec<String> = list.iter().map(|a| a.entry(home)).collect();
        let mut costs = vec![0];
        let mut text = (String::new(), crate::tokens::Running::default());
        for k in 0..list.len() {
            let top = heading(owner, &list[..=k]);
            if text.0 != top {
                text.1 = crate::tokens::Running::default();
                text.1.push(&top);
                entries[..k].iter().for_each(|e| text.1.push(e));
                text.0 = top;
            }
            text.1.push(&entries[k]);
            costs.push(text.1.value());
        }
        Priced { list, costs }
    }

    /// What the whole list costs.
    pub fn whole(&self) -> usize {
        self.costs[self.list.len()]
    }

    /// Keeps the entries that fit in `budget` tokens after the window's
    /// `used_before`; the rest are counted, with the budget that shows them
    /// and the whole window (`window_whole`). Returns what the list costs.
    pub fn fit(
        self,
        budget: usize,
        used_before: usize,
        window_whole: usize,
    ) -> (Vec<Attached>, usize, Option<MoreAttached>) {
        let Priced { mut list, costs } = self;
        if list.is_empty() {
            return (list, 0, None);
        }
        let room = budget.saturating_sub(used_before);
        let shown = (1..costs.len())
            .take_while(|&k| costs[k] <= room)
            .last()
            .unwrap_or(0);
        let more = (shown < list.len()).then(|| MoreAttached {
            count: list.len() - shown,
            budget_needed: window_whole.max(used_before) + costs[list.len()],
        });
        list.truncate(shown);
        (list, costs[shown], more)
    }
}

/// A type's declaration on one line, up to its body: without the `:` of
/// `class Text(Resource):` or the fields of a Go `type Locked struct { … }`,
/// whose node has no body.
pub(super) fn declaration(s: &Symbol) -> String {
    one_line(&s.signature, || s.qualified.clone())
        .split('{')
        .next()
        .unwrap_or_default()
        .trim_end_matches([':', '{'])
        .trim_end()
        .to_string()
}

/// A signature on one line, or `fallback` when there is none.
fn one_line(signature: &str, fallback: impl FnOnce() -> String) -> String {
    let line = signature.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.is_empty() { fallback() } else { line }
}

/// `impl Walk { new, skip_entry }` (or a subtype's declaration and its
/// methods), its names cut after [`NAMES_SHOWN`].
pub(super) fn impl_line(header: &str, names: &[&str]) -> String {
    if names.is_empty() {
        return header.to_string();
    }
    let mut shown = names
        .iter()
        .take(NAMES_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_SHOWN {
        shown.push_str(&format!(", … {} more", names.len() - NAMES_SHOWN));
    }
    format!("{header} {{ {shown} }}")
}

/// `Walk` of `Walk::next` (or `Walk.next`); empty for a bare name.
fn container(qualified: &str) -> String {
    let q = canon(qualified);
    q.rsplit_once('.')
        .map(|(c, _)| c.to_string())
        .unwrap_or_default()
}

/// Where a name defined once means the same thing throughout: a Go file's
/// directory (its package), otherwise the package holding the file (the
/// root's when none does).
pub(super) fn unit<'a>(doc: &'a str, packages: &'a [Package]) -> &'a str {
    if doc.ends_with(".go") {
        return implicit::dir(doc);
    }
    packages::holding(doc, packages).map_or("", |p| p.dir.as_str())
}

fn is_member(qualified: &str) -> bool {
    !container(qualified).is_empty()
}
