//! What a file's imports bring into scope, read from its text, so that code
//! naming a type that several files define is tied to the one it means:
//! `impl Serialize for Value` in serde_json is serde's `Serialize` because
//! the file says `use serde::ser::{Serialize, Serializer};`, and a Python
//! `class Text(Resource)` extends the `Resource` its `from pkg.base import
//! Resource` names, not another package's. Rust `use`, Python `import` and
//! `from … import`, Java `import` (and the file's own package) and
//! JavaScript/TypeScript `import`/`require` are read; only declarations
//! outside the file's symbols count, and code that builds them (macros,
//! `importlib`, computed `require`) is not followed.

mod java;
mod python;
mod rust;
mod script;

use std::collections::{HashMap, HashSet};

use super::attached::{Owner, unit};
use super::modpath::Places;
use crate::chunk::Chunk;
use crate::chunk::code::super_name;
use crate::sources::Package;

/// The names a file's imports bind, each with the path it stands for, as
/// places on the way to a file (`["serde", "ser", "Serialize"]`,
/// `["pkg", "base", "Resource"]` for `from .base import Resource` in
/// `pkg/kinds.py`).
#[derive(Debug, Default, PartialEq)]
pub(super) struct Imports {
    /// Each bound name (the last part, or its alias) with the whole path.
    bound: Vec<(String, Vec<String>)>,
    /// Paths whose every name is in scope (`use serde::ser::*`,
    /// `import com.acme.*`, a Java file's own package).
    globs: Vec<Vec<String>>,
}

impl Imports {
    /// Whether imports are read for code in `lang`.
    pub(super) fn reads(lang: &str) -> bool {
        reader(lang).is_some()
    }

    /// The imports of `text` (the chunks of `doc` outside its symbols) in
    /// `lang`; `None` for a language whose imports are not read.
    pub(super) fn read(lang: &str, text: &str, doc: &str) -> Option<Imports> {
        reader(lang).map(|read| read(text, doc))
    }

    fn bind(&mut self, name: &str, path: Vec<String>) {
        if !name.is_empty() && !path.is_empty() {
            self.bound.push((name.to_string(), path));
        }
    }

    fn glob(&mut self, path: Vec<String>) {
        if !path.is_empty() {
            self.globs.push(path);
        }
    }

    /// The other names the file imports `name` as (`Alias` of `use
    /// a::Name as Alias`, `from a import Name as Alias`), `_` aside.
    pub(super) fn aliases_of<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> {
        self.bound
            .iter()
            .filter(move |(alias, path)| {
                alias != name && alias != "_" && path.last().is_some_and(|last| last == name)
            })
            .map(|(alias, _)| alias.as_str())
    }

    /// The paths `written` (a path as code writes it, `["Serialize"]` or
    /// `["ser", "Serialize"]`) may stand for: through the name its first
    /// part binds, as written when it names no binding, and for a bare name
    /// that none binds, under each glob import.
    pub(super) fn resolve(&self, written: &[String]) -> Vec<Vec<String>> {
        let Some((first, rest)) = written.split_first() else {
            return Vec::new();
        };
        let through: Vec<Vec<String>> = self
            .bound
            .iter()
            .filter(|(name, _)| name == first)
            .map(|(_, path)| path.iter().chain(rest).cloned().collect())
            .collect();
        if !through.is_empty() {
            return through;
        }
        if !rest.is_empty() {
            return vec![written.to_vec()];
        }
        self.globs
            .iter()
            .map(|glob| glob.iter().chain([first]).cloned().collect())
            .collect()
    }
}

#[cfg(test)]
impl Imports {
    /// Each bound name with its path joined by `sep`.
    fn bound_joined(&self, sep: &str) -> Vec<(String, String)> {
        self.bound
            .iter()
            .map(|(n, p)| (n.clone(), p.join(sep)))
            .collect()
    }
}

/// Which definition of a name code means by the path it writes for it.
/// A path leads to the owner when, of the files defining the name, the
/// owner's is reached skipping fewest modules (see [`Places::skips`]); a
/// Rust path from `crate`, `self` or `super` stays in its own package.
pub(super) struct Meaning<'a, 'p> {
    owner_doc: &'a str,
    name: &'a str,
    /// The files defining the name in the owner's language family.
    definitions: Vec<&'a str>,
    rust: bool,
    places: &'a mut Places<'p>,
    packages: &'a [Package],
}

