use std::fmt::Write as _;

use super::*;

fn opts(max_chunk_tokens: usize) -> ChunkOptions {
    ChunkOptions { max_chunk_tokens }
}

fn root() -> Vec<String> {
    vec!["tool-output".to_string()]
}

/// The chunk invariants: ranges tile the text, text is the source slice, lines
/// and token estimates are right, every chunk fits, IDs are assigned.
fn check(chunked: &Chunked, text: &str, max: usize, kind: ChunkKind) {
    // Line numbers from a table of line starts, not `line_range`, so checking a
    // 5 MB value is not quadratic and does not trust the code under test.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let line_at = |byte: usize| starts.partition_point(|&s| s <= byte);
    let mut at = 0;
    for chunk in &chunked.chunks {
        let [start, end] = chunk.bytes;
        assert_eq!(start, at, "gap or overlap before {:?}", chunk.title_path);
        assert!(end > start, "empty chunk");
        assert_eq!(chunk.text, text[start..end]);
        assert_eq!(chunk.lines, [line_at(start), line_at(end - 1)]);
        assert_eq!(chunk.token_est, tokens::estimate(&chunk.text));
        assert!(
            chunk.token_est <= max,
            "{} > {max}: {:?}",
            chunk.token_est,
            chunk.title_path
        );
        assert_eq!(chunk.kind, kind);
        assert!(id::parse(&chunk.id).is_some(), "id {}", chunk.id);
        at = end;
    }
    assert_eq!(at, text.len(), "chunks stop short of the end");
}

#[test]
fn text_packs_paragraphs_then_lines() {
    let mut text = String::new();
    for p in 0..30 {
        for l in 0..(p % 7 + 1) {
            let _ = writeln!(text, "paragraph {p} line {l}: some words here");
        }
        text.push('\n');
    }
    for max in [8, 20, 50, 200, 10_000] {
        let chunked = chunk_text("out.txt", &text, &root(), &opts(max));
        check(&chunked, &text, max, ChunkKind::Text);
        assert!(chunked.notes.is_empty());
        assert!(chunked.chunks.iter().all(|c| c.title_path == root()));
    }
    let chunked = chunk_text("out.txt", &text, &root(), &opts(60));
    // Paragraph packing: with room to spare a chunk ends at a paragraph end.
    assert!(
        chunked.chunks[0].text.ends_with("here\n\n"),
        "{:?}",
        chunked.chunks[0].text
    );
    let n = chunked.chunks.len();
    assert_eq!(chunked.chunks[0].part, Some([1, n]));
    let one = chunk_text("out.txt", "short\n", &root(), &opts(600));
    assert_eq!((one.chunks.len(), one.chunks[0].part), (1, None));
}

#[test]
fn text_cuts_long_lines_at_char_boundaries() {
    let text = format!(
        "{}\n{}",
        "日本語🎉e\u{301} ".repeat(3_000),
        "x".repeat(10_001)
    );
    // Settings refuse max_chunk_tokens below 32; one emoji alone can estimate above 1.
    for max in [10, 97, 600] {
        let chunked = chunk_text("t.txt", &text, &[], &opts(max));
        check(&chunked, &text, max.max(1), ChunkKind::Text);
    }
    // A cut prefers the last whitespace in the second half of the piece.
    let chunked = chunk_text("t.txt", &"word ".repeat(1_000), &[], &opts(10));
    assert!(
        chunked.chunks[..chunked.chunks.len() - 1]
            .iter()
            .all(|c| c.text.ends_with(' '))
    );
}

#[test]
fn text_empty_and_blank() {
    assert!(
        chunk_text("e.txt", "", &root(), &opts(10))
            .chunks
            .is_empty()
    );
    let blank = "\n\n   \n";
    let chunked = chunk_text("b.txt", blank, &root(), &opts(10));
    check(&chunked, blank, 10, ChunkKind::Text);
    assert_eq!(chunked.chunks.len(), 1);
}

