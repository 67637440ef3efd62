//! Unit tests of the code chunker: golden symbol lists per language, tiling
//! invariants, splitting, supertypes and generated-file detection (syntax
//! errors and their fallbacks in [`errors`], names declared together in
//! [`groups`], skeletons in [`skeleton`]).

use super::*;

mod errors;
mod groups;
mod skeleton;

/// `(language, path, source, golden symbol list)` for every fixture.
macro_rules! fixtures {
    ($($lang:literal => $dir:literal / $file:literal),* $(,)?) => {
        [$((
            $lang,
            concat!("fixtures/code/", $dir, "/", $file),
            include_str!(concat!("../../../fixtures/code/", $dir, "/", $file)),
            include_str!(concat!("../../../fixtures/code/", $dir, "/sample.symbols.txt")),
        )),*]
    };
}

const FIXTURES: [(&str, &str, &str, &str); 9] = fixtures![
    "rust" => "rust" / "sample.rs",
    "python" => "python" / "sample.py",
    "javascript" => "javascript" / "sample.js",
    "typescript" => "typescript" / "sample.ts",
    "tsx" => "tsx" / "sample.tsx",
    "go" => "go" / "sample.go",
    "java" => "java" / "sample.java",
    "c" => "c" / "sample.c",
    "cpp" => "cpp" / "sample.cpp",
];

fn spec(name: &str) -> &'static LanguageSpec {
    language_by_name(name).expect("language in the table")
}

fn options(max_chunk_tokens: usize) -> ChunkOptions {
    ChunkOptions { max_chunk_tokens }
}

/// One line per symbol chunk: `kind qualified first-last`, then the node's
/// own lines when they differ, the supertypes after ` : `, and whether it
/// is a declaration; below it, indented, the members it declares.
fn symbol_lines(chunked: &Chunked) -> String {
    let mut out = String::new();
    for chunk in &chunked.chunks {
        if let Some(symbol) = &chunk.symbol {
            // The chunk's lines, then the node's own when they differ.
            out.push_str(&format!(
                "{} {} {}-{}",
                symbol.kind, symbol.qualified, chunk.lines[0], chunk.lines[1]
            ));
            if let Some([first, last]) = symbol.lines.filter(|&own| own != chunk.lines) {
                out.push_str(&format!(" node {first}-{last}"));
            }
            if !symbol.supers.is_empty() {
                out.push_str(&format!(" : {}", symbol.supers.join(", ")));
            }
            if symbol.decl {
                out.push_str(" (declaration)");
            }
            out.push('\n');
            for member in &symbol.declared {
                out.push_str(&format!(
                    "    {} {} {}-{}\n",
                    member.kind, member.name, member.lines[0], member.lines[1]
                ));
            }
        }
    }
    out
}

fn assert_tiles(text: &str, chunked: &Chunked) {
    let chunks = &chunked.chunks;
    assert!(!chunks.is_empty(), "no chunks for a non-empty file");
    assert_eq!(chunks[0].bytes[0], 0);
    assert_eq!(chunks[chunks.len() - 1].bytes[1], text.len());
    for pair in chunks.windows(2) {
        assert_eq!(
            pair[0].bytes[1], pair[1].bytes[0],
            "gap or overlap after {:?}",
            pair[0].title_path
        );
    }
    for chunk in chunks {
        assert_eq!(
            chunk.text,
            crate::chunk::encoded::elided(&text[chunk.bytes[0]..chunk.bytes[1]])
        );
        assert!(
            !trim(&chunk.text).is_empty(),
            "whitespace-only chunk at {:?}",
            chunk.bytes
        );
        assert_eq!(
            chunk.lines,
            crate::chunk::line_range(text, chunk.bytes[0], chunk.bytes[1])
        );
        assert_eq!(chunk.token_est, crate::tokens::estimate(&chunk.text));
        assert_eq!(chunk.kind, ChunkKind::Code);
        assert!(id::parse(&chunk.id).is_some(), "bad id {}", chunk.id);
        assert_eq!(chunk.title_path[0], chunk.doc);
    }
}

