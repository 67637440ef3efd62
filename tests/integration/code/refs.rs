//! `ctx refs NAME`: the lines that use a name, by the chunk and symbol they
//! are in; the definition itself, longer words and stemmed forms are not uses.

use super::super::util::{Env, SHAPE_RS};

fn env() -> Env {
    let env = Env::empty();
    env.write("src/shape.rs", SHAPE_RS);
    env.write(
        "src/draw.rs",
        "use crate::shape::Polygon;\n\
         \n\
         /// Draws one.\n\
         pub fn draw(p: &Polygon) -> String {\n\
         \x20   format!(\"{}\", p.sides())\n\
         }\n\
         \n\
         /// Counts Polygons in a PolygonSet: other words.\n\
         pub fn count(set: &PolygonSet) -> usize {\n\
         \x20   set.len()\n\
         }\n",
    );
    env.write(
        "docs/guide.md",
        "---\ntitle: Guide\n---\n\n# Guide\n\nBuild a `Polygon` with `Polygon::triangle()`.\n",
    );
    env
}

/// `(doc, within, [lines])` of each listed chunk.
fn listed(out: &serde_json::Value) -> Vec<(String, String, Vec<u64>)> {
    out["refs"]
        .as_array()
        .unwrap_or_else(|| panic!("no refs: {out}"))
        .iter()
        .map(|r| {
            (
                r["doc"].as_str().unwrap().to_string(),
                r["within"].as_str().unwrap().to_string(),
                r["hits"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| h["line"].as_u64().unwrap())
                    .collect(),
            )
        })
        .collect()
}

/// `doc within` of each listed chunk.
fn places(out: &serde_json::Value) -> Vec<String> {
    listed(out)
        .into_iter()
        .map(|(doc, within, _)| format!("{doc} {within}"))
        .collect()
}

fn entry(doc: &str, within: &str, lines: &[u64]) -> (String, String, Vec<u64>) {
    (doc.to_string(), within.to_string(), lines.to_vec())
}

#[test]
fn uses_of_a_type_by_chunk_and_line() {
    let env = env();
    let out = env.json(&["refs", "Polygon"]);
    assert_eq!(
        listed(&out),
        [
            entry("src/draw.rs", "(between symbols)", &[1]),
            entry("src/draw.rs", "draw", &[4]),
            entry("src/shape.rs", "Polygon", &[13]),
            entry("src/shape.rs", "Polygon::triangle", &[15, 16]),
            entry("src/shape.rs", "Polygon", &[24]),
        ],
        "{out}"
    );
    assert_eq!(out["chunks"], 5, "{out}");
    assert_eq!(out["lines"], 6, "{out}");
    assert_eq!(
        out["refs"][3]["hits"][1]["text"], "Polygon { sides: 3 }",
        "{out}"
    );

    let done = env.ctx(&["refs", "Polygon"]).output().expect("run ctx");
    assert!(done.status.success(), "{done:?}");
    let text = String::from_utf8_lossy(&done.stdout);
    assert!(
        text.starts_with(&format!(
            "[{}] src/draw.rs  (between symbols)\n  1: use crate::shape::Polygon;\n[",
            out["refs"][0]["id"].as_str().unwrap()
        )),
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("6 lines in 5 chunks use `Polygon`"),
        "{stderr}"
    );
    assert_eq!(
        out["token_est"].as_u64(),
        Some(ctx::tokens::estimate(&text) as u64),
        "{text}"
    );
}

#[test]
fn markdown_lines_count_from_the_file_with_all() {
    let env = env();
    let out = env.json(&["refs", "Polygon", "--all"]);
    let docs = listed(&out);
    // Front matter is not in the chunk's text; the line is the file's.
    assert_eq!(docs[0], entry("docs/guide.md", "Guide", &[7]), "{out}");
    assert_eq!(
        out["refs"][0]["hits"][0]["text"], "Build a `Polygon` with `Polygon::triangle()`.",
        "{out}"
    );
    assert_eq!(out["chunks"], 6, "{out}");
}

#[test]
fn a_qualified_name_looks_for_its_last_part() {
    let env = env();
    // `triangle` is used only in Markdown.
    let done = env
        .ctx(&["refs", "Polygon::triangle"])
        .output()
        .expect("run ctx");
    assert_eq!(done.status.code(), Some(1), "{done:?}");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains(
            "no uses of `triangle` outside its definition in this pack's code (--all adds Markdown)"
        ),
        "{stderr}"
    );
    let out = env.json(&["refs", "Polygon::triangle", "--all"]);
    assert_eq!(out["name"], "triangle", "{out}");
    assert_eq!(
        listed(&out),
        [entry("docs/guide.md", "Guide", &[7])],
        "{out}"
    );
}