impl<'a, 'p> Meaning<'a, 'p> {
    /// The meaning of `name` as defined in `owner_doc`, in `lang`, among
    /// the definitions in `defining` (documents, with their languages).
    pub(super) fn new(
        owner_doc: &'a str,
        name: &'a str,
        lang: &str,
        defining: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
        places: &'a mut Places<'p>,
        packages: &'a [Package],
    ) -> Meaning<'a, 'p> {
        let mut definitions: Vec<&str> = defining
            .into_iter()
            .filter(|(_, l)| same_family(*l, lang))
            .map(|(d, _)| d)
            .collect();
        definitions.sort_unstable();
        definitions.dedup();
        Meaning {
            owner_doc,
            name,
            definitions,
            rust: lang == "rust",
            places,
            packages,
        }
    }

    /// Whether one of the paths `written` in `from` (a document whose
    /// imports are `imports`) leads to the owner.
    pub(super) fn leads(&mut self, from: &str, imports: &Imports, written: &[Vec<String>]) -> bool {
        written.iter().flat_map(|w| imports.resolve(w)).any(|path| {
            let Some((last, leading)) = path.split_last() else {
                return false;
            };
            let relative = leading
                .first()
                .is_some_and(|p| matches!(p.as_str(), "crate" | "self" | "super"));
            let elsewhere = || unit(from, self.packages) != unit(self.owner_doc, self.packages);
            if last != self.name || leading.is_empty() || (self.rust && relative && elsewhere()) {
                return false;
            }
            let Some(own) = self.places.skips(leading, self.owner_doc, self.rust, false) else {
                return false;
            };
            let (places, rust) = (&mut *self.places, self.rust);
            self.definitions.iter().all(|d| {
                places
                    .skips(leading, d, rust, false)
                    .is_none_or(|n| n >= own)
            })
        })
    }
}

/// The chunks of `pool` outside the owner's file that mean `owner` by the
/// path their file's `imports` give its name: an impl block whose trait or
/// type it is, a type extending or implementing it (see [`Meaning`]).
pub(super) fn leading_to(
    owner: &Owner<'_>,
    pool: &[Chunk],
    imports: &HashMap<String, Imports>,
    places: &mut Places<'_>,
    packages: &[Package],
) -> HashSet<String> {
    let Some(lang) = pool
        .iter()
        .find(|c| c.doc == owner.doc)
        .and_then(|c| c.lang.as_deref())
    else {
        return HashSet::new();
    };
    let defining = pool
        .iter()
        .filter(|c| !c.is_later_part())
        .filter(|c| {
            c.symbol.as_ref().is_some_and(|s| {
                s.kind != "impl"
                    && s.name == owner.name
                    && !s.qualified.contains("::")
                    && !s.qualified.contains('.')
            })
        })
        .map(|c| (c.doc.as_str(), c.lang.as_deref()));
    let mut meaning = Meaning::new(owner.doc, owner.name, lang, defining, places, packages);
    let mut out = HashSet::new();
    for c in pool.iter().filter(|c| {
        !c.is_later_part() && c.doc != owner.doc && same_family(c.lang.as_deref(), lang)
    }) {
        let (Some(s), Some(imports)) = (&c.symbol, imports.get(&c.doc)) else {
            continue;
        };
        let written = match meaning.rust {
            true if s.kind == "impl" => rust::impl_paths(s, owner.name),
            true => Vec::new(),
            false if s.supers.iter().any(|t| super_name(t) == owner.name) => {
                written_supers(&s.signature, owner.name)
            }
            false => Vec::new(),
        };
        if meaning.leads(&c.doc, imports, &written) {
            out.insert(c.id.clone());
        }
    }
    out
}

/// The paths a line of code writes ending in `name`, whole word:
/// `serde_json::Value` and `Value` of `let v: serde_json::Value = Value::Null;`,
/// `email.message.Message` in Python.
pub(super) fn written_in(line: &str, name: &str) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = Vec::new();
    for (at, _) in line.match_indices(name) {
        let end = at + name.len();
        let whole = !line[..at].ends_with(ident) && !line[end..].starts_with(ident);
        if !whole {
            continue;
        }
        let mut parts = vec![name.to_string()];
        let mut start = at;
        loop {
            let before = &line[..start];
            let Some(sep) = ["::", "."].into_iter().find(|s| before.ends_with(s)) else {
                break;
            };
            let head = &before[..before.len() - sep.len()];
            let from = head.trim_end_matches(ident).len();
            if from == head.len() {
                break;
            }
            parts.insert(0, head[from..].to_string());
            start = from;
        }
        out.push(parts);
    }
    out
}