#[test]
fn queries_compile_and_extensions_are_unique() {
    let mut seen = std::collections::HashSet::new();
    for lang in all_languages() {
        if let Err(error) = lang.compiled() {
            panic!("{error}");
        }
        for extension in lang.extensions {
            assert!(
                seen.insert(*extension),
                "extension {extension} listed twice"
            );
        }
        assert_eq!(
            language_by_name(lang.name).map(|found| found.name),
            Some(lang.name)
        );
    }
}

#[test]
fn languages_by_path() {
    let name = |path| language_for_path(path).map(|lang| lang.name);
    assert_eq!(name("src/walk.rs"), Some("rust"));
    assert_eq!(name("a/b/stubs.pyi"), Some("python"));
    assert_eq!(name("web/App.JSX"), Some("javascript"));
    assert_eq!(name("lib/index.mts"), Some("typescript"));
    assert_eq!(name("ui/List.tsx"), Some("tsx"));
    assert_eq!(name("include/ring.h"), Some("c"));
    assert_eq!(name("include/ring.hxx"), Some("cpp"));
    assert_eq!(name("Makefile"), None);
    assert_eq!(name(".rs"), None);
    assert_eq!(name("notes.md"), None);
}

#[test]
fn golden_symbols() {
    for (lang, path, text, golden) in FIXTURES {
        let chunked = chunk_code(path, text, spec(lang), &ChunkOptions::default());
        assert!(chunked.notes.is_empty(), "{lang}: {:?}", chunked.notes);
        // `CTX_BLESS=1` rewrites the lists after a deliberate change; read
        // the diff before committing it.
        if std::env::var_os("CTX_BLESS").is_some() {
            let list = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(path)
                .with_file_name("sample.symbols.txt");
            std::fs::write(&list, symbol_lines(&chunked)).expect("write golden list");
            continue;
        }
        assert_eq!(
            symbol_lines(&chunked),
            golden,
            "{lang}: symbols differ from the golden list"
        );
    }
}

#[test]
fn fixtures_tile_at_every_budget() {
    for (lang, path, text, _) in FIXTURES {
        for budget in [20, 60, 150, 600, 10_000] {
            let chunked = chunk_code(path, text, spec(lang), &options(budget));
            assert_tiles(text, &chunked);
            for chunk in &chunked.chunks {
                let single_line = chunk
                    .text
                    .lines()
                    .filter(|line| !line.trim().is_empty())
                    .count()
                    == 1;
                assert!(
                    chunk.token_est <= budget || single_line,
                    "{lang}@{budget}: {} tokens at lines {:?}",
                    chunk.token_est,
                    chunk.lines
                );
            }
        }
    }
}

#[test]
fn titles_and_symbols_of_a_method() {
    let (_, path, text, _) = FIXTURES[0];
    let chunked = chunk_code(path, text, spec("rust"), &ChunkOptions::default());
    let build = chunked
        .chunks
        .iter()
        .find(|chunk| {
            chunk
                .symbol
                .as_ref()
                .is_some_and(|symbol| symbol.qualified == "WalkBuilder::build")
        })
        .expect("WalkBuilder::build");
    assert_eq!(
        build.title_path,
        ["fixtures/code/rust/sample.rs", "WalkBuilder", "build"]
    );
    assert_eq!(build.lang.as_deref(), Some("rust"));
    let symbol = build.symbol.as_ref().expect("symbol");
    assert_eq!(symbol.kind, "method");
    assert_eq!(symbol.signature, "pub fn build(&self) -> Walk");
    assert_eq!(
        symbol.doc,
        "/// Consumes the settings and returns the walk."
    );
    assert!(
        build.text.contains("#[must_use]"),
        "attributes join their symbol"
    );
    let python = chunk_code(
        "inv.py",
        FIXTURES[1].2,
        spec("python"),
        &ChunkOptions::default(),
    );
    let size = python
        .chunks
        .iter()
        .filter_map(|chunk| chunk.symbol.as_ref())
        .find(|symbol| symbol.qualified == "Inventory.size")
        .expect("Inventory.size");
    assert_eq!(size.doc, "\"\"\"Number of distinct SKUs.\"\"\"");
    assert_eq!(size.signature, "@property def size(self) -> int:");
}

