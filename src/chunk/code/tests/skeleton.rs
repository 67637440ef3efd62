//! Skeletons of code files: signatures and doc comments kept, bodies elided.

use super::*;

#[test]
fn skeleton_of_rust_sample_is_small_and_keeps_every_signature() {
    let (_, path, text, _) = FIXTURES[0];
    let shape = skeleton(text, spec("rust"));
    let ratio = crate::tokens::estimate(&shape) * 100 / crate::tokens::estimate(text);
    // "A few hundred tokens" for the file's shape: under 40 % of its o200k-like
    // estimate (35 % with the old chars/4 estimate, which under-counts code).
    assert!(ratio < 40, "skeleton is {ratio}% of the file:\n{shape}");
    let chunked = chunk_code(path, text, spec("rust"), &ChunkOptions::default());
    for symbol in chunked
        .chunks
        .iter()
        .filter_map(|chunk| chunk.symbol.as_ref())
    {
        if symbol.kind == "function" || symbol.kind == "method" {
            assert!(
                shape.contains(&format!("{} {{ … }}", symbol.signature)),
                "missing {}:\n{shape}",
                symbol.signature
            );
        }
    }
    for body_line in [
        "self.follow_links = yes;",
        "map.entry(depth)",
        "assert!(is_hidden",
        "fs::read_dir(&path)",
    ] {
        assert!(
            !shape.contains(body_line),
            "body line {body_line} kept:\n{shape}"
        );
    }
    for kept in [
        "max_depth: Option<usize>,",
        "Io(String),",
        "type Item = PathBuf;",
        "//! A tiny directory walker",
    ] {
        assert!(shape.contains(kept), "{kept} missing:\n{shape}");
    }
    assert!(!shape.contains("use std::collections::HashMap;"));
}

#[test]
fn skeletons_of_other_languages_elide_bodies() {
    let python = skeleton(FIXTURES[1].2, spec("python"));
    assert!(python.contains("    def size(self) -> int:\n        \"\"\"Number of distinct SKUs.\"\"\"\n        ...\n"), "{python}");
    assert!(
        python.contains("class Inventory:\n    \"\"\"A collection of items keyed by SKU."),
        "{python}"
    );
    assert!(!python.contains("existing.quantity += item.quantity"));
    let c = skeleton(FIXTURES[7].2, spec("c"));
    assert!(c.contains("ring_t *ring_new(size_t capacity) { … }"), "{c}");
    assert!(c.contains("    size_t capacity;"), "{c}");
    let bodies = [
        "fs::read_dir(&path)",
        "existing.quantity += item.quantity",
        "this.count += 1;",
        "results.push(await runOne",
        "useMemo(",
        "c.order.MoveToFront(element)",
        "total = total.add",
        "ring->len += 1;",
        "tokens_ -= n;",
    ];
    for ((lang, _, text, _), body) in FIXTURES.into_iter().zip(bodies) {
        assert!(text.contains(body), "{lang}: fixture lacks {body}");
        let shape = skeleton(text, spec(lang));
        assert!(
            !shape.contains(body),
            "{lang}: body line {body} kept:\n{shape}"
        );
        assert!(
            shape.len() < text.len() * 3 / 4,
            "{lang}: skeleton barely smaller:\n{shape}"
        );
    }
}

#[test]
fn skeleton_of_single_chunks() {
    let python = spec("python");
    let method = "    @property\n    def size(self) -> int:\n        \"\"\"Number of SKUs.\n\n        More.\n        \"\"\"\n        return len(self._items)\n";
    assert_eq!(
        skeleton_of_chunk(method, python),
        "    @property\n    def size(self) -> int:\n        \"\"\"Number of SKUs.\"\"\"\n        ...\n"
    );
    let rust = "    /// Doc.\n    pub fn build(&self) -> Walk {\n        Walk {}\n    }\n";
    assert_eq!(
        skeleton_of_chunk(rust, spec("rust")),
        "    /// Doc.\n    pub fn build(&self) -> Walk { … }\n"
    );
    let js = "  /** Sends. */\n  send(event, ...args) {\n    return this.emit(event);\n  }\n";
    assert_eq!(
        skeleton_of_chunk(js, spec("javascript")),
        "  /** Sends. */\n  send(event, ...args) { … }\n"
    );
    let imports = "use std::fmt;\nuse std::io;\n";
    assert_eq!(skeleton_of_chunk(imports, spec("rust")), imports);
}

/// The skeleton of each of `text`'s chunks, cut from the file's, joined in
/// order as a file's outline shows them.
fn parts_joined(lang: &str, path: &str, text: &str) -> String {
    let chunked = chunk_code(path, text, spec(lang), &ChunkOptions::default());
    let parts: Vec<std::ops::Range<usize>> = chunked
        .chunks
        .iter()
        .map(|chunk| chunk.bytes[0]..chunk.bytes[1])
        .collect();
    skeletons_of_parts(text, spec(lang), &parts)
        .expect("the file parses")
        .concat()
}

/// `{` and `}` outside the elision `{ … }` match up, never closing more
/// than is open.
fn assert_balanced(shape: &str) {
    let mut depth = 0i64;
    for c in shape.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        assert!(depth >= 0, "a `}}` closes nothing:\n{shape}");
    }
    assert_eq!(depth, 0, "braces do not balance:\n{shape}");
}