/// The import reader of `lang`, given a file's text outside its symbols
/// and its path.
fn reader(lang: &str) -> Option<fn(&str, &str) -> Imports> {
    match lang {
        "rust" => Some(|text, _| rust::read(text)),
        "python" => Some(python::read),
        "java" => Some(java::read),
        "javascript" | "typescript" | "tsx" => Some(script::read),
        _ => None,
    }
}

/// Whether code in `lang` can name a type written in `owner` (TypeScript
/// extends JavaScript classes and the other way round).
fn same_family(lang: Option<&str>, owner: &str) -> bool {
    fn family(l: &str) -> &str {
        match l {
            "javascript" | "typescript" | "tsx" => "script",
            other => other,
        }
    }
    lang.is_some_and(|l| family(l) == family(owner))
}

/// The paths a type's declaration (`class Text(base.Resource):`, `class
/// Store extends io.Base<T> implements Readable`) writes for its
/// supertypes named `name`, without generic arguments; the declared name
/// itself is not one.
fn written_supers(signature: &str, name: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut previous = "";
    let mut depth = 0usize;
    let is_part = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    let mut rest = signature;
    while let Some(start) = rest.find(|c: char| is_part(c) || c == '<' || c == '>') {
        let tail = &rest[start..];
        if let Some(after) = tail.strip_prefix('<') {
            depth += 1;
            rest = after;
            continue;
        }
        if let Some(after) = tail.strip_prefix('>') {
            depth = depth.saturating_sub(1);
            rest = after;
            continue;
        }
        let end = tail.find(|c: char| !is_part(c)).unwrap_or(tail.len());
        let token = &tail[..end];
        rest = &tail[end..];
        let declares = matches!(
            previous,
            "class" | "interface" | "enum" | "record" | "struct" | "trait" | "type"
        );
        let parts: Vec<String> = token
            .split('.')
            .filter(|p| !p.is_empty())
            .map(String::from)
            .collect();
        if depth == 0 && !declares && parts.last().is_some_and(|l| l == name) {
            out.push(parts);
        }
        previous = token;
    }
    out
}

/// `a/b/c.py` as the directories holding it: `["a", "b"]`.
fn dirs_of(doc: &str) -> Vec<String> {
    let mut dirs: Vec<String> = doc.split('/').map(String::from).collect();
    dirs.pop();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<String> {
        p.split("::").map(String::from).collect()
    }

    /// A written path goes through the binding of its first part, stays as
    /// written when that binds nothing, and a bare unbound name tries the
    /// globs.
    #[test]
    fn written_paths_resolve_through_bindings() {
        let uses = rust::read("use serde::ser;\nuse serde::de::Deserialize;\nuse super::*;\n");
        assert_eq!(
            uses.resolve(&path("ser::Serialize")),
            [path("serde::ser::Serialize")]
        );
        assert_eq!(
            uses.resolve(&path("Deserialize")),
            [path("serde::de::Deserialize")]
        );
        assert_eq!(
            uses.resolve(&path("serde::Serialize")),
            [path("serde::Serialize")]
        );
        assert_eq!(uses.resolve(&path("Visitor")), [path("super::Visitor")]);
        assert!(Imports::default().resolve(&path("Visitor")).is_empty());
    }

    /// The supertypes a declaration writes with the name, qualified as
    /// written, generic arguments and the declared name aside.
    #[test]
    fn a_declaration_writes_its_supertypes() {
        let of = |s: &str, n: &str| {
            written_supers(s, n)
                .into_iter()
                .map(|p| p.join("."))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            of("class Text(base.Resource, metaclass=Meta):", "Resource"),
            ["base.Resource"]
        );
        assert_eq!(
            of("class Resource(pkg.base.Resource):", "Resource"),
            ["pkg.base.Resource"]
        );
        assert_eq!(
            of(
                "export class Store<T extends Base> extends lib.Base<Map<K, V>> implements Base",
                "Base"
            ),
            ["lib.Base", "Base"]
        );
        assert_eq!(
            of("public class Audit extends Base<List<Base>>", "Base"),
            ["Base"]
        );
        assert!(of("class Base:", "Base").is_empty());
    }

    /// A line's uses of a name with the paths written before them.
    #[test]
    fn a_line_writes_paths_to_a_name() {
        let of = |line: &str, name: &str| {
            written_in(line, name)
                .into_iter()
                .map(|p| p.join("."))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            of("let v: serde_json::Value = Value::Null;", "Value"),
            ["serde_json.Value", "Value"]
        );
        assert_eq!(
            of("m = email.message.Message(); MyMessage()", "Message"),
            ["email.message.Message"]
        );
        assert!(of("ValueKind", "Value").is_empty());
    }
}