#[test]
fn json_splits_top_level_keys_and_nested_members() {
    let mut items = Vec::new();
    for i in 0..60 {
        items.push(format!(
            r#"{{"id": {i}, "name": "item {i}", "note": "quote \" and ] and }} inside"}}"#
        ));
    }
    let text = format!(
        "{{\n  \"meta\": {{\"count\": 60}},\n  \"data\": {{\n    \"items\": [\n      {}\n    ],\n    \"more\": \"x\"\n  }},\n  \"k\\\"ey\": [1, 2]\n}}\n",
        items.join(",\n      ")
    );
    let chunked = chunk_json("r.json", &text, &root(), &opts(200));
    check(&chunked, &text, 200, ChunkKind::Json);
    let titles: Vec<Vec<String>> = chunked
        .chunks
        .iter()
        .map(|c| c.title_path.clone())
        .collect();
    assert_eq!(titles[0], ["tool-output", "meta"]);
    assert_eq!(titles[1][..3], ["tool-output", "data", "items"]);
    assert!(titles[1][3].starts_with("[0.."), "{titles:?}");
    assert_eq!(
        titles.last().expect("chunks"),
        &["tool-output", "k\"ey"],
        "{titles:?}"
    );
    assert!(
        titles.contains(&vec!["tool-output".into(), "data".into(), "more".into()]),
        "{titles:?}"
    );
    // Each array group holds whole items: `[i..j]` is exclusive and consecutive.
    let groups: Vec<&String> = titles
        .iter()
        .filter(|t| t.len() == 4)
        .map(|t| &t[3])
        .collect();
    let mut next = 0;
    for group in &groups {
        // `[4..9] item 4 … item 8`: the range, then the names.
        let range = group.split(' ').next().unwrap_or_default();
        let (from, to) = range
            .trim_matches(['[', ']'])
            .split_once("..")
            .map(|(a, b)| {
                (
                    a.parse::<usize>().expect("from"),
                    b.parse::<usize>().expect("to"),
                )
            })
            .unwrap_or_else(|| {
                let i: usize = range.trim_matches(['[', ']']).parse().expect("index");
                (i, i + 1)
            });
        assert_eq!(from, next, "{groups:?}");
        if to > from + 1 {
            assert_eq!(
                group.as_str(),
                format!("{range} item {from} … item {}", to - 1)
            );
        }
        next = to;
    }
    assert_eq!(next, 60);
    let small = chunk_json("s.json", r#"{"a": 1}"#, &root(), &opts(200));
    assert_eq!(small.chunks.len(), 1);
    assert_eq!(small.chunks[0].title_path, root());
}

#[test]
fn json_huge_scalar_and_deep_nesting_fall_back_to_text_parts() {
    let text = format!(
        "{{\"blob\": \"{}\", \"deep\": {}1{}}}",
        "ab🎉".repeat(2_000),
        "[".repeat(50),
        "]".repeat(50)
    );
    let chunked = chunk_json("b.json", &text, &[], &opts(100));
    check(&chunked, &text, 100, ChunkKind::Json);
    let blob: Vec<&Chunk> = chunked
        .chunks
        .iter()
        .filter(|c| c.title_path == ["blob"])
        .collect();
    assert!(blob.len() > 1);
    assert_eq!(blob[0].part, Some([1, blob.len()]));
}

/// Nesting far past the split depth (valid JSON, which validation takes at
/// any depth) is split as text below it: no stack overflow, chunks still tile.
#[test]
fn json_nested_a_hundred_thousand_levels_deep_is_chunked() {
    for depth in [10_000, 100_000] {
        let text = "[".repeat(depth) + &"]".repeat(depth);
        let chunked = chunk_json("deep.json", &text, &root(), &opts(100));
        check(&chunked, &text, 100, ChunkKind::Json);
        let deepest = chunked.chunks.iter().map(|c| c.title_path.len()).max();
        assert!(deepest <= Some(66), "title paths {deepest:?} deep");
    }
}

#[test]
fn json_not_json_is_text_with_a_note() {
    let text = "{\"a\": 1,\n oops}\nmore text\n";
    let chunked = chunk_json("x.json", text, &root(), &opts(100));
    check(&chunked, text, 100, ChunkKind::Text);
    assert_eq!(chunked.notes.len(), 1);
    assert_eq!(chunked.notes[0].line, Some(2));
    assert!(
        chunked.notes[0].message.starts_with("not valid JSON ("),
        "{:?}",
        chunked.notes
    );
    assert!(
        chunk_json("e.json", "", &root(), &opts(100))
            .notes
            .is_empty()
    );
}

#[test]
fn json_top_level_array_and_scalars() {
    let text = format!(
        "  [{}]  \n",
        (0..500)
            .map(|i| format!("\"s{i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let chunked = chunk_json("a.json", &text, &[], &opts(50));
    check(&chunked, &text, 50, ChunkKind::Json);
    assert!(
        chunked
            .chunks
            .iter()
            .all(|c| c.title_path.len() == 1 && c.title_path[0].starts_with('['))
    );
    let scalar = chunk_json("n.json", "42", &[], &opts(50));
    assert_eq!(scalar.chunks.len(), 1);
}

#[test]
fn json_five_megabyte_array_tiles_and_is_deterministic() {
    let mut text = String::from("[\n");
    let mut i = 0;
    while text.len() < 5 * 1024 * 1024 {
        if i > 0 {
            text.push_str(",\n");
        }
        let _ = write!(
            text,
            r#"  {{"id": {i}, "user": {{"name": "ユーザー{i}", "tags": ["a", "b\"c"]}}, "text": "line with \\n escapes and {{braces}} [brackets] {i}"}}"#
        );
        i += 1;
    }
    text.push_str("\n]\n");
    let chunked = chunk_json("big.json", &text, &root(), &opts(600));
    check(&chunked, &text, 600, ChunkKind::Json);
    assert!(chunked.chunks.len() > 1_000);
    assert!(
        chunked
            .chunks
            .iter()
            .all(|c| c.title_path.len() == 2 && c.title_path[1].starts_with('['))
    );
    let again = chunk_json("big.json", &text, &root(), &opts(600));
    assert_eq!(chunked, again);
    let text_chunks = chunk_text("big.json", &text, &root(), &opts(600));
    check(&text_chunks, &text, 600, ChunkKind::Text);
}

#[test]
fn json_records_are_labelled_by_their_names() {
    let pad = "word ".repeat(60);
    let record = |name: &str| format!(r#"{{"id": 7, "name": "{name}", "description": "{pad}"}}"#);
    let text = format!(
        r#"{{"packages": [{}, {}, {{"title": "no\nname", "pad": "{pad}"}}, {{"id": "{}", "pad": "{pad}"}}]}}"#,
        record("tantivy"),
        record("tantivy-sstable"),
        "x".repeat(80)
    );
    let chunked = chunk_json("m.json", &text, &root(), &opts(80));
    check(&chunked, &text, 80, ChunkKind::Json);
    let mut labels: Vec<&str> = chunked
        .chunks
        .iter()
        .map(|c| c.title_path[2].as_str())
        .collect();
    // Each record is split into parts, all of them labelled alike.
    labels.dedup();
    // A name with a line break, or longer than a label shows, is no name.
    assert_eq!(labels, ["[0] tantivy", "[1] tantivy-sstable", "[2]", "[3]"]);
    let names: Vec<Option<&str>> = chunked
        .chunks
        .iter()
        .map(|c| record_path(&c.title_path).map(|(_, name)| name))
        .collect();
    assert_eq!(names.first(), Some(&Some("tantivy")));
    assert_eq!(names.last(), Some(&None));
}

#[test]
fn the_innermost_record_is_read_from_labels_alone() {
    let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let title = path(&[
        "value",
        "packages",
        "[281] tantivy",
        "deps",
        "[3] serde",
        "[4]",
    ]);
    assert_eq!(record_path(&title), Some((&title[..5], "serde")));
    assert_eq!(record_path(&title[..4]), Some((&title[..3], "tantivy")));
    // Object keys that only look alike are not records.
    let keys = path(&["value", "[x] key", "[] empty", "[2]", "[12]x", "[5] "]);
    assert_eq!(record_path(&keys), None);
}

#[test]
fn kubernetes_objects_are_named_by_their_metadata_and_read_alone() {
    let pod = |name: &str| {
        format!(
            r#"{{"kind": "Pod", "metadata": {{"name": "{name}", "labels": {{"app": "web"}}}}, "status": {{"phase": "Running", "podIP": "10.0.0.7", "note": "{}"}}}}"#,
            "ok ".repeat(30)
        )
    };
    let label = |name: &str| format!(r#"{{"name": "{name}", "color": "e11d21"}}"#);
    let text = format!(
        r#"{{"items": [{}, {}, {}], "labels": [{}, {}]}}"#,
        pod("web-7f9c"),
        pod("web-0a1b"),
        pod("api-55d2"),
        label("bug"),
        label("docs"),
    );
    let chunked = chunk_json("pods.json", &text, &root(), &opts(200));
    check(&chunked, &text, 200, ChunkKind::Json);
    let labels: Vec<String> = chunked
        .chunks
        .iter()
        .map(|c| c.title_path[1..].join(" > "))
        .collect();
    // All three pods fit one chunk, yet each named one is read alone.
    assert_eq!(
        labels,
        [
            "items > [0] web-7f9c",
            "items > [1] web-0a1b",
            "items > [2] api-55d2",
            "labels",
        ]
    );
    let names = ["bug", "docs", "flaky", "wontfix"].repeat(4);
    let labels = format!(
        "[{}]",
        names
            .iter()
            .map(|n| label(n))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let grouped = chunk_json("labels.json", &labels, &root(), &opts(120));
    check(&grouped, &labels, 120, ChunkKind::Json);
    let titles: Vec<&str> = grouped
        .chunks
        .iter()
        .map(|c| c.title_path[1].as_str())
        .collect();
    assert!(titles.len() > 1, "{titles:?}");
    for title in &titles {
        let (range, shown) = title.split_once(' ').unwrap_or_default();
        let (from, to) = range
            .trim_matches(['[', ']'])
            .split_once("..")
            .unwrap_or_default();
        let (from, to): (usize, usize) = (from.parse().expect("from"), to.parse().expect("to"));
        assert_eq!(shown, format!("{} … {}", names[from], names[to - 1]));
    }
    // A group is no record: none of its names is the whole chunk's.
    assert!(
        grouped
            .chunks
            .iter()
            .all(|c| record_path(&c.title_path).is_none())
    );
}

#[test]
fn a_group_of_records_is_read_back_by_its_names() {
    let names: Vec<String> = (0..40).map(|i| format!("label-{i}")).collect();
    let items: Vec<String> = names
        .iter()
        .map(|n| format!(r#"{{"name": "{n}", "meta": {{"tags": ["a]", "{{b"]}}}}"#))
        .collect();
    // Nested under a key, so the first group's text opens `{"labels": [`.
    let text = format!(r#"{{"labels": [{}], "total": 40}}"#, items.join(", "));
    let chunked = chunk_json("labels.json", &text, &root(), &opts(120));
    check(&chunked, &text, 120, ChunkKind::Json);
    let mut read = Vec::new();
    for chunk in &chunked.chunks {
        let got = group_record_names(&chunk.title_path, &chunk.text);
        if chunk.title_path.len() == 3 {
            assert!(!got.is_empty(), "{:?}", chunk.title_path);
        }
        read.extend(got);
    }
    assert_eq!(read, names);
    // Items that are not all records name nothing.
    let mixed = r#"[{"name": "a"}, "b", {"name": "c"}]"#;
    assert!(group_record_names(&["x".into(), "[0..3]".into()], mixed).is_empty());
    assert!(group_record_names(&["x".into(), "labels".into()], &text).is_empty());
}
