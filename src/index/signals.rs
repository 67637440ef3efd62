//! Query-independent signals about a chunk, stored as bit flags in the index so
//! search can weigh them without reading the chunk back.
//!
//! A question about behaviour is almost always about the implementation, yet the
//! tests that exercise a function repeat its name and the question's words (a
//! `symlink_loop` test sits next to `check_symlink_loop`). The flags let ranking
//! demote tests, benchmarks and examples without hiding them from a query that
//! names them. A table of contents repeats every heading of its document, so
//! it matches a query by the very words that name the section it points to.

use std::sync::Arc;

use tantivy::columnar::ColumnValues;
use tantivy::{DocAddress, Searcher};

use crate::chunk::code::comment::is_comment;
use crate::chunk::{Chunk, ChunkKind};

/// The chunk is a test, a benchmark or test support (code only).
pub const TEST: u64 = 1;
/// The chunk is example or demo code (code only).
pub const EXAMPLE: u64 = 2;

/// The chunk is a function or method whose doc comment is most of it and
/// whose body is a few lines: a setter, a getter, a builder option (code only).
pub const THIN: u64 = 4;

/// The chunk is only the opening of a container whose members are chunks of
/// their own (`impl Walk {`, `class Walker:`): it says nothing but a name every
/// member's heading path repeats (code only).
pub const GLUE: u64 = 8;

/// The chunk is a table of contents: a list of links to sections of its
/// document or to other documents, and nothing else (Markdown only).
pub const CONTENTS: u64 = 16;

/// The chunk lies in a named JSON record (`[281] tantivy`), the innermost
/// one's name its `key`, or holds a group of small ones whole, each name a
/// `key`: a query naming the record ranks it first (JSON only; set by the
/// writer with [`RECORD_HEAD`], from one reading of the chunk's title).
pub const RECORD: u64 = 32;

/// The chunk is the first of its named JSON record's chunks, the one with
/// the record's opening and its name (set by the writer, which sees a
/// value's chunks in order): a query that is the name alone ranks it first.
pub const RECORD_HEAD: u64 = 64;

/// Changes whenever a chunk's flags may change (a build with another version is
/// a full rebuild): 2 flagged tables of contents, 3 named JSON records, 4
/// groups of named JSON records.
pub const SIGNALS_VERSION: u32 = 4;

/// Directory names whose code is tests, benchmarks or test data.
const TEST_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "testdata",
    "__tests__",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
];

/// Directory names whose code is examples.
const EXAMPLE_DIRS: &[&str] = &["example", "examples", "demo", "demos"];

/// The flags of `chunk` alone (the writer adds [`RECORD`] and [`RECORD_HEAD`],
/// which depend on the chunks before it).
pub fn flags(chunk: &Chunk) -> u64 {
    match chunk.kind {
        ChunkKind::Code => code_flags(chunk),
        ChunkKind::Markdown if is_contents(&chunk.text) => CONTENTS,
        _ => 0,
    }
}

fn code_flags(chunk: &Chunk) -> u64 {
    let mut flags = 0;
    if is_test(chunk) {
        flags |= TEST;
    }
    if has_dir(&chunk.doc, EXAMPLE_DIRS) {
        flags |= EXAMPLE;
    }
    if is_thin(chunk) {
        flags |= THIN;
    }
    if is_glue(chunk) {
        flags |= GLUE;
    }
    flags
}

/// The [`signals`] flags column of each segment, opened once per search.
pub(super) struct Flags(Vec<Option<Arc<dyn ColumnValues<u64>>>>);

impl Flags {
    pub(super) fn new(searcher: &Searcher) -> Flags {
        let column = |s: &tantivy::SegmentReader| {
            let column = s.fast_fields().u64("flags").ok()?;
            Some(column.first_or_default_col(0))
        };
        Flags(searcher.segment_readers().iter().map(column).collect())
    }

    /// The flags of the record at `addr` (0 for a document record).
    pub(super) fn of(&self, addr: DocAddress) -> u64 {
        match self.0.get(addr.segment_ord as usize) {
            Some(Some(column)) => column.get_val(addr.doc_id),
            _ => 0,
        }
    }
}

/// Links a table of contents has at least.
const CONTENTS_LINKS: usize = 3;