#[test]
fn the_budget_cuts_the_list_and_names_the_budget_for_all() {
    let env = env();
    let whole = env.json(&["refs", "Polygon"]);
    let all = whole["token_est"].as_u64().unwrap();
    let first = ctx::tokens::estimate(&format!(
        "[{}] src/draw.rs  (between symbols)\n  1: use crate::shape::Polygon;\n",
        whole["refs"][0]["id"].as_str().unwrap()
    ));
    let budget = first.to_string();
    let out = env.json(&["refs", "Polygon", "--budget", &budget]);
    assert_eq!(out["refs"].as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(out["more"]["count"], 4, "{out}");
    assert_eq!(out["more"]["budget_needed"], all, "{out}");
    let done = env
        .ctx(&["refs", "Polygon", "--budget", &budget])
        .output()
        .expect("run ctx");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains(&format!(
            "1 of 5 chunks using `Polygon` listed; 4 more need --budget {all}"
        )),
        "{stderr}"
    );
}

#[test]
fn a_name_that_is_not_an_identifier_is_refused() {
    let env = env();
    let done = env.ctx(&["refs", "two words"]).output().expect("run ctx");
    assert!(!done.status.success(), "{done:?}");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains(
            "`two words` is not a name to look for; give an identifier such as `WalkBuilder` or `Walk::new`"
        ),
        "{stderr}"
    );
}

#[test]
fn sources_come_before_benches_and_tests() {
    let env = env();
    env.write(
        "benches/area.rs",
        "use shapes::Polygon;\n\nfn bench() {\n    let _ = Polygon::triangle();\n}\n",
    );
    let out = env.json(&["refs", "Polygon"]);
    let docs: Vec<String> = listed(&out).into_iter().map(|(doc, _, _)| doc).collect();
    assert_eq!(
        docs,
        [
            "src/draw.rs",
            "src/draw.rs",
            "src/shape.rs",
            "src/shape.rs",
            "src/shape.rs",
            "benches/area.rs",
            "benches/area.rs"
        ],
        "{out}"
    );
}

/// With `--file`, only the uses of that definition of a name several files
/// define: in its own file, and where the file's imports (or the path the
/// line writes) lead to it; a file defining its own, or naming no path to
/// either, is left out and counted.
#[test]
fn file_picks_the_uses_of_one_definition() {
    let env = env();
    env.write(
        "src/other.rs",
        "pub struct Polygon;\n\npub fn make() -> Polygon {\n    Polygon\n}\n",
    );
    env.write(
        "src/paint.rs",
        "use crate::other;\n\npub fn paint(p: &other::Polygon) {}\n\npub fn both(a: &crate::shape::Polygon) {}\n",
    );
    env.write("src/vague.rs", "pub fn vague(p: &Polygon) {}\n");
    let out = env.json(&["refs", "Polygon", "--file", "src/shape.rs"]);
    let within: Vec<(String, String)> = listed(&out)
        .into_iter()
        .map(|(doc, within, _)| (doc, within))
        .collect();
    assert_eq!(
        within,
        [
            ("src/draw.rs", "(between symbols)"),
            ("src/draw.rs", "draw"),
            ("src/paint.rs", "both"),
            ("src/shape.rs", "Polygon"),
            ("src/shape.rs", "Polygon::triangle"),
            ("src/shape.rs", "Polygon"),
        ]
        .map(|(d, w)| (d.to_string(), w.to_string())),
        "{out}"
    );
    assert_eq!(out["definition"], "src/shape.rs", "{out}");
    // `other.rs`'s own use, `paint`'s `other::Polygon` and `vague.rs`.
    assert_eq!(out["other_meanings"], 3, "{out}");
    let other = env.json(&["refs", "Polygon", "--file", "src/other.rs"]);
    let docs = places(&other);
    assert_eq!(docs, ["src/other.rs make", "src/paint.rs paint"], "{other}");
    let (_, stderr) = super::run(&env, &["refs", "Polygon", "--file", "src/other.rs"]);
    assert!(
        stderr.contains("3 lines in 2 chunks use the `Polygon` of src/other.rs, by the paths their files' imports give it; 7 other chunks using the name are another definition's, or no import ties them to it"),
        "{stderr}"
    );

    // Python by `from … import` and module paths; Go by package.
    env.write("py/a/model.py", "class Item:\n    pass\n");
    env.write("py/b/model.py", "class Item:\n    pass\n");
    env.write(
        "py/app.py",
        "from a.model import Item\nimport b.model\n\n\ndef first():\n    return Item()\n\n\ndef second():\n    return b.model.Item()\n",
    );
    let a = env.json(&["refs", "Item", "--file", "py/a/model.py"]);
    let a = places(&a);
    assert_eq!(
        a,
        ["py/app.py (between symbols)", "py/app.py first"],
        "{a:?}"
    );
    let b = env.json(&["refs", "Item", "--file", "py/b"]);
    let b = places(&b);
    assert_eq!(b, ["py/app.py second"], "{b:?}");

    env.write(
        "go/io/reader.go",
        "package io\n\ntype Reader interface {\n\tRead() int\n}\n",
    );
    env.write(
        "go/io/util.go",
        "package io\n\nfunc Wrap(r Reader) Reader {\n\treturn r\n}\n",
    );
    env.write("go/tar/reader.go", "package tar\n\ntype Reader struct{}\n");
    env.write(
        "go/app/main.go",
        "package app\n\nimport \"io\"\n\nfunc Use(r io.Reader) {}\n\nfunc Own(r Reader) {}\n",
    );
    // A list the budget cuts still says whose uses it lists.
    let (_, stderr) = super::run(
        &env,
        &[
            "refs",
            "Polygon",
            "--file",
            "src/shape.rs",
            "--budget",
            "40",
        ],
    );
    assert!(
        stderr.contains("chunks using the `Polygon` of src/shape.rs listed; "),
        "{stderr}"
    );

    let io = env.json(&["refs", "Reader", "--file", "go/io/reader.go"]);
    let io = places(&io);
    assert_eq!(io, ["go/app/main.go Use", "go/io/util.go Wrap"], "{io:?}");
}

