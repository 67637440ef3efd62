//! JavaScript and TypeScript imports: `import X, { A, B as C, type D } from
//! './m'`, `import * as ns from 'pkg'`, and CommonJS `const { A, B: C } =
//! require('./m')` or `const ns = require('./m')`. A relative module is
//! read from the file's directory, its extension and a last `index` aside
//! (a directory's `index` re-exports what is inside it).

use std::sync::LazyLock;

use regex::Regex;

use super::{Imports, dirs_of};

/// `import … from 'm'` (the clause, the module), across lines.
static IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?m)^\s*import\s+(?:type\s+)?([^;'"]*?)\s+from\s+['"]([^'"]+)['"]"#)
        .expect("a valid pattern")
});

/// `const|let|var <binding> = require('m')`.
static REQUIRE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?m)^\s*(?:const|let|var)\s+(\{[^}]*\}|[A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)"#,
    )
    .expect("a valid pattern")
});

/// Reads the imports of `text`, the code of `doc` outside its symbols.
pub(super) fn read(text: &str, doc: &str) -> Imports {
    let mut imports = Imports::default();
    for caps in IMPORT.captures_iter(text) {
        let module = module_path(&caps[2], doc);
        let clause = caps[1].trim();
        let (default, rest) = match clause.find(['{', '*']) {
            Some(at) => (clause[..at].trim().trim_end_matches(','), &clause[at..]),
            None => (clause, ""),
        };
        // A default import's class usually goes by the name it is given.
        bind_named(&mut imports, &module, default, None);
        if let Some(ns) = rest.strip_prefix('*') {
            if let Some(name) = ns.trim().strip_prefix("as ") {
                imports.bind(name.trim(), module.clone());
            }
        } else if let Some(list) = rest.strip_prefix('{') {
            for item in list.trim_end_matches('}').split(',') {
                let item = item.trim();
                let item = item.strip_prefix("type ").unwrap_or(item);
                match item.split_once(" as ") {
                    Some((name, alias)) => bind_named(&mut imports, &module, name, Some(alias)),
                    None => bind_named(&mut imports, &module, item, None),
                }
            }
        }
    }
    for caps in REQUIRE.captures_iter(text) {
        let module = module_path(&caps[2], doc);
        match caps[1].strip_prefix('{') {
            Some(list) => {
                for item in list.trim_end_matches('}').split(',') {
                    match item.split_once(':') {
                        Some((name, alias)) => bind_named(&mut imports, &module, name, Some(alias)),
                        None => bind_named(&mut imports, &module, item, None),
                    }
                }
            }
            None => imports.bind(&caps[1], module),
        }
    }
    imports
}

/// Binds `alias` (or `name`) to `name` in `module`.
fn bind_named(imports: &mut Imports, module: &[String], name: &str, alias: Option<&str>) {
    let name = name.trim();
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
    };
    let alias = alias.map_or(name, str::trim);
    if ident(name) && ident(alias) && !module.is_empty() {
        let mut path = module.to_vec();
        path.push(name.to_string());
        imports.bind(alias, path);
    }
}

/// The places a module specifier names: `./base.js` in `src/lib/store.ts`
/// is `["src", "lib", "base"]`, `../util/index` is `["src", "util"]`, a
/// package's `@scope/pkg/sub` is `["@scope/pkg", "sub"]`.
fn module_path(spec: &str, doc: &str) -> Vec<String> {
    let relative = spec.starts_with("./") || spec.starts_with("../");
    let mut parts = if relative { dirs_of(doc) } else { Vec::new() };
    let mut pieces = spec.split('/').peekable();
    if spec.starts_with('@')
        && let (Some(scope), Some(name)) = (pieces.next(), pieces.next())
    {
        parts.push(format!("{scope}/{name}"));
    }
    for piece in pieces {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other.to_string()),
        }
    }
    if let Some(last) = parts.last_mut() {
        for ext in [
            ".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
        ] {
            if let Some(stem) = last.strip_suffix(ext) {
                *last = stem.to_string();
                break;
            }
        }
    }
    if parts.last().is_some_and(|l| l == "index") && parts.len() > 1 {
        parts.pop();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Default, named, renamed, type-only, namespace and CommonJS imports;
    /// relative modules from the file's directory.
    #[test]
    fn imports_bind_their_names() {
        let text = "import Base, { Store as S, type Readable } from './base.js';\nimport * as io from '../io/index';\nimport {\n  Parser,\n} from '@acme/core/parse';\nconst { Walk, Tree: T } = require('./walk');\nconst util = require('util');\nconst s = \"import X from 'nowhere'\";\n";
        assert_eq!(
            read(text, "src/lib/store.ts").bound_joined("/"),
            [
                ("Base", "src/lib/base/Base"),
                ("S", "src/lib/base/Store"),
                ("Readable", "src/lib/base/Readable"),
                ("io", "src/io"),
                ("Parser", "@acme/core/parse/Parser"),
                ("Walk", "src/lib/walk/Walk"),
                ("T", "src/lib/walk/Tree"),
                ("util", "util"),
            ]
            .map(|(n, p)| (n.to_string(), p.to_string()))
        );
    }
}