#[test]
fn ids_are_stable_and_unique() {
    for (lang, path, text, _) in FIXTURES {
        let first = chunk_code(path, text, spec(lang), &ChunkOptions::default());
        let second = chunk_code(path, text, spec(lang), &ChunkOptions::default());
        assert_eq!(first, second);
        let ids: std::collections::HashSet<_> =
            first.chunks.iter().map(|chunk| &chunk.id).collect();
        assert_eq!(ids.len(), first.chunks.len(), "{lang}: duplicate ids");
    }
}

fn long_function(lines: usize) -> String {
    let mut text = String::from(
        "use std::fmt;\n\n/// Adds things up.\npub fn total(values: &[u64]) -> u64 {\n",
    );
    for line in 0..lines {
        text.push_str(&format!(
            "    let value_{line} = values.get({line}).copied().unwrap_or(0); // é\n"
        ));
        if line % 10 == 9 {
            text.push('\n');
        }
    }
    text.push_str("    0\n}\n\nfn after() {}\n");
    text
}

#[test]
fn long_function_is_split_into_parts() {
    let text = long_function(120);
    let chunked = chunk_code(
        "src/total.rs",
        &text,
        spec("rust"),
        &ChunkOptions::default(),
    );
    assert_tiles(&text, &chunked);
    let parts: Vec<&Chunk> = chunked
        .chunks
        .iter()
        .filter(|chunk| {
            chunk
                .symbol
                .as_ref()
                .is_some_and(|symbol| symbol.name == "total")
        })
        .collect();
    assert!(parts.len() >= 2, "expected parts, got {}", parts.len());
    for (index, part) in parts.iter().enumerate() {
        assert_eq!(part.part, Some([index + 1, parts.len()]));
        assert_eq!(part.title_path, ["src/total.rs", "total"]);
        assert!(part.token_est <= 600);
    }
    assert!(
        parts[0]
            .text
            .trim_start()
            .starts_with("/// Adds things up.")
    );
    let after = chunked.chunks.last().expect("chunks");
    assert_eq!(
        after.symbol.as_ref().map(|symbol| symbol.name.as_str()),
        Some("after")
    );
    assert_eq!(after.part, None);
}

#[test]
fn degenerate_inputs() {
    let rust = spec("rust");
    assert!(
        chunk_code("a.rs", "", rust, &ChunkOptions::default())
            .chunks
            .is_empty()
    );
    assert!(
        chunk_code("a.rs", " \n\n\t\n", rust, &ChunkOptions::default())
            .chunks
            .is_empty()
    );
    for text in [
        "fn a() {}",
        "// only a comment",
        "\n\nfn a() {} fn b() {}\n\n",
        "fn a() {}\r\n\r\nfn b() {}\r\n",
    ] {
        let chunked = chunk_code("a.rs", text, rust, &options(5));
        assert_tiles(text, &chunked);
    }
    let one_line = chunk_code(
        "a.rs",
        "fn a() {} fn b() {}",
        rust,
        &ChunkOptions::default(),
    );
    assert_eq!(symbol_lines(&one_line), "function a 1-1\nfunction b 1-1\n");
}