/// Text whose lines, headings and HTML comments (`<!-- toc -->`) aside, are
/// at least 80 % lines holding one link and nothing else (a list marker
/// aside), at least [`CONTENTS_LINKS`] of them, each to a section (`#...`) or
/// to another document (`ch01.md`). Lists of web links are left alone: a
/// "References" section names what it points to.
fn is_contents(text: &str) -> bool {
    // Most sections fail here, before any line is looked at.
    if text.matches("](").take(CONTENTS_LINKS).count() < CONTENTS_LINKS {
        return false;
    }
    let (mut links, mut other) = (0usize, 0usize);
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || is_html_comment(line) {
            continue;
        }
        if link_target(line).is_some_and(is_navigation) {
            links += 1;
        } else {
            other += 1;
        }
    }
    links >= CONTENTS_LINKS && links >= 4 * other
}

fn is_html_comment(line: &str) -> bool {
    line.starts_with("<!--") && line.ends_with("-->")
}

/// The target of a line that is one Markdown link, after an optional list
/// marker (`-`, `*`, `+`, `1.`). The link text may hold brackets itself.
fn link_target(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix(['-', '*', '+'])
        .or_else(|| {
            let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            (digits > 0)
                .then(|| line[digits..].strip_prefix(['.', ')']))
                .flatten()
        })
        .unwrap_or(line)
        .trim_start();
    let inner = rest.strip_prefix('[')?.strip_suffix(')')?;
    let (_, target) = inner.rsplit_once("](")?;
    (!target.is_empty() && !target.contains(char::is_whitespace)).then_some(target)
}

/// A link within the document set: to an anchor, or by relative path to a
/// Markdown or HTML page.
fn is_navigation(target: &str) -> bool {
    if target.starts_with('#') {
        return true;
    }
    if target.contains("://") || target.starts_with("mailto:") {
        return false;
    }
    let path = target
        .split('#')
        .next()
        .unwrap_or(target)
        .to_ascii_lowercase();
    [".md", ".markdown", ".html", ".htm"]
        .iter()
        .any(|ext| path.ends_with(ext))
}

/// Lines an opening may span (attributes, decorators, a wrapped signature).
const GLUE_LINES: usize = 3;

/// A symbol's chunk of at most [`GLUE_LINES`] lines, without comments, that
/// ends on an opener (`{`, or `:` for Python): only a container's header can,
/// since every other definition's chunk runs to the end of its body.
fn is_glue(chunk: &Chunk) -> bool {
    if chunk.symbol.is_none() {
        return false;
    }
    // Stops at the first comment or past the line limit: most chunks are long.
    let mut last = None;
    for (n, line) in chunk
        .text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        if n == GLUE_LINES || is_comment(line) {
            return false;
        }
        last = Some(line);
    }
    last.is_some_and(|l| l.ends_with('{') || l.ends_with(':'))
}

/// Code lines of a thin body, at most.
const THIN_CODE_LINES: usize = 4;

/// A function or method with at most [`THIN_CODE_LINES`] lines of code (not
/// counting its signature line, attributes and lone braces) under a comment of
/// three lines or more, at least twice as long as the code. Such a method describes a feature in prose and hands
/// the work to another; a question about how the feature works is answered by
/// the other one.
fn is_thin(chunk: &Chunk) -> bool {
    let Some(sym) = &chunk.symbol else {
        return false;
    };
    if !matches!(sym.kind.as_str(), "function" | "method") {
        return false;
    }
    let (mut code, mut comment) = (0usize, 0usize);
    for line in chunk.text.lines() {
        let l = line.trim();
        if l.is_empty() || matches!(l, "{" | "}" | "};" | ")" | "})") || l.starts_with("#[") {
            continue;
        }
        if is_comment(l) {
            comment += 1;
        } else {
            code += 1;
        }
    }
    // The signature line counts as code.
    code <= THIN_CODE_LINES + 1 && comment >= 3 && comment >= 2 * code
}

fn has_dir(doc: &str, names: &[&str]) -> bool {
    let mut parts: Vec<&str> = doc.split('/').collect();
    parts.pop();
    parts
        .iter()
        .any(|p| names.iter().any(|n| p.eq_ignore_ascii_case(n)))
}

fn is_test(chunk: &Chunk) -> bool {
    if has_dir(&chunk.doc, TEST_DIRS) || is_test_file(&chunk.doc) {
        return true;
    }
    // Containers (and a module's own name): Rust's `mod tests`, xUnit classes.
    let names = chunk.title_path.iter().skip(1);
    if names.clone().any(|n| is_test_container(n)) {
        return true;
    }
    if let Some(sym) = &chunk.symbol
        && is_test_name(&sym.name)
    {
        return true;
    }
    has_test_attribute(&chunk.text)
}

