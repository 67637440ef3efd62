//! Names written with the path code reaches them by: `serde_json::from_str`,
//! `ignore::walk::WalkBuilder::build`, `crate::index::name_key`,
//! `mcp.client.session.ClientSession`, `net/http.Client`. A symbol's own
//! qualified name holds its containers (`WalkBuilder::build`), not its crate,
//! package or modules: those are where its file is. So the leading parts of
//! such a name must name, in order, places on the way to the file (the
//! first a package by its declared or directory name, Rust's `crate`, `self`
//! or `super`, or outside Rust a directory; the next directories or the
//! file's stem; a re-export skips modules, so places may be skipped), and
//! the rest must be the symbol's qualified name.

use std::collections::HashMap;

use super::candidates::{Found, Kinds, candidates, canon};
use crate::chunk::Chunk;
use crate::index::packages;
use crate::sources::Package;

/// Where the chunks of a pack are, as the names a path may give them.
pub(super) struct Places<'a> {
    packages: &'a [Package],
    /// The names the project root goes by: its directory's and those its
    /// own manifests declare (the crate a `src/` at the root builds).
    root: Vec<String>,
    /// Each document's way from the root, worked out once.
    seen: HashMap<String, Vec<Place>>,
}

/// One step on the way to a file, with the names a path may give it.
#[derive(Debug)]
struct Place {
    names: Vec<String>,
    /// A directory, a package or the root, which a path may start with;
    /// not the file's stem.
    starts: bool,
}

