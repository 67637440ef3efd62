use std::fmt::Write as _;

use super::*;
use crate::relay::resolve::{QueryOptions, query};

#[test]
fn sniffs_media_types() {
    assert_eq!(media_type(r#"{"a": [1, 2]}"#), MediaType::Json);
    assert_eq!(media_type("\u{feff}\n  [1, 2, 3]\n"), MediaType::Json);
    assert_eq!(media_type("{not json"), MediaType::Text);
    assert_eq!(media_type("42"), MediaType::Text);
    assert_eq!(
        media_type("[INFO] build started\n[INFO] done"),
        MediaType::Text
    );
    assert_eq!(
        media_type("<!DOCTYPE html><html><body>x</body></html>"),
        MediaType::Html
    );
    assert_eq!(media_type("  <html lang=en>"), MediaType::Html);
    let soup = "<div><p>a</p><p>b</p><p>c</p><p>d</p><span>e</span></div>\n".repeat(3);
    assert_eq!(media_type(&soup), MediaType::Html);
    assert_eq!(
        media_type("# Title\n\nText.\n\n## Usage\n\nMore."),
        MediaType::Markdown
    );
    assert_eq!(media_type("Intro\n\n```sh\nls\n```\n"), MediaType::Markdown);
    let readme = "# Tool\n\n<img src=a.png> <b>bold</b>\n\n```\nx\n```\n";
    assert_eq!(media_type(readme), MediaType::Markdown);
    assert_eq!(
        media_type("#!/bin/sh\n# comment\n# another\necho hi\n"),
        MediaType::Text
    );
    assert_eq!(media_type(""), MediaType::Text);
    assert_eq!(MediaType::Markdown.extension(), "md");
    assert_eq!(MediaType::Json.mime(), "application/json");
}

#[test]
fn text_preview_has_size_head_and_tail() {
    let mut v = String::new();
    for i in 0..1000 {
        let _ = writeln!(v, "line {i}");
    }
    let p = preview(&v, media_type(&v), &PreviewOptions::default());
    assert_eq!(p.media, MediaType::Text);
    assert_eq!(p.length.lines, 1000);
    assert_eq!(p.head.first().map(String::as_str), Some("line 0"));
    assert_eq!(p.tail, ["line 996", "line 997", "line 998", "line 999"]);
    let text = p.render();
    assert!(
        text.starts_with(&format!(
            "text value: 8890 chars, 1000 lines, ~{} tokens\n",
            crate::tokens::estimate(&v)
        )),
        "{text}"
    );
    assert!(text.contains("first 8 lines:\n  line 0\n"), "{text}");
    assert!(
        text.ends_with("last 4 lines:\n  line 996\n  line 997\n  line 998\n  line 999\n"),
        "{text}"
    );
}

#[test]
fn short_values_do_not_repeat_lines() {
    let p = preview("a\nb\nc", MediaType::Text, &PreviewOptions::default());
    assert_eq!(p.head, ["a", "b", "c"]);
    assert!(p.tail.is_empty());
    let p = preview("", MediaType::Text, &PreviewOptions::default());
    assert!(p.head.is_empty() && p.tail.is_empty());
    assert!(p.render().starts_with("text value: 0 chars, 0 lines"));
}

#[test]
fn json_shape_and_examples_run_as_written() {
    let v = r#"{
  "data": {"results": [{"id": 1, "name": "alpha", "score": 0.5}, {"id": 2, "name": "beta", "score": 0.9}], "total": 2},
  "next page": null,
  "items": [{"name": "x", "status": "open", "tags": []}, {"name": "y", "status": "closed", "tags": ["a"]}]
}"#;
    let p = preview(v, media_type(v), &PreviewOptions::default());
    let shape = p.shape.as_ref().expect("json shape");
    assert_eq!(shape.top, "object{data,next page,items} (3 keys)");
    let fields: Vec<String> = shape
        .fields
        .iter()
        .map(|(p, t)| format!("{p}: {t}"))
        .collect();
    assert_eq!(
        fields,
        [
            ".data: object{results,total} (2 keys)",
            ".data.results: array[2] of object{id,name,score}",
            ".data.total: number",
            ".[\"next page\"]: null",
            ".items: array[2] of object{name,status,tags}",
        ]
    );
    assert_eq!(
        shape.examples,
        [
            "keys",
            ".items | length",
            ".items[0]",
            ".items[] | .name",
            ".items[] | {name, status}",
            ".items[] | select(.name == \"x\")",
        ]
    );
    for jq in shape
        .examples
        .iter()
        .chain(shape.fields.iter().map(|(p, _)| p))
    {
        let r = query(v, jq, &QueryOptions::default());
        assert!(
            r.as_ref().is_ok_and(|r| !r.outputs.is_empty()),
            "{jq}: {r:?}"
        );
    }
    let nested = r#"{"data": {"results": [{"id": 1}]}}"#;
    let p = preview(nested, MediaType::Json, &PreviewOptions::default());
    let examples = &p.shape.expect("shape").examples;
    assert!(
        examples.contains(&".data.results | length".to_string()),
        "{examples:?}"
    );
    let text = preview(v, MediaType::Json, &PreviewOptions::default()).render();
    assert!(text.contains("try jq:\n  keys\n"), "{text}");
}

#[test]
fn top_level_array_examples() {
    let v = r#"[{"title": "a b", "n": 1}, {"title": "c", "n": 2}]"#;
    let p = preview(v, MediaType::Json, &PreviewOptions::default());
    let shape = p.shape.expect("shape");
    assert_eq!(shape.top, "array[2] of object{title,n}");
    assert_eq!(
        shape.examples,
        [
            "length",
            ".[0]",
            ".[] | .title",
            ".[] | {title, n}",
            ".[] | select(.title == \"a b\")"
        ]
    );
    for jq in &shape.examples {
        assert!(query(v, jq, &QueryOptions::default()).is_ok(), "{jq}");
    }
    let odd = r#"[{"a-b": 1}]"#;
    let shape = preview(odd, MediaType::Json, &PreviewOptions::default())
        .shape
        .expect("shape");
    assert!(
        shape.examples.contains(&".[] | .[\"a-b\"]".to_string()),
        "{:?}",
        shape.examples
    );
    for jq in &shape.examples {
        assert!(query(odd, jq, &QueryOptions::default()).is_ok(), "{jq}");
    }
}

#[test]
fn huge_values_render_within_budget() {
    let mut big = String::from("{\n");
    for i in 0..5_000 {
        let _ = writeln!(
            big,
            "  \"key_{i}_{}\": {{\"value\": \"{}\"}},",
            "k".repeat(50),
            "v".repeat(300)
        );
    }
    big.push_str("  \"last\": 1\n}\n");
    let minified = format!(
        "[{}]",
        vec![r#"{"id":1,"body":"long text here"}"#; 100_000].join(",")
    );
    let lines = "x".repeat(5_000) + "\n" + &"word ".repeat(200_000);
    for v in [big.as_str(), minified.as_str(), lines.as_str()] {
        let p = preview(v, media_type(v), &PreviewOptions::default());
        let text = p.render();
        let tokens = crate::tokens::estimate(&text);
        assert!(tokens <= 600, "{tokens} tokens:\n{text}");
        assert!(text.contains("value: "), "{text}");
    }
    let text = preview(&big, MediaType::Json, &PreviewOptions::default()).render();
    assert!(text.contains("more keys (jq `keys`)"), "{text}");
    assert!(text.contains("last 4 lines"), "{text}");
    let text = preview(&minified, MediaType::Json, &PreviewOptions::default()).render();
    assert!(text.contains("chars)"), "minified line is cut: {text}");
    assert!(text.contains(".[] | .id"), "{text}");
}

#[test]
fn values_of_a_long_array_say_how_many_items_they_counted() {
    let items: Vec<String> = (0..60_000)
        .map(|i| format!(r#"{{"id":{i},"ok":{}}}"#, i % 10 != 0))
        .collect();
    let v = format!("[{}]", items.join(","));
    let text = preview(&v, MediaType::Json, &PreviewOptions::default()).render();
    assert!(
        text.contains(
            "values (the first 50000 of 60000 items):\n  .[] | .ok: true ×45000, false ×5000\n"
        ),
        "{text}"
    );
    assert!(text.contains("\n  .[] | select(.ok == false)\n"), "{text}");
}
