//! Property tests of the code chunker on broken code: every language's fixture
//! with random edits (cut ranges, stray brackets, quotes, comment openers,
//! macro lines, multi-byte characters, CRLF) must still tile its bytes exactly,
//! with no blank chunk, valid unique IDs and a deterministic result. Edited
//! code takes the paths clean fixtures never reach: syntax-error fallbacks,
//! the C/C++ header choice and the macro blanking.

use ctx::chunk::ChunkOptions;
use ctx::chunk::code::{chunk_code, language_by_name, skeleton};
use proptest::prelude::*;

/// `(language, path the chunker is told, source)`; the C sample is also read
/// as a header, which tries C++ as well.
const SOURCES: [(&str, &str, &str); 10] = [
    (
        "rust",
        "a/sample.rs",
        include_str!("../../fixtures/code/rust/sample.rs"),
    ),
    (
        "python",
        "a/sample.py",
        include_str!("../../fixtures/code/python/sample.py"),
    ),
    (
        "javascript",
        "a/sample.js",
        include_str!("../../fixtures/code/javascript/sample.js"),
    ),
    (
        "typescript",
        "a/sample.ts",
        include_str!("../../fixtures/code/typescript/sample.ts"),
    ),
    (
        "tsx",
        "a/sample.tsx",
        include_str!("../../fixtures/code/tsx/sample.tsx"),
    ),
    (
        "go",
        "a/sample.go",
        include_str!("../../fixtures/code/go/sample.go"),
    ),
    (
        "java",
        "a/sample.java",
        include_str!("../../fixtures/code/java/sample.java"),
    ),
    (
        "c",
        "a/sample.c",
        include_str!("../../fixtures/code/c/sample.c"),
    ),
    (
        "c",
        "a/sample.h",
        include_str!("../../fixtures/code/c/sample.c"),
    ),
    (
        "cpp",
        "a/sample.cpp",
        include_str!("../../fixtures/code/cpp/sample.cpp"),
    ),
];

/// Text an edit inserts: what breaks parsers and byte arithmetic.
const SNIPPETS: [&str; 20] = [
    "{",
    "}",
    "(",
    ")",
    "\"",
    "'",
    "`",
    "/*",
    "*/",
    "<",
    ";",
    "\n#define WRAP(a) \\\n  a\n",
    "\nATTR(x) ATTR2(y)\n",
    "\nMACRO(a, b);\n",
    "é",
    "日本語",
    "\r\n",
    "\n\n\n",
    "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
    "\n#if X // é\n}\n#endif\n",
];

#[derive(Debug, Clone)]
enum Edit {
    /// Cut up to `len` bytes at `at` (a share of the text's length).
    Cut { at: f64, len: usize },
    /// Insert `SNIPPETS[which]` at `at`.
    Insert { at: f64, which: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (0.0..1.0f64, 1usize..80).prop_map(|(at, len)| Edit::Cut { at, len }),
        (0.0..1.0f64, 0..SNIPPETS.len()).prop_map(|(at, which)| Edit::Insert { at, which }),
    ]
}

/// The char boundary at or before share `at` of `text`.
fn boundary(text: &str, at: f64) -> usize {
    let mut i = ((text.len() as f64) * at) as usize;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_string();
    for edit in edits {
        match *edit {
            Edit::Cut { at, len } => {
                let start = boundary(&out, at);
                let mut end = (start + len).min(out.len());
                while !out.is_char_boundary(end) {
                    end += 1;
                }
                out.replace_range(start..end, "");
            }
            Edit::Insert { at, which } => {
                let at = boundary(&out, at);
                out.insert_str(at, SNIPPETS[which]);
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::util::prop_cases(200), .. ProptestConfig::default() })]

    #[test]
    fn edited_code_still_tiles(
        which in 0..SOURCES.len(),
        edits in prop::collection::vec(edit(), 1..8),
        budget in prop::sample::select(vec![30usize, 120, 600]),
    ) {
        let (lang_name, path, source) = SOURCES[which];
        let lang = language_by_name(lang_name).expect("a fixture's language is known");
        let text = apply(source, &edits);
        let opts = ChunkOptions { max_chunk_tokens: budget };
        let out = chunk_code(path, &text, lang, &opts);
        if text.trim().is_empty() {
            prop_assert!(out.chunks.is_empty());
            return Ok(());
        }
        prop_assert!(!out.chunks.is_empty(), "no chunks for a non-blank file");
        prop_assert_eq!(out.chunks[0].bytes[0], 0);
        prop_assert_eq!(out.chunks[out.chunks.len() - 1].bytes[1], text.len());
        let mut ids = std::collections::HashSet::new();
        for pair in out.chunks.windows(2) {
            prop_assert_eq!(pair[0].bytes[1], pair[1].bytes[0], "gap or overlap after {:?}", pair[0].title_path);
        }
        for chunk in &out.chunks {
            prop_assert_eq!(&chunk.text, &text[chunk.bytes[0]..chunk.bytes[1]]);
            prop_assert!(!chunk.text.trim().is_empty(), "blank chunk at {:?}", chunk.bytes);
            prop_assert_eq!(chunk.lines, ctx::chunk::line_range(&text, chunk.bytes[0], chunk.bytes[1]));
            prop_assert_eq!(chunk.token_est, ctx::tokens::estimate(&chunk.text));
            prop_assert!(ctx::chunk::id::parse(&chunk.id).is_some(), "bad id {}", chunk.id);
            prop_assert!(ids.insert(chunk.id.clone()), "id {} twice", chunk.id);
            prop_assert_eq!(chunk.title_path[0].as_str(), path);
        }
        prop_assert_eq!(&out, &chunk_code(path, &text, lang, &opts));
        // A skeleton of broken code is still text of the file's shape, never a panic.
        let _ = skeleton(&text, lang);
    }
}