impl<'a> Places<'a> {
    /// The places of a project whose packages are `packages` and whose root
    /// goes by `root`.
    pub(super) fn new(packages: &'a [Package], root: Vec<String>) -> Places<'a> {
        Places {
            packages,
            root,
            seen: HashMap::new(),
        }
    }

    /// Whether `path` names, in order, places on the way to `c`'s document
    /// (spelled as written, `-` read as `_`; ASCII case aside when `fold`).
    pub(super) fn lead_to(&mut self, path: &[String], c: &Chunk, fold: bool) -> bool {
        self.skips(path, &c.doc, c.lang.as_deref() == Some("rust"), fold)
            .is_some()
    }

    /// How many places after its first `path` skips on the way to `doc` (of
    /// Rust code when `rust`), as
    /// a re-export does (`src/` and a `lib.rs`, `mod.rs` or `main.rs` count
    /// for none: they are no module); `None` when it does not lead there.
    /// `ser::Encode` leads to `ser`'s `src/lib.rs` skipping none, and to its
    /// `src/encode.rs` skipping one.
    pub(super) fn skips(
        &mut self,
        path: &[String],
        doc: &str,
        rust: bool,
        fold: bool,
    ) -> Option<usize> {
        let (packages, root) = (self.packages, &self.root);
        let way = self
            .seen
            .entry(doc.to_string())
            .or_insert_with(|| way_to(doc, packages, root, rust));
        let names = |place: &Place, part: &str| {
            place.names.iter().any(|n| {
                if fold {
                    n.eq_ignore_ascii_case(part)
                } else {
                    n == part
                }
            })
        };
        let (mut at, mut first, mut skipped) = (0, None, 0);
        for (i, part) in path.iter().enumerate() {
            let k = way[at..]
                .iter()
                .position(|place| (i > 0 || place.starts) && names(place, part))?;
            if first.is_some() {
                skipped += way[at..at + k].iter().filter(|p| !p.transparent()).count();
            }
            first.get_or_insert(at + k);
            at += k + 1;
        }
        let rest = way[at..].iter().filter(|p| !p.transparent()).count();
        Some(skipped + rest)
    }
}

impl Place {
    /// Whether a Rust path passes it without naming it: `src/`, or a
    /// `lib.rs`, `mod.rs` or `main.rs`.
    fn transparent(&self) -> bool {
        self.names
            .first()
            .is_some_and(|n| matches!(n.as_str(), "src" | "lib" | "mod" | "main"))
    }
}

/// The places on the way to `doc`: the root, each directory, then its
/// stem. A path starts at the root or at the package holding `doc` (by its
/// directory's or declared name). Outside Rust it may start at a directory
/// too, as Python's, Java's and Go's module paths do (`src/mcp/`,
/// `core/src/main/java/com/`, `net/http/`); a Rust path starts at a crate,
/// so a Rust file's directory inside a package is no start (`regex` is not
/// tantivy-fst's `src/regex/`).
fn way_to(doc: &str, packages: &[Package], root: &[String], rust: bool) -> Vec<Place> {
    let underscored = |s: &str| s.replace('-', "_");
    let keywords = ["crate", "self", "super"].map(String::from);
    let (dirs, file) = doc.rsplit_once('/').unwrap_or(("", doc));
    let package = packages::holding(doc, packages);
    let mut way = vec![Place {
        names: root
            .iter()
            .map(|n| underscored(n))
            .chain(keywords.clone())
            .collect(),
        starts: true,
    }];
    let mut so_far = String::new();
    for dir in dirs.split('/').filter(|d| !d.is_empty()) {
        if !so_far.is_empty() {
            so_far.push('/');
        }
        so_far.push_str(dir);
        let mut place = Place {
            names: vec![underscored(dir)],
            starts: package.is_none() || !rust,
        };
        if let Some(p) = package.filter(|p| p.dir == so_far) {
            place.names.extend(packages::dir_name(dir));
            place
                .names
                .extend(p.names.iter().map(|n| packages::declared_key(n)));
            place.names.extend(keywords.clone());
            place.starts = true;
        }
        way.push(place);
    }
    let stem = file.split_once('.').map_or(file, |(stem, _)| stem);
    way.push(Place {
        names: vec![underscored(stem)],
        starts: false,
    });
    way
}

/// The ways to read `name` (`.` for `::`, as [`super::candidates::canon`]
/// gives it) as a path and a qualified name after it, the shortest path
/// first: `a.b.C.f` is `[a]` + `b.C.f`, then `[a, b]` + `C.f`, then
/// `[a, b, C]` + `f`; the path's parts as [`path_parts`] gives them.
pub(super) fn splits(name: &str) -> Vec<(Vec<String>, String)> {
    let parts: Vec<&str> = name.split('.').collect();
    (1..parts.len())
        .filter(|&k| parts[..k].iter().all(|p| !p.is_empty()))
        .map(|k| (path_parts(&parts[..k].join(".")), parts[k..].join(".")))
        .filter(|(_, rest)| !rest.is_empty())
        .collect()
}

/// The parts of a path written `a.b` (`.` for `::`) or, as Go imports
/// are, `net/http`, each with `-` read as `_` (`grep-searcher` is
/// `grep_searcher` in code).
pub(super) fn path_parts(path: &str) -> Vec<String> {
    path.split(['.', '/'])
        .filter(|p| !p.is_empty())
        .map(|p| p.replace('-', "_"))
        .collect()
}

/// The symbols among `pool` that `name` stands for when its leading parts
/// are a path to their file: for the longest such path that leaves any
/// (`tokio::sync::Mutex` is `Mutex` in `tokio/src/sync/`, before a
/// `sync::Mutex` elsewhere in tokio), those whose qualified name is the
/// rest; exactly, else ASCII case aside.
pub(super) fn candidates_by_path(
    pool: &[Chunk],
    name: &str,
    file: Option<&str>,
    kinds: Kinds<'_>,
    places: &mut Places<'_>,
) -> Vec<Found> {
    for fold in [false, true] {
        for (path, rest) in splits(&canon(name)).into_iter().rev() {
            let local: Vec<Chunk> = pool
                .iter()
                .filter(|c| places.lead_to(&path, c, fold))
                .cloned()
                .collect();
            if local.is_empty() {
                continue;
            }
            // `candidates` also takes a bare name for a qualified one
            // (`from_str` for `Value::from_str`); after a path, the rest is
            // the whole qualified name.
            let mut found = candidates(&local, &rest, file, fold, kinds);
            found.retain(|f| {
                let q = canon(&f.qualified);
                if fold {
                    q.eq_ignore_ascii_case(&rest)
                } else {
                    q == rest
                }
            });
            if !found.is_empty() {
                return found;
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_splits_into_a_path_and_a_qualified_name_shortest_path_first() {
        let owned = |path: &[&str], rest: &str| {
            (
                path.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
                rest.to_string(),
            )
        };
        assert_eq!(
            splits("serde_json.de.from_str"),
            [
                owned(&["serde_json"], "de.from_str"),
                owned(&["serde_json", "de"], "from_str"),
            ]
        );
        assert_eq!(
            splits("net/http.Client"),
            [owned(&["net", "http"], "Client")]
        );
        assert_eq!(
            splits("grep-searcher.Searcher"),
            [owned(&["grep_searcher"], "Searcher")]
        );
        assert!(splits("build").is_empty());
        assert!(splits(".build").is_empty());
    }

    /// Whether the path `dotted` (`a.b`) leads to `doc`, whose language is
    /// its extension's.
    fn leads(places: &mut Places<'_>, dotted: &str, doc: &str, fold: bool) -> bool {
        let path: Vec<String> = dotted.split('.').map(str::to_string).collect();
        let mut c = Chunk::sample(doc, &[doc], "", crate::chunk::ChunkKind::Code);
        c.lang = crate::chunk::code::language_for_path(doc).map(|l| l.name.to_string());
        places.lead_to(&path, &c, fold)
    }

    #[test]
    fn a_path_names_places_on_the_way_to_the_file_in_order() {
        let packages = [
            Package::declaring("crates/searcher", &["grep-searcher"]),
            Package::declaring("core", &["acme-core"]),
        ];
        let mut places = Places::new(&packages, vec!["ripgrep".into()]);
        let p = &mut places;
        let doc = "crates/searcher/src/searcher/mod.rs";
        assert!(leads(p, "grep_searcher.searcher", doc, false));
        assert!(leads(p, "searcher.searcher.mod", doc, false));
        assert!(leads(p, "crate.searcher", doc, false));
        assert!(!leads(p, "searcher.grep_searcher", doc, false));
        // Inside a package, a Rust path starts at the package.
        assert!(!leads(p, "src.searcher", doc, false));
        // The root's name, written as declared.
        assert!(leads(p, "ripgrep.flags", "src/flags/mod.rs", false));
        assert!(!leads(p, "Flags", "src/flags/mod.rs", false));
        assert!(leads(p, "Flags", "src/flags/mod.rs", true));
        // Python's, Java's and Go's module paths start at a directory, in a
        // package or not. The file's stem is no place to start.
        assert!(leads(
            p,
            "mcp.client.session",
            "src/mcp/client/session.py",
            false
        ));
        assert!(leads(
            p,
            "com.acme.Store",
            "core/src/main/java/com/acme/Store.java",
            false
        ));
        assert!(leads(p, "net.http", "net/http/client.go", false));
        assert!(!leads(p, "client", "net/http/client.go", false));
    }

    /// A path skips the modules it does not name after its first part;
    /// `src/`, `lib.rs` and `mod.rs` are none.
    #[test]
    fn a_path_counts_the_modules_it_skips() {
        let packages = [Package::declaring("crates/ser", &["ser"])];
        let mut places = Places::new(&packages, Vec::new());
        let path = |p: &str| p.split('.').map(String::from).collect::<Vec<_>>();
        let mut skips = |p: &str, doc: &str| places.skips(&path(p), doc, true, false);
        assert_eq!(skips("ser", "crates/ser/src/lib.rs"), Some(0));
        assert_eq!(skips("ser", "crates/ser/src/encode.rs"), Some(1));
        assert_eq!(skips("ser.encode", "crates/ser/src/encode.rs"), Some(0));
        assert_eq!(skips("ser.encode", "crates/ser/src/encode/mod.rs"), Some(0));
        assert_eq!(skips("ser.wire", "crates/ser/src/encode/wire.rs"), Some(1));
        assert_eq!(skips("ser.wire", "crates/ser/src/lib.rs"), None);
    }

    #[test]
    fn a_registry_crate_is_named_without_its_version_and_not_by_another_crate_s_module() {
        let packages = [
            Package::declaring("regex-1.13.1", &["regex"]),
            Package::declaring("regex-automata-0.4.18", &["regex-automata"]),
            Package::declaring("serde_json-1.0.154", &["serde_json"]),
            Package::declaring("tantivy-fst-0.5.0", &["tantivy-fst"]),
        ];
        let mut places = Places::new(&packages, Vec::new());
        let p = &mut places;
        assert!(leads(
            p,
            "regex.bytes",
            "regex-1.13.1/src/regex/bytes.rs",
            false
        ));
        assert!(!leads(
            p,
            "regex",
            "regex-automata-0.4.18/src/dfa/regex.rs",
            false
        ));
        assert!(!leads(
            p,
            "regex",
            "tantivy-fst-0.5.0/src/regex/mod.rs",
            false
        ));
        assert!(leads(
            p,
            "tantivy_fst.regex",
            "tantivy-fst-0.5.0/src/regex/mod.rs",
            false
        ));
        assert!(leads(
            p,
            "serde_json.de",
            "serde_json-1.0.154/src/de.rs",
            false
        ));
        assert!(!leads(p, "serde", "serde_json-1.0.154/src/de.rs", false));
    }
}
