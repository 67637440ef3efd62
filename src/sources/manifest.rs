//! Workspace members and the names their manifests give them. A member is
//! often asked about by its package name, which need not be its directory's:
//! ripgrep's `crates/searcher` is `grep-searcher`, tantivy's `sstable/` is
//! `tantivy-sstable`, a monorepo's `packages/core` is `@babel/core`.

use std::io::Read;
use std::path::Path;

/// File names that make their directory a package (a crate, a module, a
/// project a build tool knows by the directory's name).
pub const MANIFESTS: [&str; 10] = [
    "Cargo.toml",
    "package.json",
    "pyproject.toml",
    "setup.py",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "composer.json",
    "Gemfile",
];

/// A manifest larger than this is not read for its name: real ones are a few
/// kilobytes, and the walk reads them on its own threads.
const MAX_MANIFEST_BYTES: u64 = 256 * 1024;

/// A directory below the segment root holding a package manifest: a member of
/// a workspace or monorepo.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Package {
    /// Path relative to the root, `/`-separated, without a trailing `/`.
    pub dir: String,
    /// The names its manifests declare, sorted, as written
    /// (`grep-searcher`, `@babel/core`); empty when they declare none.
    pub names: Vec<String>,
}

impl Package {
    /// The package at `dir` whose manifests declare `names` (for tests).
    #[cfg(test)]
    pub fn declaring(dir: &str, names: &[&str]) -> Package {
        Package {
            dir: dir.into(),
            names: names.iter().map(|n| n.to_string()).collect(),
        }
    }

    /// The line the catalog stores: the directory, then each name, tab-separated.
    pub fn to_line(&self) -> String {
        std::iter::once(self.dir.as_str())
            .chain(self.names.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("\t")
    }

    /// The package a [`Package::to_line`] line describes.
    pub fn from_line(line: &str) -> Package {
        let mut parts = line.split('\t');
        Package {
            dir: parts.next().unwrap_or_default().to_string(),
            names: parts.map(str::to_string).collect(),
        }
    }
}

/// Merges the `(directory, declared name)` pairs of every manifest found into
/// one package per directory, sorted by directory.
pub fn merge(mut found: Vec<(String, Option<String>)>) -> Vec<Package> {
    found.sort();
    let mut out: Vec<Package> = Vec::new();
    for (dir, name) in found {
        if out.last().is_none_or(|p| p.dir != dir) {
            out.push(Package {
                dir,
                names: Vec::new(),
            });
        }
        if let (Some(p), Some(name)) = (out.last_mut(), name)
            && !p.names.contains(&name)
        {
            p.names.push(name);
        }
    }
    out
}

/// The package name the manifest at `path` (named `file`, one of
/// [`MANIFESTS`]) declares. `None` when it declares none, cannot be read or
/// does not parse: the name is a ranking hint, and the directory's own name
/// still counts.
pub fn declared_name(path: &Path, file: &str) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_MANIFEST_BYTES + 1)
        .read_to_string(&mut text)
        .ok()?;
    if text.len() as u64 > MAX_MANIFEST_BYTES {
        return None;
    }
    name_in(file, &text)
}

/// The package name manifest text declares, by the manifest's file name.
pub fn name_in(file: &str, text: &str) -> Option<String> {
    let name = match file {
        "Cargo.toml" | "pyproject.toml" => toml_name(text),
        "package.json" | "composer.json" => serde_json::from_str::<serde_json::Value>(text)
            .ok()?
            .get("name")?
            .as_str()
            .map(str::to_string),
        "go.mod" => go_module(text),
        "setup.py" => setup_py_name(text),
        "pom.xml" => pom_artifact(text),
        _ => None,
    }?;
    let name = name.trim();
    let plausible = !name.is_empty()
        && name.len() <= 214
        && !name.contains(|c: char| c.is_whitespace() || c.is_control());
    plausible.then(|| name.to_string())
}

/// The tables of a TOML manifest that can hold its name; everything else is
/// skipped, not read into values.
#[derive(serde::Deserialize)]
struct TomlManifest {
    package: Option<Named>,
    project: Option<Named>,
    tool: Option<Tools>,
}

