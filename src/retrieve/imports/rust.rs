//! What a Rust file's `use` declarations bring into scope, read from its
//! text: `impl Serialize for Value` in serde_json means serde's `Serialize`
//! because the file says `use serde::ser::{Serialize, Serializer};`, and the
//! pack may define other traits of that name (erased-serde's, typetag's).
//! Only declarations at the start of a line are read; macros that expand to
//! `use` and paths spelled across a `#[cfg]` are not.

use super::Imports;
use crate::chunk::Symbol;

/// The paths an impl block's header writes for `name`: its trait's when
/// it implements a trait of that name, its type's when it is for a type
/// of that name (`impl From<bool> for json::Value`).
pub(super) fn impl_paths(s: &Symbol, name: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    if s.supers.iter().any(|t| t == name) {
        out.extend(trait_path(&s.signature));
    }
    if s.name == name {
        out.extend(self_path(&s.signature));
    }
    out
}

/// The trait of an impl block's header as written, generics aside:
/// `impl<'de> serde::Deserialize<'de> for Value` is `["serde",
/// "Deserialize"]`; `None` for an inherent impl.
fn trait_path(signature: &str) -> Option<Vec<String>> {
    let (written, _) = header(signature)?;
    path_of(written?.trim_start_matches('!'))
}

/// The type of an impl block's header as written, generics aside:
/// `impl<T> From<T> for crate::value::Value` is `["crate", "value",
/// "Value"]`, `impl Formatter<'_>` is `["Formatter"]`.
fn self_path(signature: &str) -> Option<Vec<String>> {
    let (_, written) = header(signature)?;
    let written = written.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut ty = written.split(" where ").next().unwrap_or_default();
    // `&'a mut Walk`, `*const Raw`, `dyn Visit`, `Box<…>` aside.
    ty = ty.trim_start_matches(['&', '*']).trim_start();
    if ty.starts_with('\'') {
        ty = ty.split_once(' ').map_or("", |(_, r)| r);
    }
    for word in ["mut ", "const ", "dyn "] {
        ty = ty.strip_prefix(word).unwrap_or(ty);
    }
    path_of(ty)
}

/// An impl block's header after `impl` and its generic parameters, as the
/// trait (when it implements one) and the type.
fn header(signature: &str) -> Option<(Option<&str>, &str)> {
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
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if !rest[..i].ends_with('-') => depth = depth.saturating_sub(1),
            _ if depth == 0 && rest[i..].starts_with(" for ") => {
                return Some((Some(rest[..i].trim()), rest[i + 5..].trim()));
            }
            _ => {}
        }
    }
    Some((None, rest.trim()))
}

/// A written path's parts, generic arguments aside.
fn path_of(written: &str) -> Option<Vec<String>> {
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

/// Reads the `use` declarations of `text` (a file, or the chunks of it
/// outside its symbols).
pub(super) fn read(text: &str) -> Imports {
    let mut uses = Imports::default();
    let mut rest = text;
    while let Some(at) = find_use(rest) {
        let after = &rest[at..];
        let Some(end) = after.find(';') else { break };
        add_tree(&mut uses, &[], &squeeze(&after[..end]));
        rest = &after[end + 1..];
    }
    uses
}

/// Adds the use tree `tree` ([`squeeze`]d) found under `prefix`.
fn add_tree(uses: &mut Imports, prefix: &[String], tree: &str) {
    let tree = tree.trim_start_matches("::");
    if let Some(open) = tree.find('{') {
        let Some(inner) = tree[open + 1..].strip_suffix('}') else {
            return;
        };
        let mut path = prefix.to_vec();
        path.extend(parts(&tree[..open]));
        for branch in branches(inner) {
            add_tree(uses, &path, branch);
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
            uses.glob(whole);
        }
        // `use serde::ser::{self, Serialize}` binds `ser`.
        Some("self") => {
            whole.pop();
            if let Some(name) = whole.last().cloned() {
                uses.bind(alias.unwrap_or(&name), whole);
            }
        }
        Some(name) if alias != Some("_") => {
            let name = alias.unwrap_or(name).to_string();
            uses.bind(&name, whole);
        }
        _ => {}
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
        let uses = read(text);
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
        // `S` is another name for `Serializer`; `Value as _` names nothing.
        assert_eq!(uses.aliases_of("Serializer").collect::<Vec<_>>(), ["S"]);
        assert_eq!(uses.aliases_of("Serialize").count(), 0);
        assert_eq!(uses.aliases_of("Value").count(), 0);
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

    /// An impl header's type as written, generics, references and bounds
    /// aside.
    #[test]
    fn an_impl_header_names_its_type_path() {
        let of = |s: &str| self_path(s).map(|p| p.join("::"));
        assert_eq!(
            of("impl<T> From<T> for crate::value::Value<T> where T: Into<u8>").as_deref(),
            Some("crate::value::Value")
        );
        assert_eq!(of("impl Formatter<'_>").as_deref(), Some("Formatter"));
        assert_eq!(of("impl dyn Visit").as_deref(), Some("Visit"));
        assert_eq!(
            of("impl<'a> Iterator for &'a mut Walk").as_deref(),
            Some("Walk")
        );
    }
}