/// `--file` names a place holding the name's definition: nowhere, or
/// several, is refused with the places that do.
#[test]
fn file_must_hold_one_definition() {
    let env = env();
    env.write("src/other.rs", "pub struct Polygon;\n");
    for (file, message) in [
        (
            "src/draw.rs",
            "no definition of `Polygon` in `src/draw.rs`; `Polygon` is defined in src/other.rs, src/shape.rs: give one of them as the file",
        ),
        (
            "src",
            "`src` holds 2 definitions of `Polygon` (src/other.rs, src/shape.rs): give the file",
        ),
    ] {
        let done = env
            .ctx(&["refs", "Polygon", "--file", file])
            .output()
            .expect("run ctx");
        assert!(!done.status.success(), "{done:?}");
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(stderr.contains(message), "{stderr}");
    }
    let done = env
        .ctx(&["refs", "sides", "--file", "src/shape.rs"])
        .output()
        .expect("run ctx");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(done.status.success(), "{stderr}");
    let done = env
        .ctx(&["refs", "draw_all", "--file", "src"])
        .output()
        .expect("run ctx");
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("no definition of `draw_all` in `src`; `draw_all` has no definition in this pack; without a file, its uses by name are listed"),
        "{stderr}"
    );
}

/// A file that imports the name as another (`use … as Poly`, `from … import
/// … as P`) uses it wherever it writes the alias; each such entry says so,
/// and `--file` follows the alias to the definition its import names.
#[test]
fn renamed_imports_are_followed() {
    let env = env();
    env.write(
        "src/render.rs",
        "use crate::shape::Polygon as Poly;\n\
         \n\
         /// Draws a triangle.\n\
         pub fn render() -> usize {\n\
         \x20   let p = Poly::triangle();\n\
         \x20   p.sides() as usize\n\
         }\n\
         \n\
         /// A Polyline is another word.\n\
         pub fn line(points: &[Polyline]) -> usize {\n\
         \x20   points.len()\n\
         }\n",
    );
    env.write("src/map.rs", "pub struct Polygon;\n");
    env.write(
        "src/atlas.rs",
        "use crate::map::Polygon as Area;\n\npub fn area(a: &Area) {}\n",
    );
    env.write("py/geometry.py", "class Polygon:\n    pass\n");
    env.write(
        "py/app.py",
        "from geometry import Polygon as P\n\n\ndef make():\n    return P()\n",
    );
    let out = env.json(&["refs", "Polygon"]);
    let vias: Vec<(String, String, String)> = out["refs"]
        .as_array()
        .unwrap_or_else(|| panic!("no refs: {out}"))
        .iter()
        .filter_map(|r| {
            let via = r["via"].as_str()?;
            let within = r["within"].as_str().unwrap_or_default();
            Some((r["doc"].to_string(), within.to_string(), via.to_string()))
        })
        .collect();
    let expected = [
        ("py/app.py", "(between symbols)", "P"),
        ("py/app.py", "make", "P"),
        ("src/atlas.rs", "(between symbols)", "Area"),
        ("src/atlas.rs", "area", "Area"),
        ("src/render.rs", "(between symbols)", "Poly"),
        ("src/render.rs", "render", "Poly"),
    ]
    .map(|(d, w, v)| (format!("\"{d}\""), w.to_string(), v.to_string()));
    assert_eq!(vias, expected, "{out}");
    // `Polyline` is not `Poly`, and a cast (`p.sides() as usize`) is no import.
    let lines = listed(&out);
    assert!(
        !lines
            .iter()
            .any(|(doc, within, _)| doc == "src/render.rs" && within == "line"),
        "{out}"
    );
    let text = super::run(&env, &["refs", "Polygon"]).0;
    assert!(
        text.contains("src/render.rs  render  (as Poly)\n  5: let p = Poly::triangle();"),
        "{text}"
    );
    // The alias leads to the definition its import names.
    let shape = places(&env.json(&["refs", "Polygon", "--file", "src/shape.rs"]));
    assert!(
        shape.contains(&"src/render.rs render".to_string()),
        "{shape:?}"
    );
    assert!(
        !shape.iter().any(|p| p.starts_with("src/atlas.rs")),
        "{shape:?}"
    );
    let map = places(&env.json(&["refs", "Polygon", "--file", "src/map.rs"]));
    assert_eq!(
        map,
        ["src/atlas.rs (between symbols)", "src/atlas.rs area"],
        "{map:?}"
    );
}