/// `foo_test.go`, `test_foo.py`, `foo.spec.ts`, `FooTest.java`, `conftest.py`.
fn is_test_file(doc: &str) -> bool {
    let file = doc.rsplit('/').next().unwrap_or(doc);
    let stem = file.split('.').next().unwrap_or(file);
    let lower = stem.to_ascii_lowercase();
    lower.starts_with("test_")
        || lower.ends_with("_test")
        || lower.ends_with("_tests")
        || lower == "conftest"
        || file.contains(".test.")
        || file.contains(".spec.")
        || ((stem.ends_with("Test") || stem.ends_with("Tests")) && stem.len() > 5)
}

fn is_test_container(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "tests" || lower == "test" || is_test_name(name)
}

/// `test_foo`, Go's `TestFoo`/`BenchmarkFoo`, xUnit's `TestFoo`/`FooTests`.
fn is_test_name(name: &str) -> bool {
    let upper_after = |prefix: &str| {
        name.strip_prefix(prefix)
            .and_then(|rest| rest.chars().next())
            .is_some_and(|c| c.is_uppercase() || c == '_')
    };
    name.starts_with("test_")
        || upper_after("Test")
        || upper_after("Benchmark")
        || (name.ends_with("Tests") && name.len() > 5)
}

/// A test attribute or annotation on a line of its own before the code:
/// `#[test]`, `#[tokio::test]`, `#[cfg(test)]`, `@Test`, `@pytest.mark…`.
fn has_test_attribute(text: &str) -> bool {
    text.lines().take(12).any(|line| {
        let l = line.trim();
        l == "#[test]"
            || l.starts_with("#[cfg(test)]")
            || (l.starts_with("#[") && l.ends_with("::test]"))
            || l.starts_with("#[test_case")
            || l.starts_with("#[rstest")
            || l == "@Test"
            || l.starts_with("@Test(")
            || l.starts_with("@pytest.")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_are_flagged_by_path_module_name_and_attribute() {
        let t = |c: &Chunk| flags(c) & TEST != 0;
        assert!(t(&Chunk::sample_code(
            "tests/walk.rs",
            &["tests/walk.rs", "f"],
            "f",
            "fn f() {}"
        )));
        assert!(t(&Chunk::sample_code(
            "src/walk.rs",
            &["src/walk.rs", "tests", "f"],
            "f",
            "fn f() {}"
        )));
        assert!(t(&Chunk::sample_code(
            "src/a.rs",
            &["src/a.rs", "f"],
            "f",
            "#[test]\nfn f() {}"
        )));
        assert!(t(&Chunk::sample_code(
            "src/a.rs",
            &["src/a.rs", "f"],
            "f",
            "#[tokio::test]\nfn f() {}"
        )));
        assert!(t(&Chunk::sample_code(
            "pkg/a_test.go",
            &["pkg/a_test.go", "F"],
            "F",
            "func F() {}"
        )));
        assert!(t(&Chunk::sample_code(
            "a.py",
            &["a.py", "test_x"],
            "test_x",
            "def test_x(): pass"
        )));
        assert!(t(&Chunk::sample_code(
            "A.java",
            &["A.java", "ATests", "x"],
            "x",
            "void x() {}"
        )));
        assert!(!t(&Chunk::sample_code(
            "src/walk.rs",
            &["src/walk.rs", "f"],
            "f",
            "fn f() {}"
        )));
        assert!(!t(&Chunk::sample_code(
            "src/a.rs",
            &["src/a.rs", "f"],
            "f",
            "#[cfg(not(test))]\nfn f() {}"
        )));
        assert!(!t(&Chunk::sample_code(
            "src/a.rs",
            &["src/a.rs", "testing_mode"],
            "testing_mode",
            "fn x(){}"
        )));
        assert!(!t(&Chunk::sample_code(
            "src/contest.rs",
            &["src/contest.rs", "Testy"],
            "Testy",
            ""
        )));
    }

    #[test]
    fn examples_and_prose() {
        let ex = Chunk::sample_code(
            "examples/walk.rs",
            &["examples/walk.rs", "main"],
            "main",
            "",
        );
        assert_eq!(flags(&ex), EXAMPLE);
        let lib = Chunk::sample_code("src/a.rs", &["src/a.rs", "A"], "A", "struct A;");
        assert_eq!(flags(&lib), 0);
        let mut md = Chunk::sample_code("tests/README.md", &["Tests"], "", "#[test]");
        md.kind = ChunkKind::Markdown;
        assert_eq!(flags(&md), 0);
    }

    #[test]
    fn tables_of_contents_are_flagged() {
        let toc = "## Table of Contents\n\n<!-- toc -->\n- [Summary](#summary)\n- [Motivation](#motivation)\n  - [Goals](#goals)\n  - [Implementation Details [optional]](#implementation-details-optional)\n<!-- /toc -->\n";
        assert!(is_contents(toc));
        let book = "# The Book\n\n[Foreword](foreword.md)\n\n1. [Getting Started](ch01-00-getting-started.md)\n2. [Hello](ch01-02-hello-world.html#hello)\n";
        assert!(is_contents(book));
        let mut md = Chunk::sample_code("README.md", &["Table of Contents"], "", toc);
        md.kind = ChunkKind::Markdown;
        assert_eq!(flags(&md), CONTENTS);
        md.kind = ChunkKind::Text;
        assert_eq!(flags(&md), 0);
        // Prose that links, web links, and too few links are not contents.
        assert!(!is_contents(
            "See [a](#a), [b](#b) and [c](#c) for the details of each step.\n"
        ));
        assert!(!is_contents(
            "- [RFC 1](https://example.com/1.md)\n- [RFC 2](https://example.com/2.md)\n- [RFC 3](https://example.com/3.md)\n"
        ));
        assert!(!is_contents("- [a](#a)\n- [b](#b)\n"));
        let mixed = "- [a](#a)\n- [b](#b)\n- [c](#c)\nThe first step reads the file.\nThe second writes it.\n";
        assert!(!is_contents(mixed));
    }

    #[test]
    fn bare_container_openings_are_glue() {
        let glue = |text: &str| {
            flags(&Chunk::sample_code(
                "src/a.rs",
                &["src/a.rs", "A"],
                "A",
                text,
            )) == GLUE
        };
        assert!(glue("\nimpl A {\n"));
        assert!(glue(
            "#[cfg(unix)]\nimpl<T: Clone> Visit for A<T>\nwhere T: Send {\n"
        ));
        assert!(glue("@dataclass\nclass A(Base):\n"));
        assert!(glue("export class A extends B {\n"));
        // A documented opening says what the container is for.
        assert!(!glue("/// Walks a tree.\nimpl A {\n"));
        assert!(!glue("# Walks a tree.\nclass A:\n"));
        // Whole definitions end with their bodies.
        assert!(!glue("struct A {}\n"));
        assert!(!glue("class A(Exception):\n    pass\n"));
        assert!(!glue("impl A {\n    fn f() {}\n}\n"));
        assert!(!glue(
            "mod tests {\n    use super::*;\n    use std::io;\n    use std::fs;\n"
        ));
        // Text between symbols is not a container's opening.
        let mut gap = Chunk::sample_code("src/a.rs", &["src/a.rs"], "", "impl A {\n");
        gap.symbol = None;
        assert_eq!(flags(&gap), 0);
    }

    #[test]
    fn thin_methods_are_flagged() {
        let doc = "/// Enables the global gitignore.\n///\n/// It is read from\n/// core.excludesFile, or from\n/// the XDG config dir when\n/// that is not set.\n";
        let setter = format!(
            "{doc}pub fn git_global(&mut self, yes: bool) -> &mut Self {{\n    self.opts.git_global = yes;\n    self\n}}\n"
        );
        assert_eq!(
            flags(&Chunk::sample_code(
                "src/walk.rs",
                &["src/walk.rs", "git_global"],
                "git_global",
                &setter
            )),
            THIN
        );
        // Real work under the same comment is not thin.
        let body = "    let x = 1;\n".repeat(8);
        let work = format!("{doc}fn matched(&self) -> bool {{\n{body}    true\n}}\n");
        assert_eq!(
            flags(&Chunk::sample_code(
                "src/dir.rs",
                &["src/dir.rs", "matched"],
                "matched",
                &work
            )),
            0
        );
        // Nor is a short function without much of a comment, or a type.
        let short = "/// Yes.\nfn f() -> bool {\n    true\n}\n";
        assert_eq!(
            flags(&Chunk::sample_code(
                "src/a.rs",
                &["src/a.rs", "f"],
                "f",
                short
            )),
            0
        );
        let mut ty = Chunk::sample_code(
            "src/a.rs",
            &["src/a.rs", "A"],
            "A",
            &format!("{doc}struct A;\n"),
        );
        if let Some(s) = ty.symbol.as_mut() {
            s.kind = "struct".into();
        }
        assert_eq!(flags(&ty), 0);
    }
}
