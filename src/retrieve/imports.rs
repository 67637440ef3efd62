//! What a Rust file's `use` declarations bring into scope, read from its
//! text: `impl Serialize for Value` in serde_json means serde's `Serialize`
//! because the file says `use serde::ser::{Serialize, Serializer};`, and the
//! pack may define other traits of that name (erased-serde's, typetag's).
//! Only declarations at the start of a line are read; macros that expand to
//! `use` and paths spelled across a `#[cfg]` are not.

use std::collections::{HashMap, HashSet};

use super::attached::{Owner, unit};
use super::modpath::Places;
use crate::chunk::Chunk;
use crate::sources::Package;

/// The impl blocks in `pool` that implement `owner` (a trait) by its path:
/// in another file, their trait written as a path or a name that the file's
/// `uses` lead, through the places `places` knows, to the owner's file.
/// A path from `crate`, `self` or `super` stays in its own package.
pub(super) fn impls_of(
    owner: &Owner<'_>,
    pool: &[Chunk],
    uses: &HashMap<String, Uses>,
    places: &mut Places<'_>,
    packages: &[Package],
) -> HashSet<String> {
    // The files defining a type of the owner's name: a path leading to
    // several means the one it leads to skipping fewest modules.
    let mut definitions: Vec<&str> = pool
        .iter()
        .filter(|c| !c.is_later_part() && c.lang.as_deref() == Some("rust"))
        .filter(|c| {
            c.symbol.as_ref().is_some_and(|s| {
                s.kind != "impl" && s.name == owner.name && !s.qualified.contains("::")
            })
        })
        .map(|c| c.doc.as_str())
        .collect();
    definitions.dedup();
    let mut out = HashSet::new();
    for c in pool
        .iter()
        .filter(|c| !c.is_later_part() && c.doc != owner.doc)
    {
        let (Some(s), Some(uses)) = (&c.symbol, uses.get(&c.doc)) else {
            continue;
        };
        if s.kind != "impl" || !s.supers.iter().any(|t| t == owner.name) {
            continue;
        }
        let Some(written) = trait_path(&s.signature) else {
            continue;
        };
        let leads = uses.resolve(&written).into_iter().any(|path| {
            let Some((last, leading)) = path.split_last() else {
                return false;
            };
            let relative = leading
                .first()
                .is_some_and(|p| matches!(p.as_str(), "crate" | "self" | "super"));
            if last != owner.name
                || leading.is_empty()
                || (relative && unit(&c.doc, packages) != unit(owner.doc, packages))
            {
                return false;
            }
            let Some(own) = places.skips(leading, owner.doc, true, false) else {
                return false;
            };
            definitions.iter().all(|d| {
                places
                    .skips(leading, d, true, false)
                    .is_none_or(|n| n >= own)
            })
        });
        if leads {
            out.insert(c.id.clone());
        }
    }
    out
}

/// The trait of an impl block's header as written, generics aside:
/// `impl<'de> serde::Deserialize<'de> for Value` is `["serde",
/// "Deserialize"]`; `None` for an inherent impl.
fn trait_path(signature: &str) -> Option<Vec<String>> {
    let header = signature
        .trim_start()
        .strip_prefix("unsafe ")
        .unwrap_or(signature.trim_start());
    let mut rest = header.strip_prefix("impl")?;
    if rest.starts_with('<') {
        rest = &rest[closing(rest)? + 1..];
    }
    // ` for ` outside the trait's generic arguments.
    let mut depth = 0usize;
    let mut end = None;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if !rest[..i].ends_with('-') => depth = depth.saturating_sub(1),
            _ if depth == 0 && rest[i..].starts_with(" for ") => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let written = rest[..end?].trim().trim_start_matches('!');
    let written = written.split('<').next().unwrap_or(written).trim();
    let parts: Vec<String> = parts(written).collect();
    (!parts.is_empty()).then_some(parts)
}

/// The index of the `>` closing the `<` that `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            // The arrow of `Fn() -> T` closes nothing.
            '>' if !text[..i].ends_with('-') => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The names a file's `use` declarations bind, with their paths.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Uses {
    /// Each bound name (the last part, or its `as` alias) with the whole path.
    bound: Vec<(String, Vec<String>)>,
    /// The paths of glob imports (`use serde::ser::*`).
    globs: Vec<Vec<String>>,
}

