//! A file's skeleton (`ctx get FILE --mode skeleton`) as its chunks' cut
//! from the whole file's: no member signature is lost under a container's
//! `{ … }`, bodies are elided, and the entries read in order balance their
//! braces; and the names of Go's grouped declarations are symbols.

use super::super::util::Env;
use super::run;

/// The texts of a file's skeleton entries, joined in order.
fn skeleton_of(env: &Env, file: &str) -> String {
    let out = env.json(&["get", file, "--mode", "skeleton"]);
    out["chunks"]
        .as_array()
        .unwrap_or_else(|| panic!("no chunks: {out}"))
        .iter()
        .map(|c| c["text"].as_str().unwrap_or_default())
        .collect()
}

fn assert_balanced(shape: &str) {
    let mut depth = 0i64;
    for c in shape.replace("{ … }", "").chars() {
        depth += match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        };
        assert!(depth >= 0, "a `}}` closes nothing:\n{shape}");
    }
    assert_eq!(depth, 0, "braces do not balance:\n{shape}");
}

/// Containers with member chunks keep what they declare without chunks
/// (a trait's required method and its doc comment, an extern block's
/// function, an interface's abstract method, enum constants, an abstract
/// method, C++ prototypes), and a TSX class whose last member spans lines
/// keeps its `}`.
#[test]
fn a_file_skeleton_keeps_declared_members_and_balances_braces() {
    let env = Env::empty();
    let files: [(&str, &str, &[&str], &str); 5] = [
        (
            "src/lib.rs",
            "pub trait Shape {\n    /// Area.\n    fn area(&self) -> f64;\n    fn name(&self) -> &str { \"s\" }\n}\nextern \"C\" {\n    fn abs(x: i32) -> i32;\n}\n",
            &[
                "/// Area.\n    fn area(&self) -> f64;",
                "fn name(&self) -> &str { … }",
                "fn abs(x: i32) -> i32;",
            ],
            "\"s\"",
        ),
        (
            "src/Storage.java",
            "interface Storage<K, V> {\n    V get(K key);\n    default boolean has(K key) {\n        return get(key) != null;\n    }\n}\n\nenum Policy {\n    LRU, LFU;\n    int weight() {\n        return ordinal();\n    }\n}\n",
            &[
                "V get(K key);",
                "LRU, LFU;",
                "default boolean has(K key) { … }",
                "int weight() { … }",
            ],
            "return",
        ),
        (
            "src/shape.ts",
            "export abstract class Shape {\n  abstract area(): number;\n  describe(): string {\n    return `${this.area()}`;\n  }\n}\n",
            &["abstract area(): number;", "describe(): string { … }"],
            "return",
        ),
        (
            "src/polygon.cpp",
            "class Polygon {\n public:\n  Polygon();\n  int sides() const { return sides_; }\n\n private:\n  int sides_;\n};\n",
            &["Polygon();", "int sides() const { … }", "int sides_;\n};"],
            "return",
        ),
        (
            "src/Counter.tsx",
            "export class Counter extends React.Component {\n  tick() {\n    this.setState({});\n  }\n  render() {\n    return (\n      <div>{this.props.n}</div>\n    );\n  }\n}\n",
            &["tick() { … }", "render() { … }\n}"],
            "return",
        ),
    ];
    for (path, text, _, _) in &files {
        env.write(path, text);
    }
    for (path, _, kept, body) in files {
        let shape = skeleton_of(&env, path);
        for signature in kept {
            assert!(
                shape.contains(signature),
                "{path}: lost {signature:?}:\n{shape}"
            );
        }
        assert!(!shape.contains(body), "{path}: body kept:\n{shape}");
        assert_balanced(&shape);
    }
    let (abs, _) = run(&env, &["symbol", "abs"]);
    assert!(abs.contains("function abs (src/lib.rs:7-7)"), "{abs}");
}

/// Each name of `const (…)`, `var (…)`, `type (…)` and `var a, b` is found
/// by `ctx symbol` at its own line and by search, and the skeleton lists
/// them.
#[test]
fn go_grouped_declarations_are_symbols_at_their_own_lines() {
    let env = Env::empty();
    env.write(
        "kind/kind.go",
        "package kind\ntype Kind int\nconst (\n\tKindFile Kind = iota\n\tKindDir\n\tKindSymlink\n)\nvar (\n\tDefaultKind = KindFile\n\tverbose     bool\n)\ntype (\n\tVisitor interface{ Visit(k Kind) }\n\tOptions struct{ Depth int }\n)\nvar a, b = 1, 2\n",
    );
    for (name, header) in [
        ("KindFile", "const KindFile (kind/kind.go:4-4)"),
        ("KindDir", "const KindDir (kind/kind.go:5-5)"),
        ("KindSymlink", "const KindSymlink (kind/kind.go:6-6)"),
        ("DefaultKind", "var DefaultKind (kind/kind.go:9-9)"),
        ("verbose", "var verbose (kind/kind.go:10-10)"),
        ("Visitor", "interface Visitor (kind/kind.go:13-13)"),
        ("Options", "struct Options (kind/kind.go:14-14)"),
        ("b", "var b (declared in var a) (kind/kind.go:16-16)"),
    ] {
        let (text, _) = run(&env, &["symbol", name]);
        assert!(text.contains(header), "{name}:\n{text}");
    }
    let (found, _) = run(&env, &["search", "KindDir", "--kind", "code"]);
    assert!(found.contains("kind/kind.go:5-5"), "{found}");
    let shape = skeleton_of(&env, "kind/kind.go");
    for name in [
        "KindDir",
        "KindSymlink",
        "verbose",
        "Visitor interface",
        "var a, b",
    ] {
        assert!(shape.contains(name), "{name} missing:\n{shape}");
    }
}