#[derive(serde::Deserialize)]
struct Tools {
    poetry: Option<Named>,
}

#[derive(serde::Deserialize)]
struct Named {
    // Any value: as a `String`, a name that is not one (`name.workspace =
    // true`) would fail the whole parse and lose the other tables' names.
    name: Option<toml::Value>,
}

/// The name a `Cargo.toml` (`[package]`) or `pyproject.toml` (`[project]`,
/// else `[tool.poetry]`) declares.
fn toml_name(text: &str) -> Option<String> {
    let name_in = |text: &str| {
        let m: TomlManifest = toml::from_str(text).ok()?;
        let named = [m.package, m.project, m.tool.and_then(|t| t.poetry)];
        named
            .into_iter()
            .flatten()
            .find_map(|n| n.name?.as_str().map(str::to_string))
    };
    // The dependency and target tables are most of a manifest: the table
    // holding the name is parsed alone first, the whole file only when that
    // does not give one (a `[` line inside a multi-line string cut it short).
    ["[package]", "[project]", "[tool.poetry]"]
        .iter()
        .find_map(|header| name_in(table(text, header)?))
        .or_else(|| name_in(text))
}

/// The text of the table `header` opens in `text`, up to the next line
/// opening another.
fn table<'a>(text: &'a str, header: &str) -> Option<&'a str> {
    let mut at = 0;
    let mut start = None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        match start {
            None if trimmed.trim_end() == header => start = Some(at),
            Some(s) if trimmed.starts_with('[') => return Some(&text[s..at]),
            _ => {}
        }
        at += line.len();
    }
    start.map(|s| &text[s..])
}

/// A Go module's last path element, without a major-version suffix:
/// `module github.com/spf13/cobra/v2` is `cobra`.
fn go_module(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or_default().trim())
        .find(|l| l.starts_with("module ") || l.starts_with("module\t"))?;
    let path = line["module".len()..].trim().trim_matches('"');
    let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let major = |p: &str| {
        p.strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if parts.len() > 1 && parts.last().is_some_and(|p| major(p)) {
        parts.pop();
    }
    parts.last().map(|p| p.to_string())
}

/// The literal `name=` argument of a `setup.py` (`setup(name="foo", …)`);
/// a computed name is not evaluated.
fn setup_py_name(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(at) = rest.find("name") {
        let before = rest[..at].chars().next_back();
        let after = rest[at + 4..].trim_start();
        rest = &rest[at + 4..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let Some(quote) = value.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
            continue;
        };
        let body = &value[1..];
        return body.find(quote).map(|end| body[..end].to_string());
    }
    None
}

