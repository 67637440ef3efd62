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