#[test]
fn generated_files_are_detected() {
    assert!(
        is_probably_generated("// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n")
            .is_some()
    );
    assert!(is_probably_generated("# @generated by tool\nx = 1\n").is_some());
    let minified = format!("!function(){{{}}}();\n", "var a=1;".repeat(400));
    assert!(is_probably_generated(&minified).is_some_and(|reason| reason.contains("minified")));
    let wide = format!("{}\n", "x".repeat(400)).repeat(60);
    assert!(is_probably_generated(&wide).is_some_and(|reason| reason.contains("average")));
    let mut long_line = "fn a() {}\n".repeat(3_000);
    long_line.push_str(&format!("const DATA: &str = \"{}\";\n", "x".repeat(6_000)));
    assert!(is_probably_generated(&long_line).is_some_and(|reason| reason.contains("line 3001")));
    let mut logo = "fn a() {}\n".repeat(3_000);
    logo.push_str(&format!(
        "const LOGO: &str = \"data:image/png;base64,{}\";\n",
        "QUJD".repeat(2_000)
    ));
    assert_eq!(
        is_probably_generated(&logo),
        None,
        "an embedded image is not minified code"
    );
    for (_, _, text, _) in FIXTURES {
        assert_eq!(is_probably_generated(text), None);
    }
    for prose in [
        "// Tokens are generated lazily.\nfn a() {}\n",
        "//! This module shows an example of code generated by the macro.\n",
    ] {
        assert_eq!(is_probably_generated(prose), None, "{prose}");
    }
}

/// `(title path after the file, symbol qualified name)` of every chunk.
fn outline(lang: &str, text: &str) -> Vec<(String, Option<String>)> {
    let chunked = chunk_code("f", text, spec(lang), &ChunkOptions::default());
    assert_tiles(text, &chunked);
    chunked
        .chunks
        .iter()
        .map(|chunk| {
            let path = chunk.title_path[1..].join("/");
            (
                path,
                chunk.symbol.as_ref().map(|symbol| symbol.qualified.clone()),
            )
        })
        .collect()
}

fn owned(items: &[(&str, Option<&str>)]) -> Vec<(String, Option<String>)> {
    items
        .iter()
        .map(|(path, symbol)| (path.to_string(), symbol.map(str::to_string)))
        .collect()
}

#[test]
fn gaps_between_members_and_around_symbols() {
    let header = "#ifndef RING_H\n#define RING_H\n\n#include <stddef.h>\n\n/** Creates. */\nstruct ring *ring_new(size_t n);\n\n#endif\n";
    assert_eq!(
        outline("c", header),
        owned(&[
            ("", None),
            ("RING_H", Some("RING_H")),
            ("", None),
            ("ring_new", Some("ring_new")),
            ("", None),
        ])
    );
    let python = "class A:\n    def f(self):\n        pass\n\n    x = 1\n\n\ndef g():\n    pass\n";
    assert_eq!(
        outline("python", python),
        owned(&[
            ("A", Some("A")),
            ("A/f", Some("A.f")),
            ("A", None),
            ("g", Some("g")),
        ])
    );
    let cpp =
        "namespace {\nint helper() { return 1; }\n}\nclass X {\n public:\n  X();\n};\nX::X() {}\n";
    assert_eq!(
        outline("cpp", cpp),
        owned(&[
            ("", None),
            ("helper", Some("helper")),
            ("X", Some("X")),
            ("X/X", Some("X::X")),
        ])
    );
    let bom = "\u{feff}impl A { fn x() {} }\n";
    assert_eq!(
        outline("rust", bom),
        owned(&[("impl A", Some("A")), ("A/x", Some("A::x"))])
    );
}

/// `Symbol: Super, Super` for every symbol chunk with supertypes.
fn supers_of(lang: &str, path: &str, text: &str) -> Vec<String> {
    chunk_code(path, text, spec(lang), &ChunkOptions::default())
        .chunks
        .into_iter()
        .filter_map(|chunk| chunk.symbol)
        .filter(|symbol| !symbol.supers.is_empty())
        .map(|symbol| format!("{}: {}", symbol.qualified, symbol.supers.join(", ")))
        .collect()
}

