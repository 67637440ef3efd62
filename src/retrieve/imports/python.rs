//! Python's `import a.b [as c]` and `from [.]a import x [as y]`, `(…)` and
//! `*`, at any indentation (imports under `try:` or `if TYPE_CHECKING:`
//! count); a relative module is read from the file's directory.

use super::{Imports, dirs_of};

/// Reads the import statements of `text`, the code of `doc` outside its
/// symbols.
pub(super) fn read(text: &str, doc: &str) -> Imports {
    let mut imports = Imports::default();
    for statement in statements(text) {
        if let Some(rest) = statement.strip_prefix("import ") {
            for item in rest.split(',') {
                let (module, alias) = split_alias(item);
                let parts = dotted(module);
                match (alias, parts.first()) {
                    (Some(alias), _) => imports.bind(alias, parts),
                    // `import a.b` binds `a`; `a.b.Base` is written whole.
                    (None, Some(first)) => imports.bind(&first.clone(), vec![first.clone()]),
                    (None, None) => {}
                }
            }
        } else if let Some(rest) = statement.strip_prefix("from ") {
            let Some((module, names)) = rest.split_once(" import ") else {
                continue;
            };
            let Some(base) = module_path(module.trim(), doc) else {
                continue;
            };
            let names = names.trim().trim_start_matches('(').trim_end_matches(')');
            for item in names.split(',') {
                match split_alias(item) {
                    ("*", _) => imports.glob(base.clone()),
                    ("", _) => {}
                    (name, alias) => {
                        let mut path = base.clone();
                        path.push(name.to_string());
                        imports.bind(alias.unwrap_or(name), path);
                    }
                }
            }
        }
    }
    imports
}

/// The module `from` names, as places: `pkg.base` is `["pkg", "base"]`;
/// `.base` in `pkg/kinds.py` is `["pkg", "base"]`, `..` goes up one more.
fn module_path(module: &str, doc: &str) -> Option<Vec<String>> {
    let rest = module.trim_start_matches('.');
    let dots = module.len() - rest.len();
    if dots == 0 {
        return Some(dotted(rest));
    }
    let mut dirs = dirs_of(doc);
    for _ in 1..dots {
        dirs.pop()?;
    }
    dirs.extend(dotted(rest));
    (!dirs.is_empty()).then_some(dirs)
}

/// `a.b.c` as its parts.
fn dotted(module: &str) -> Vec<String> {
    module
        .split('.')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

/// `name as alias` as its name and alias.
fn split_alias(item: &str) -> (&str, Option<&str>) {
    let item = item.trim();
    match item.split_once(" as ") {
        Some((name, alias)) => (name.trim(), Some(alias.trim())),
        None => (item, None),
    }
}

/// The logical lines of `text` that are statements, each on one line with
/// single spaces: bracketed lists and backslash continuations joined,
/// comments dropped, `;` separating.
fn statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or_default();
        let (code, continued) = match code.trim_end().strip_suffix('\\') {
            Some(code) => (code, true),
            None => (code, false),
        };
        for c in code.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        current.push(' ');
        current.push_str(code);
        if depth == 0 && !continued {
            for statement in current.split(';') {
                let words: Vec<&str> = statement.split_whitespace().collect();
                if !words.is_empty() {
                    out.push(words.join(" ").replace("( ", "(").replace(" )", ")"));
                }
            }
            current.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain, aliased, relative, parenthesized and starred imports, at any
    /// indentation; an import in a string's text after `#` is no import.
    #[test]
    fn imports_bind_their_names() {
        let text = "import os, pkg.util as u\nfrom pkg.base import Resource as R, Meta\nfrom . import kinds\nfrom ..core import (\n    Base,  # the root\n    Node,\n)\ntry:\n    from .fast import Parser\nexcept ImportError:\n    pass\nfrom .all import *\nx = 1  # from nowhere import Nothing\n";
        let imports = read(text, "lib/pkg/sub/mod.py");
        assert_eq!(
            imports.bound_joined("."),
            [
                ("os", "os"),
                ("u", "pkg.util"),
                ("R", "pkg.base.Resource"),
                ("Meta", "pkg.base.Meta"),
                ("kinds", "lib.pkg.sub.kinds"),
                ("Base", "lib.pkg.core.Base"),
                ("Node", "lib.pkg.core.Node"),
                ("Parser", "lib.pkg.sub.fast.Parser"),
            ]
            .map(|(n, p)| (n.to_string(), p.to_string()))
        );
        assert_eq!(imports.globs, [["lib", "pkg", "sub", "all"]]);
        let path = |p: &str| p.split('.').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            imports.resolve(&path("kinds.Text")),
            [path("lib.pkg.sub.kinds.Text")]
        );
        // Above the root, a relative import leads nowhere.
        assert!(read("from ... import x\n", "a/b.py").bound.is_empty());
    }
}