/// Language, path, source, what the skeleton keeps, what it elides.
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
);

/// Each chunk's skeleton is cut from its file's: a container with member
/// chunks still shows the members it declares (required methods,
/// prototypes, abstract methods, enum constants, fields) with their doc
/// comments, bodies are elided, and the parts read in order balance their
/// braces, whichever chunk holds the container's `}`.
#[test]
fn chunk_skeletons_keep_declared_members_and_balance_braces() {
    let cases: [Case; 6] = [
        (
            "rust",
            "src/lib.rs",
            "pub trait Shape {\n    /// Area.\n    fn area(&self) -> f64;\n    fn name(&self) -> &str { \"s\" }\n}\nextern \"C\" {\n    fn abs(x: i32) -> i32;\n}\n",
            &[
                "pub trait Shape {\n    /// Area.\n    fn area(&self) -> f64;\n",
                "    fn name(&self) -> &str { … }\n}\n",
                "extern \"C\" {\n    fn abs(x: i32) -> i32;\n}\n",
            ],
            &["\"s\""],
        ),
        (
            "java",
            "Storage.java",
            "interface Storage<K, V> {\n    /** Gets. */\n    V get(K key);\n    default boolean has(K key) {\n        return get(key) != null;\n    }\n}\n\nenum Policy {\n    LRU, LFU;\n    int weight() {\n        return ordinal();\n    }\n}\n",
            &[
                "interface Storage<K, V> {\n    /** Gets. */\n    V get(K key);\n",
                "    default boolean has(K key) { … }\n}\n",
                "enum Policy {\n    LRU, LFU;\n",
                "    int weight() { … }\n}\n",
            ],
            &["return get(key)", "return ordinal()"],
        ),
        (
            "typescript",
            "shape.ts",
            "export abstract class Shape {\n  /** The area. */\n  abstract area(): number;\n  name = \"shape\";\n  describe(): string {\n    return `${this.name}: ${this.area()}`;\n  }\n}\n",
            &[
                "export abstract class Shape {\n  /** The area. */\n  abstract area(): number;\n  name = \"shape\";\n",
                "  describe(): string { … }\n}\n",
            ],
            &["return `"],
        ),
        (
            "cpp",
            "polygon.cpp",
            "class Polygon {\n public:\n  Polygon();\n  explicit Polygon(int sides);\n  int sides() const { return sides_; }\n\n private:\n  int sides_;\n};\n",
            &[
                "class Polygon {\n public:\n  Polygon();\n  explicit Polygon(int sides);\n",
                "  int sides() const { … }\n",
                " private:\n  int sides_;\n};\n",
            ],
            &["return sides_"],
        ),
        (
            "tsx",
            "Counter.tsx",
            "export class Counter extends React.Component<Props> {\n  state = { n: 0 };\n  render() {\n    return (\n      <div>{this.state.n}</div>\n    );\n  }\n}\n",
            &[
                "export class Counter extends React.Component<Props> {\n  state = { n: 0 };\n",
                "  render() { … }\n}\n",
            ],
            &["<div>"],
        ),
        (
            "go",
            "kind/kind.go",
            "package kind\n\nconst (\n\tKindFile Kind = iota\n\tKindDir\n)\n\ntype (\n\tVisitor interface{ Visit(k Kind) }\n\tOptions struct{ Depth int }\n)\n\nfunc (o Options) Walk() {\n\tprintln(o.Depth)\n}\n",
            &[
                "const (\n\tKindFile Kind = iota\n\tKindDir\n)\n",
                "type (\n\tVisitor interface{ Visit(k Kind) }\n\tOptions struct{ Depth int }\n)\n",
                "func (o Options) Walk() { … }\n",
            ],
            &["println"],
        ),
    ];
    for (lang, path, text, kept, elided) in cases {
        let shape = parts_joined(lang, path, text);
        for signature in kept {
            assert!(
                shape.contains(signature),
                "{lang}: lost {signature:?}:\n{shape}"
            );
        }
        for body in elided {
            assert!(
                !shape.contains(body),
                "{lang}: body {body:?} kept:\n{shape}"
            );
        }
        assert_balanced(&shape.replace("{ … }", ""));
    }
}

/// A body split over several chunks is elided in the first; the later
/// parts have nothing of it to show, and the chunks after it are cut from
/// the file's skeleton as if it were whole.
#[test]
fn a_split_body_is_elided_in_its_first_part() {
    let text = super::long_function(400);
    let chunked = chunk_code("src/long.rs", &text, spec("rust"), &options(200));
    let parts: Vec<std::ops::Range<usize>> = chunked
        .chunks
        .iter()
        .map(|chunk| chunk.bytes[0]..chunk.bytes[1])
        .collect();
    let shapes = skeletons_of_parts(&text, spec("rust"), &parts).expect("parses");
    let first = shapes
        .iter()
        .position(|shape| shape.contains("pub fn total"))
        .expect("the function's first part");
    assert!(
        shapes[first].ends_with("pub fn total(values: &[u64]) -> u64 { … }\n"),
        "{}",
        shapes[first]
    );
    let last = shapes.len() - 1;
    assert!(last > first + 1, "{shapes:?}");
    assert!(
        shapes[first + 1..last].iter().all(String::is_empty),
        "{shapes:?}"
    );
    assert_eq!(shapes[last], "fn after() { … }\n");
}
