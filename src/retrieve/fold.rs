//! Folding near-duplicate hits. Projects ship the same text more than once: a
//! JavaScript package's `dist/cjs` and `dist/esm` builds, vendored copies of a
//! README, a `.d.ts` in two output trees. Listed one after the other, the copies
//! use up a search's `k` slots and an evidence budget on one answer, so a copy
//! of a better-ranked hit is folded into it and named there instead; so is a
//! declaration of a better-ranked definition, or the reverse.

use std::collections::HashSet;

use crate::chunk::Chunk;

/// Share of distinct words two chunks must have in common (Jaccard) to be one
/// text. Compiled copies differ in module plumbing (`types_js_1.X` against `X`,
/// `exports.f = f`): on the MCP TypeScript SDK's `cjs`/`esm` functions that adds
/// one or two words to a few dozen; two different bodies under one name (the
/// `new` of two types, two `tests > it_works`) share far fewer.
const MIN_SHARED_WORDS: f32 = 0.8;

/// Shortest length of the two, as a share of the longest, for copies.
const MIN_LENGTH_RATIO: f32 = 0.8;

/// Whether `b` is a copy of `a` at another place: same kind, the same heading
/// or symbol path within its document, and nearly the same text.
pub fn near_duplicate(a: &Chunk, b: &Chunk) -> bool {
    if !same_place(a, b) {
        return false;
    }
    if a.text == b.text {
        return true;
    }
    let (la, lb) = (a.text.len() as f32, b.text.len() as f32);
    if la.min(lb) < MIN_LENGTH_RATIO * la.max(lb) {
        return false;
    }
    let (wa, wb) = (words(&a.text), words(&b.text));
    let union = wa.union(&wb).count();
    union > 0 && wa.intersection(&wb).count() as f32 >= MIN_SHARED_WORDS * union as f32
}

/// Whether `a` and `b` stand at the same place in two files (kind and inner
/// title path), the one condition of [`near_duplicate`] that needs no text.
pub fn same_place(a: &Chunk, b: &Chunk) -> bool {
    a.kind == b.kind && a.doc != b.doc && inner_path(a) == inner_path(b)
}

/// The title path without the element that names the file itself (a code
/// chunk's path starts with its file): two copies differ only there. A
/// Markdown path starts with the document's title, which copies share.
fn inner_path(c: &Chunk) -> &[String] {
    match c.title_path.split_first() {
        Some((first, rest)) if *first == c.doc => rest,
        _ => &c.title_path,
    }
}

/// Whether `b` is the other half of `a`: one declares what the other
/// defines (a header's prototype and its body, a `.d.ts` or `.pyi` stub and
/// its implementation, a forward declaration and the function), by qualified
/// name, in files of the same stem (`ring.h` and `ring.c`, `errors.d.ts` and
/// `errors.js`) or in one file.
pub fn counterpart(a: &Chunk, b: &Chunk) -> bool {
    let (Some(sa), Some(sb)) = (&a.symbol, &b.symbol) else {
        return false;
    };
    sa.decl != sb.decl
        && super::candidates::canon(&sa.qualified) == super::candidates::canon(&sb.qualified)
        && super::candidates::stem(&a.doc) == super::candidates::stem(&b.doc)
}