#[test]
fn supertypes_by_bare_name_or_with_their_go_package() {
    let java = "class Count extends java.util.AbstractList<String> implements Visitor<String>, Closeable {\n  void close() {}\n}\ninterface Walker extends Visitor<Path> {}\nenum Mode implements Labelled { A }\nrecord Point(int x) implements Shape {}\n";
    assert_eq!(
        supers_of("java", "Count.java", java),
        [
            "Count: AbstractList, Visitor, Closeable",
            "Walker: Visitor",
            "Mode: Labelled",
            "Point: Shape"
        ]
    );
    let ts = "export class Store extends base.Cache<string> implements Readable, ns.Sized {}\nabstract class Shape implements Drawable {}\ninterface Walker extends Visitor<Path>, Named {}\n";
    assert_eq!(
        supers_of("typescript", "store.ts", ts),
        [
            "Store: Cache, Readable, Sized",
            "Shape: Drawable",
            "Walker: Visitor, Named"
        ]
    );
    let py = "class Store(abc.Mapping, Generic[T], metaclass=ABCMeta):\n    pass\n\nclass Plain:\n    pass\n";
    assert_eq!(
        supers_of("python", "store.py", py),
        ["Store: Mapping, Generic"]
    );
    let cpp = "class Ring : public Base, private ns::Buffer<int> {\n  int n;\n};\nstruct Node : Item {};\n";
    assert_eq!(
        supers_of("cpp", "ring.cpp", cpp),
        ["Ring: Base, Buffer", "Node: Item"]
    );
    let go = "package io\n\ntype ReadCloser interface {\n\tReader\n\tio.Closer\n\tRead2() error\n}\n\ntype Buffered struct {\n\t*bufio.Reader\n\tsync.Mutex\n\tn int\n}\n";
    assert_eq!(
        supers_of("go", "io.go", go),
        [
            "ReadCloser: Reader, io.Closer",
            "Buffered: bufio.Reader, sync.Mutex"
        ]
    );
    let required: Vec<Vec<String>> = chunk_code("io.go", go, spec("go"), &ChunkOptions::default())
        .chunks
        .into_iter()
        .filter_map(|chunk| chunk.symbol)
        .map(|symbol| symbol.requires)
        .collect();
    assert_eq!(required, [vec!["Read2".to_string()], vec![]]);
    let rust = "trait Walker<'a>: Visitor + std::fmt::Debug + 'a + ?Sized {}\nimpl<'s, F: Fn() -> u8> crate::Visitor<'s> for Count {}\nimpl Count {}\nimpl<T> From<Vec<T>> for Stack {}\nimpl !Send for Guard {}\n";
    assert_eq!(
        supers_of("rust", "walk.rs", rust),
        [
            "Walker: Visitor, Debug",
            "Count: Visitor",
            "Stack: From",
            "Guard: Send"
        ]
    );
}

/// Keeping the query out of definitions' bodies loses nothing: on every
/// fixture (Go's has a type local to a method), the definitions found are
/// those found matching everywhere.
#[test]
fn pruned_walk_finds_what_the_whole_walk_finds() {
    for (lang, path, source, _) in FIXTURES {
        let spec = spec(lang);
        let pruned = extract::extract_walking(source, spec, true).expect(path);
        let whole = extract::extract_walking(source, spec, false).expect(path);
        assert_eq!(pruned.definitions, whole.definitions, "{path}");
        assert_eq!(pruned.file_docs, whole.file_docs, "{path}");
    }
}

#[test]
fn an_embedded_image_is_elided_and_the_symbols_around_it_are_found() {
    let text = format!(
        "export function header(): string {{\n  return \"<h1>Shop</h1>\";\n}}\n\nexport const LOGO = \"data:image/png;base64,{}\";\n\nexport function footer(): string {{\n  return \"<p>bye</p>\";\n}}\n",
        "iVBORw0KGgo".repeat(5_000)
    );
    let chunked = crate::chunk::chunk_document(
        "web/logo.ts",
        &text,
        crate::chunk::DocFormat::Code(spec("typescript")),
        &ChunkOptions::default(),
    );
    assert_tiles(&text, &chunked);
    assert_eq!(
        symbol_lines(&chunked),
        "function header 1-3\nconst LOGO 4-5 node 5-5\nfunction footer 6-9 node 7-9\n"
    );
    let logo = chunked
        .chunks
        .iter()
        .find(|c| c.text.contains("LOGO"))
        .expect("the LOGO chunk");
    assert!(
        logo.text
            .contains("\"data:image/png;base64,…(53KB-elided)\""),
        "{}",
        logo.text
    );
    assert!(logo.token_est < 40, "{logo:?}");
}
