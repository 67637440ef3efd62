//! Syntax errors: a file the grammar cannot parse falls back to lines, a
//! small error keeps the symbols around it, a misread declarator names
//! nothing, and C++ in a `.h` is told from C by its errors.

use super::*;

/// `text` chunked as `path` in `lang` with the default options, checked to
/// tile the file losslessly.
fn tiled(path: &str, lang: &str, text: &str) -> Chunked {
    let chunked = chunk_code(path, text, spec(lang), &ChunkOptions::default());
    assert_tiles(text, &chunked);
    chunked
}

#[test]
fn broken_file_falls_back_to_lines() {
    let mut text = String::from("fn ok() {}\n\n");
    for line in 0..200 {
        text.push_str(&format!(
            "let {line} = ) ( }} {{ ; struct impl for {line}\n"
        ));
        if line % 25 == 0 {
            text.push('\n');
        }
    }
    let chunked = chunk_code("src/broken.rs", &text, spec("rust"), &options(100));
    assert_tiles(&text, &chunked);
    assert!(chunked.chunks.iter().all(|chunk| chunk.symbol.is_none()));
    assert!(chunked.chunks.len() > 1);
    assert_eq!(chunked.notes.len(), 1);
    assert!(
        chunked.notes[0].message.contains("split by lines"),
        "{:?}",
        chunked.notes
    );
    assert!(chunked.notes[0].line.is_some());
}

#[test]
fn small_syntax_error_keeps_symbols() {
    let (_, path, text, _) = FIXTURES[0];
    let broken = text.replace("bucket.sort();", "bucket.sort(;");
    let chunked = chunk_code(path, &broken, spec("rust"), &ChunkOptions::default());
    assert_tiles(&broken, &chunked);
    assert_eq!(chunked.notes.len(), 1, "{:?}", chunked.notes);
    assert!(chunked.notes[0].message.contains("syntax error"));
    let symbols = symbol_lines(&chunked);
    assert!(symbols.contains("method WalkBuilder::build"), "{symbols}");
    assert!(symbols.contains("function sort::by_name"), "{symbols}");
}