fn words(text: &str) -> HashSet<&str> {
    text.split(|ch: char| !ch.is_alphanumeric() && ch != '_')
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ChunkKind;

    /// A code chunk of `symbol_path` in file `doc`.
    fn code(doc: &str, symbol_path: &[&str], text: &str) -> Chunk {
        let path: Vec<&str> = std::iter::once(doc)
            .chain(symbol_path.iter().copied())
            .collect();
        Chunk::sample(doc, &path, text, ChunkKind::Code)
    }

    fn section(doc: &str, title_path: &[&str]) -> Chunk {
        Chunk::sample(doc, title_path, "Run the installer.", ChunkKind::Markdown)
    }

    const ESM: &str = "validateProtocolVersion(req) {
        const protocolVersion = req.headers.get('mcp-protocol-version');
        if (protocolVersion !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion)) {
            return this.createJsonErrorResponse(400, -32000, `Bad Request: Unsupported protocol version`);
        }
        return undefined;
    }";

    #[test]
    fn compiled_copies_of_one_method_are_duplicates() {
        let cjs = ESM.replace("!SUPPORTED", "!types_js_1.SUPPORTED");
        let a = code("dist/esm/a.js", &["T", "validate"], ESM);
        let b = code("dist/cjs/a.js", &["T", "validate"], &cjs);
        assert!(near_duplicate(&a, &b));
    }

    #[test]
    fn same_name_different_body_is_not() {
        let a = code(
            "a.rs",
            &["Walk", "new"],
            "fn new(root: &Path) -> Walk { Walk { root: root.to_owned(), depth: 0 } }",
        );
        let b = code(
            "b.rs",
            &["Walk", "new"],
            "fn new(opts: Options) -> Walk { let stack = Vec::with_capacity(opts.threads); Walk { stack } }",
        );
        assert!(!near_duplicate(&a, &b));
    }

    #[test]
    fn same_text_at_another_heading_or_in_the_same_doc_is_not() {
        let a = section("a.md", &["Guide", "Install"]);
        assert!(!near_duplicate(&a, &section("b.md", &["Guide", "Upgrade"])));
        assert!(!near_duplicate(
            &a,
            &section("b.md", &["Manual", "Install"])
        ));
        assert!(!near_duplicate(&a, &section("a.md", &["Guide", "Install"])));
        assert!(near_duplicate(
            &a,
            &section("vendor/a.md", &["Guide", "Install"])
        ));
    }

    #[test]
    fn a_copy_is_always_at_the_same_place() {
        // Search reads a candidate's text only when `same_place` holds, so a
        // pair `near_duplicate` accepts must never fail it.
        let a = section("a.md", &["Guide", "Install"]);
        for b in [
            section("vendor/a.md", &["Guide", "Install"]),
            section("b.md", &["Guide", "Upgrade"]),
            section("a.md", &["Guide", "Install"]),
        ] {
            assert_eq!(same_place(&a, &b), near_duplicate(&a, &b));
        }
        let esm = code("dist/esm/a.js", &["T", "validate"], ESM);
        let cjs = code("dist/cjs/a.js", &["T", "validate"], "");
        assert!(same_place(&esm, &cjs));
        assert!(!near_duplicate(&esm, &cjs));
    }

    #[test]
    fn a_much_longer_text_is_not_a_copy() {
        let long = format!("{ESM}\n{ESM}\n{ESM}");
        let a = code("x/a.js", &["T", "v"], ESM);
        let b = code("y/a.js", &["T", "v"], &long);
        assert!(!near_duplicate(&a, &b));
    }

    /// A code chunk defining (or, with `decl`, declaring) `qualified` in `doc`.
    fn symbol(doc: &str, qualified: &str, decl: bool) -> Chunk {
        let mut c = code(doc, &[qualified], "int ring_push(struct ring *r, int v);");
        c.symbol = Some(crate::chunk::Symbol {
            name: qualified.rsplit("::").next().unwrap_or(qualified).into(),
            qualified: qualified.into(),
            kind: "function".into(),
            signature: String::new(),
            doc: String::new(),
            supers: Vec::new(),
            requires: Vec::new(),
            decl,
            lines: None,
            declared: Vec::new(),
        });
        c
    }

    #[test]
    fn a_declaration_and_its_definition_are_counterparts() {
        let header = symbol("include/ring.h", "ring_push", true);
        let body = symbol("src/ring.c", "ring_push", false);
        assert!(counterpart(&header, &body) && counterpart(&body, &header));
        // `buf::push` and `buf.push` are one name.
        assert!(counterpart(
            &symbol("ring.hpp", "buf::push", true),
            &symbol("ring.cpp", "buf.push", false)
        ));
        // Two definitions, two declarations, another stem, another name.
        assert!(!counterpart(
            &body,
            &symbol("lib/ring.c", "ring_push", false)
        ));
        assert!(!counterpart(
            &header,
            &symbol("ring.pyi", "ring_push", true)
        ));
        assert!(!counterpart(
            &header,
            &symbol("src/queue.c", "ring_push", false)
        ));
        assert!(!counterpart(
            &header,
            &symbol("src/ring.c", "ring_pop", false)
        ));
        // A forward declaration in the definition's own file is one too.
        assert!(counterpart(&body, &symbol("src/ring.c", "ring_push", true)));
    }
}
