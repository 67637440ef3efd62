//! Names declared together: Go's `const (…)`, `var (…)`, `type (…)` and
//! `var a, b`, C's `int a, b;`.

use super::*;

/// Every name of a Go group or of a multi-name spec is a symbol: a spec of
/// `const (…)`, `var (…)` or `type (…)` is one of its own, with its lines
/// (the group's `(` and `)` are text between symbols, and the chunks still
/// tile the file), and each further name of `var a, b` is declared in the
/// first one's chunk with its line.
#[test]
fn go_groups_give_each_name_a_symbol() {
    let text = "package kind\n\ntype Kind int\n\nconst (\n\tKindFile Kind = iota\n\tKindDir\n)\n\nvar (\n\tDefaultKind = KindFile\n\tverbose     bool\n)\n\ntype (\n\tVisitor interface{ Visit(k Kind) }\n\tOptions struct{ Depth int }\n)\n\nvar a, b = 1, 2\n";
    let chunked = chunk_code("kind/kind.go", text, spec("go"), &ChunkOptions::default());
    assert_tiles(text, &chunked);
    assert_eq!(
        symbol_lines(&chunked),
        "type Kind 3-3\n\
         const KindFile 6-6\n\
         const KindDir 7-8 node 7-7\n\
         var DefaultKind 11-11\n\
         var verbose 12-13 node 12-12\n\
         interface Visitor 16-16\n    method Visit 16-16\n\
         struct Options 17-19 node 17-17\n    field Depth 17-17\n\
         var a 20-20\n    var b 20-20\n"
    );
}

/// C and C++ globals declared together (`int a, *b;`) are each found: the
/// first is the symbol, the others are declared in its chunk.
#[test]
fn c_globals_declared_together_are_each_named() {
    for lang in ["c", "cpp"] {
        let chunked = chunk_code(
            "g.c",
            "int width = 1, height;\n",
            spec(lang),
            &ChunkOptions::default(),
        );
        assert_eq!(
            symbol_lines(&chunked),
            "var width 1-1\n    var height 1-1\n",
            "{lang}"
        );
    }
}