#[test]
fn errors_around_well_formed_definitions_keep_symbols() {
    let mut header = String::from("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
    for index in 0..30 {
        header.push_str(&format!(
            "/** Opens database {index}. */\nint db_open_{index}(const char *path, int flags);\n\n"
        ));
    }
    header.push_str("#ifdef __cplusplus\n}\n#endif\n");
    let chunked = tiled("db.h", "c", &header);
    let symbols = symbol_lines(&chunked);
    assert!(
        symbols.contains("function db_open_0 "),
        "{symbols}\n{:?}",
        chunked.notes
    );
    assert!(symbols.contains("function db_open_29 "), "{symbols}");
}

#[test]
fn declarators_misread_around_unexpanded_macros_name_nothing() {
    // `EXPORT void (*hook)(…)` reads as a function `void` returning a
    // function, and `INLINE type\nname(void) {…}` as a function whose
    // declarator is `(void)`: neither becomes a symbol named `void`, and the
    // well-formed definitions around them keep theirs.
    let text = "RING_EXPORT void (*ring_on_overflow)(int);\n\n\
                RING_INLINE ring_t\nring_cpu(void) {\n    return 0;\n}\n\n\
                int ring_ok(void) {\n    return 1;\n}\n";
    let chunked = tiled("ring.c", "c", text);
    let symbols = symbol_lines(&chunked);
    assert!(!symbols.contains("void"), "{symbols}");
    assert!(symbols.contains("function ring_ok "), "{symbols}");
}

/// A `.h` with C++ in it (a class in a namespace) is chunked as C++; a C
/// header, and a C++ file's syntax errors, stay as they were.
#[test]
fn cpp_headers_are_told_from_c_headers() {
    let cpp = "#pragma once\nnamespace buf {\n/// A ring.\nclass Ring {\n public:\n  explicit Ring(int cap);\n  bool push(int v);\n  int size() const { return len_; }\n private:\n  int len_ = 0;\n};\n}  // namespace buf\n";
    let chunked = tiled("include/ring.h", "c", cpp);
    assert!(chunked.notes.is_empty(), "{:?}", chunked.notes);
    assert!(
        chunked
            .chunks
            .iter()
            .all(|c| c.lang.as_deref() == Some("cpp"))
    );
    let symbols = symbol_lines(&chunked);
    assert!(symbols.contains("class buf::Ring 3-"), "{symbols}");
    assert!(symbols.contains("method buf::Ring::size "), "{symbols}");
    assert!(!symbols.contains("function push"), "{symbols}");

    let c = "#ifndef RING_H\n#define RING_H\nstruct ring { int len; };\nint ring_push(struct ring *r, int v);\n#endif\n";
    let chunked = chunk_code("ring.h", c, spec("c"), &ChunkOptions::default());
    assert!(
        chunked
            .chunks
            .iter()
            .all(|c| c.lang.as_deref() == Some("c"))
    );
    assert!(symbol_lines(&chunked).contains("function ring_push 4-4 (declaration)"));

    // Only a `.h` is in doubt: a `.c` with errors is still C.
    let chunked = chunk_code("ring.c", cpp, spec("c"), &ChunkOptions::default());
    assert!(
        chunked
            .chunks
            .iter()
            .all(|c| c.lang.as_deref() == Some("c"))
    );
}

#[test]
fn a_macro_runs_on_over_its_continued_lines_past_a_comment() {
    // tree-sitter-c ends `STEP` at the comment inside it (as ICU's
    // `U8_INTERNAL_NEXT_OR_SUB`), and its other lines parse as stray code.
    let text = "#define ONE 1\n\
                #define STEP(x) BEGIN { \\\n    (x)++; \\\n    if((x)!=0 && \\\n\
                \x20       /* count it */ \\\n        (x)>1) { \\\n        int y = (x); \\\n\
                \x20   } \\\n} END\n\n\
                #define TWO 2\n\n\
                int after(void) {\n    return TWO;\n}\n";
    let chunked = tiled("step.h", "c", text);
    let symbols = symbol_lines(&chunked);
    assert!(symbols.contains("macro ONE 1-1\n"), "{symbols}");
    assert!(symbols.contains("macro STEP 2-9\n"), "{symbols}");
    assert!(
        symbols.contains("macro TWO 10-11 node 11-11\n"),
        "{symbols}"
    );
    assert!(
        symbols.contains("function after 12-15 node 13-15\n"),
        "{symbols}"
    );
}

#[test]
fn preprocessor_leave_classes_and_functions_whole() {
    // Read as the class's name, `GTEST_API_` made `Test` a function whose
    // body held the class's members.
    let text = "namespace testing {\n\
                class GTEST_API_ Test {\n public:\n  void Run() {\n    body();\n  }\n};\n\
                GTEST_API_ std::string Format(int x) {\n  return \"\";\n}\n\
                }  // namespace testing\n";
    let chunked = tiled("gtest.h", "cpp", text);
    assert!(chunked.notes.is_empty(), "{:?}", chunked.notes);
    let symbols = symbol_lines(&chunked);
    assert!(symbols.contains("class testing::Test 2-"), "{symbols}");
    assert!(
        symbols.contains("method testing::Test::Run 4-7 node 4-6"),
        "{symbols}"
    );
    assert!(
        symbols.contains("function testing::Format 8-11 node 8-10"),
        "{symbols}"
    );
    let run = chunked
        .chunks
        .iter()
        .find(|chunk| chunk.title_path.last().is_some_and(|t| t == "Run"))
        .expect("Run's chunk");
    assert!(run.text.contains("void Run() {"), "{}", run.text);
}

#[test]
fn a_backslash_ends_a_line_of_rust_without_continuing_it() {
    let text = "fn f() {} // C:\\\nfn g() {}\n";
    let chunked = tiled("lib.rs", "rust", text);
    let symbols = symbol_lines(&chunked);
    assert!(symbols.contains("function f 1-1\n"), "{symbols}");
    assert!(symbols.contains("function g 2-2\n"), "{symbols}");
}

/// Of two parses of a header, one that would be split by lines loses to one
/// that would not, whatever their counts (C read `gmock-actions.h` as one
/// error over its include guard, C++ as five small ones, and C had won);
/// otherwise fewer errors win (jemalloc's `hpdata.h`: 5 as C, 7 as C++ with
/// fewer bytes and fewer symbols).
#[test]
fn a_parse_that_keeps_symbols_wins_then_fewer_errors() {
    let parse = |count: usize, ranges: Vec<std::ops::Range<usize>>| extract::Extraction {
        definitions: Vec::new(),
        file_docs: Vec::new(),
        statements: Vec::new(),
        errors: (count > 0).then_some(extract::SyntaxErrors {
            first_line: 1,
            count,
            ranges,
        }),
    };
    let text = "x".repeat(100_000);
    let one_big = parse(1, std::iter::once(130..60_000).collect());
    let five_small = parse(5, vec![10..20, 30..40, 50..60, 70..80, 90..100]);
    assert!(five_small.better_than(&one_big, &text));
    assert!(!one_big.better_than(&five_small, &text));
    let seven_smaller = parse(7, vec![10..15, 30..35]);
    assert!(five_small.better_than(&seven_smaller, &text));
    assert!(!seven_smaller.better_than(&five_small, &text));
    let two_big = parse(2, vec![10..50_000, 50_100..60_000]);
    assert!(one_big.better_than(&two_big, &text));
    assert!(parse(0, Vec::new()).better_than(&five_small, &text));
    assert!(!five_small.better_than(&parse(0, Vec::new()), &text));
}

#[test]
fn a_linkage_block_split_over_two_conditionals_is_no_error() {
    // Each `#ifdef __cplusplus` holds half of `extern "C" { … }`: C read the
    // whole header as one error; C++ also missed the prototypes its include
    // guard holds.
    let text = "#ifndef RING_H\n#define RING_H\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n\
                /* Appends v. */\nint ring_push(struct ring *r, int v);\n\
                const char *ring_name(const struct ring *r);\n\n\
                #ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n#endif\n";
    for (path, lang) in [("ring.h", "c"), ("ring.hpp", "cpp")] {
        let chunked = tiled(path, lang, text);
        assert!(chunked.notes.is_empty(), "{path}: {:?}", chunked.notes);
        let symbols = symbol_lines(&chunked);
        assert!(
            symbols.contains("function ring_push 8-9 (declaration)\n")
                && symbols.contains("function ring_name 10-")
                && symbols.contains(" (declaration)\n"),
            "{path}: {symbols}"
        );
    }
}