impl Uses {
    /// Reads the `use` declarations of `text` (a file, or the chunks of it
    /// outside its symbols).
    pub(super) fn read(text: &str) -> Uses {
        let mut uses = Uses::default();
        let mut rest = text;
        while let Some(at) = find_use(rest) {
            let after = &rest[at..];
            let Some(end) = after.find(';') else { break };
            uses.add_tree(&[], &squeeze(&after[..end]));
            rest = &after[end + 1..];
        }
        uses
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

    /// Adds the use tree `tree` ([`squeeze`]d) found under `prefix`.
    fn add_tree(&mut self, prefix: &[String], tree: &str) {
        let tree = tree.trim_start_matches("::");
        if let Some(open) = tree.find('{') {
            let Some(inner) = tree[open + 1..].strip_suffix('}') else {
                return;
            };
            let mut path = prefix.to_vec();
            path.extend(parts(&tree[..open]));
            for branch in branches(inner) {
                self.add_tree(&path, branch);
            }
            return;
        }
        let (path, alias) = match tree.split_once(" as ") {
            Some((p, a)) => (p, Some(a)),
            None => (tree, None),
        };
        let mut whole = prefix.to_vec();
        whole.extend(parts(path));
        match whole.last().map(String::as_str) {
            Some("*") => {
                whole.pop();
                self.globs.push(whole);
            }
            // `use serde::ser::{self, Serialize}` binds `ser`.
            Some("self") => {
                whole.pop();
                if let Some(name) = whole.last().cloned() {
                    self.bound.push((alias.unwrap_or(&name).to_string(), whole));
                }
            }
            Some(name) if alias != Some("_") => {
                let name = alias.unwrap_or(name).to_string();
                self.bound.push((name, whole));
            }
            _ => {}
        }
    }
}

/// Where the next `use` declaration starts in `text`: at a line's start,
/// after any visibility (`pub`, `pub(crate)`).
fn find_use(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let mut body = trimmed;
        if let Some(rest) = body.strip_prefix("pub") {
            body = match rest.strip_prefix('(') {
                Some(inner) => inner.split_once(')').map_or("", |(_, r)| r),
                None => rest,
            }
            .trim_start();
        }
        if let Some(tree) = body.strip_prefix("use ") {
            return Some(at + indent + (trimmed.len() - body.len()) + (body.len() - tree.len()));
        }
        at += line.len();
    }
    None
}

/// A use tree on one line, with a space only between words (`a as b`).
fn squeeze(tree: &str) -> String {
    let words: Vec<&str> = tree.split_whitespace().collect();
    let mut out = String::new();
    for pair in words.windows(2) {
        out.push_str(pair[0]);
        let word = |s: &str, at_end: bool| {
            let c = if at_end {
                s.chars().last()
            } else {
                s.chars().next()
            };
            c.is_some_and(|c| c.is_alphanumeric() || c == '_')
        };
        if word(pair[0], true) && word(pair[1], false) {
            out.push(' ');
        }
    }
    out.push_str(words.last().copied().unwrap_or_default());
    out
}

/// The top-level branches of a `{…}` list's inside.
fn branches(inner: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&inner[start..]);
    out.into_iter().filter(|b| !b.is_empty()).collect()
}

/// `a::b::c` as its parts.
fn parts(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split("::").filter(|p| !p.is_empty()).map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str) -> Vec<String> {
        p.split("::").map(String::from).collect()
    }

    /// Nested lists, `self`, aliases, globs and visibility, one declaration
    /// across lines; a `use` inside a line (a string, a comment) is not one.
    #[test]
    fn use_trees_bind_their_names() {
        let text = "//! uses\nuse std::fmt;\npub(crate) use serde::ser::{\n    self,\n    Serialize, Serializer as S,\n    impls::{Pair, *},\n};\nuse crate::value::Value as _;\n    pub use ::tokio::sync::Mutex;\nlet s = \"use x::y;\";\n";
        let uses = Uses::read(text);
        let bound: Vec<(&str, String)> = uses
            .bound
            .iter()
            .map(|(n, p)| (n.as_str(), p.join("::")))
            .collect();
        assert_eq!(
            bound,
            [
                ("fmt", "std::fmt".to_string()),
                ("ser", "serde::ser".to_string()),
                ("Serialize", "serde::ser::Serialize".to_string()),
                ("S", "serde::ser::Serializer".to_string()),
                ("Pair", "serde::ser::impls::Pair".to_string()),
                ("Mutex", "tokio::sync::Mutex".to_string()),
            ]
        );
        assert_eq!(uses.globs, [path("serde::ser::impls")]);
    }

    /// An impl header's trait as written, generics and bounds aside; an
    /// inherent impl has none.
    #[test]
    fn an_impl_header_names_its_trait_path() {
        let of = |s: &str| trait_path(s).map(|p| p.join("::"));
        assert_eq!(
            of("impl<'de> serde::Deserialize<'de> for Value").as_deref(),
            Some("serde::Deserialize")
        );
        assert_eq!(
            of("unsafe impl<T: Fn() -> u8> Send for Wrap<T>").as_deref(),
            Some("Send")
        );
        assert_eq!(
            of("impl<I> ops::Index<I> for Value where I: Index,").as_deref(),
            Some("ops::Index")
        );
        assert_eq!(of("impl !Sync for Cell").as_deref(), Some("Sync"));
        assert_eq!(of("impl<T> Vec<T>"), None);
        assert_eq!(of("impl Formatter<'_>"), None);
    }

    /// A written path goes through the binding of its first part, stays as
    /// written when that binds nothing, and a bare unbound name tries the
    /// globs.
    #[test]
    fn written_paths_resolve_through_bindings() {
        let uses = Uses::read("use serde::ser;\nuse serde::de::Deserialize;\nuse super::*;\n");
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
        assert!(Uses::default().resolve(&path("Visitor")).is_empty());
    }
}
