//! Java's `import a.b.C;` and `import a.b.*;`, and the file's own package,
//! whose types need no import (its directory: sources sit under their
//! package's path).

use super::{Imports, dirs_of};

/// Reads the imports of `text`, the code of `doc` outside its types.
pub(super) fn read(text: &str, doc: &str) -> Imports {
    let mut imports = Imports::default();
    for statement in text.split(';') {
        let words: Vec<&str> = statement.split_whitespace().collect();
        let [_, .., last] = words.as_slice() else {
            continue;
        };
        // Static imports bring members, not types.
        if words.first() != Some(&"import") || words.get(1) == Some(&"static") {
            continue;
        }
        let mut parts: Vec<String> = last.split('.').map(String::from).collect();
        match parts.last().map(String::as_str) {
            Some("*") => {
                parts.pop();
                imports.glob(parts);
            }
            Some(name) => {
                let name = name.to_string();
                imports.bind(&name, parts);
            }
            None => {}
        }
    }
    imports.glob(dirs_of(doc));
    imports
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Single-type and on-demand imports, static ones left out, and the
    /// file's own directory as a package every name may come from.
    #[test]
    fn imports_and_the_own_package() {
        let text = "package com.acme.audit;\n\nimport com.acme.core.Base;\nimport java.util.*;\nimport static org.junit.Assert.assertEquals;\n";
        let imports = read(text, "src/main/java/com/acme/audit/Audit.java");
        assert_eq!(
            imports.bound,
            [(
                "Base".to_string(),
                vec!["com".into(), "acme".into(), "core".into(), "Base".into()]
            )]
        );
        let path = |p: &str| p.split('.').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            imports.resolve(&path("Local")),
            [
                path("java.util.Local"),
                path("src.main.java.com.acme.audit.Local")
            ]
        );
    }
}