/// A Maven project's own `artifactId`, not its parent's.
fn pom_artifact(text: &str) -> Option<String> {
    let text = match (text.find("<parent>"), text.find("</parent>")) {
        (Some(start), Some(end)) if start < end => {
            format!("{}{}", &text[..start], &text[end + "</parent>".len()..])
        }
        _ => text.to_string(),
    };
    // Dependencies and plugins have artifactIds too; the project's comes
    // before any of them.
    let head = text
        .find("<dependencies>")
        .into_iter()
        .chain(text.find("<build>"))
        .chain(text.find("<dependencyManagement>"))
        .min()
        .map_or(text.as_str(), |end| &text[..end]);
    let start = head.find("<artifactId>")? + "<artifactId>".len();
    let end = head[start..].find("</artifactId>")?;
    Some(head[start..start + end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_manifest_kind_gives_its_declared_name() {
        let cases = [
            (
                "Cargo.toml",
                "[package]\nname = \"grep-searcher\"\nversion = \"0.1.14\"\n\n[dependencies]\nname = \"x\"\n",
                Some("grep-searcher"),
            ),
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/*\"]\n",
                None,
            ),
            (
                "pyproject.toml",
                "[project]\nname = \"mcp\"\nversion = \"1.0\"\n",
                Some("mcp"),
            ),
            (
                "pyproject.toml",
                "[tool.poetry]\nname = \"poetry-pkg\"\n",
                Some("poetry-pkg"),
            ),
            (
                "package.json",
                "{\"name\": \"@babel/core\", \"version\": \"7.0.0\"}",
                Some("@babel/core"),
            ),
            ("package.json", "{\"private\": true}", None),
            (
                "composer.json",
                "{\"name\": \"symfony/console\"}",
                Some("symfony/console"),
            ),
            (
                "go.mod",
                "// comment\nmodule github.com/spf13/cobra/v2 // the CLI\n\ngo 1.21\n",
                Some("cobra"),
            ),
            ("go.mod", "module \"example.com/tools\"\n", Some("tools")),
            ("go.mod", "module v2\n", Some("v2")),
            (
                "setup.py",
                "from setuptools import setup\nsetup(\n    name = 'requests-toolbelt',\n    version='1',\n)\n",
                Some("requests-toolbelt"),
            ),
            ("setup.py", "pkg_name = 'x'\nsetup(name=pkg_name)\n", None),
            (
                "pom.xml",
                "<project><parent><artifactId>parent-pom</artifactId></parent>\n<artifactId>guava</artifactId><dependencies><dependency><artifactId>dep</artifactId></dependency></dependencies></project>",
                Some("guava"),
            ),
            (
                "pom.xml",
                "<project><dependencies><dependency><artifactId>dep</artifactId></dependency></dependencies></project>",
                None,
            ),
            ("build.gradle", "rootProject.name = 'x'\n", None),
            ("Gemfile", "gem 'rails'\n", None),
        ];
        for (file, text, want) in cases {
            assert_eq!(name_in(file, text).as_deref(), want, "{file}: {text}");
        }
    }

    #[test]
    fn a_name_is_found_whatever_surrounds_its_table() {
        for text in [
            "[package]\nname = \"a\"\n[dependencies]\nx = \"1\"\n",
            "[dependencies]\nx = \"1\"\n\n  [package]  \nversion = \"1\"\nname = 'a'\n",
            "[package]\ndescription = \"\"\"\n[not a table]\n\"\"\"\nname = \"a\"\n",
            "package = { name = \"a\" }\n",
            "[package.metadata.docs]\nx = 1\n[package]\nname = \"a\"\n",
        ] {
            assert_eq!(name_in("Cargo.toml", text).as_deref(), Some("a"), "{text}");
        }
    }

    #[test]
    fn broken_or_implausible_manifests_declare_nothing() {
        assert_eq!(name_in("Cargo.toml", "[package\nname = \"x\""), None);
        assert_eq!(name_in("package.json", "{\"name\": "), None);
        assert_eq!(name_in("package.json", "{\"name\": 42}"), None);
        assert_eq!(name_in("package.json", "{\"name\": \"two words\"}"), None);
        assert_eq!(name_in("package.json", "{\"name\": \"  \"}"), None);
        assert_eq!(name_in("go.mod", "go 1.21\n"), None);
    }

    #[test]
    fn manifests_merge_into_one_package_per_directory() {
        let found = vec![
            (
                "crates/searcher".to_string(),
                Some("grep-searcher".to_string()),
            ),
            ("bindings/node".to_string(), Some("ctx-node".to_string())),
            ("bindings/node".to_string(), Some("ctx_node".to_string())),
            ("bindings/node".to_string(), None),
            (
                "crates/searcher".to_string(),
                Some("grep-searcher".to_string()),
            ),
            ("tools".to_string(), None),
        ];
        let merged = merge(found);
        assert_eq!(
            merged,
            vec![
                Package {
                    dir: "bindings/node".into(),
                    names: vec!["ctx-node".into(), "ctx_node".into()],
                },
                Package {
                    dir: "crates/searcher".into(),
                    names: vec!["grep-searcher".into()],
                },
                Package {
                    dir: "tools".into(),
                    names: vec![],
                },
            ]
        );
        for p in &merged {
            assert_eq!(&Package::from_line(&p.to_line()), p);
        }
        // Lines stored before names were read hold the directory alone.
        assert_eq!(
            Package::from_line("crates/alpha").names,
            Vec::<String>::new()
        );
    }
}
