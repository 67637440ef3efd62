use std::fmt::Write as _;
use std::time::Duration;

use super::*;

fn transcript(turns: usize, last_number: u64) -> String {
    let mut out = String::new();
    for i in 0..turns {
        let _ = writeln!(
            out,
            "turn {i}: user asked about 日本語 and émoji 🎉; assistant answered."
        );
    }
    let _ = write!(out, "The final answer is {last_number}.");
    out
}

#[test]
fn length_counts_each_unit() {
    let v = "héllo 🎉\nwörld\n";
    let l = length(v);
    assert_eq!(l.chars, 14);
    assert_eq!(l.bytes, v.len());
    assert_eq!(l.lines, 2);
    assert_eq!(l.tokens, crate::tokens::estimate(v));
    assert_eq!(length("").lines, 0);
    assert_eq!(length("a").lines, 1);
    assert_eq!(length("a\nb").lines, 2);
    assert_eq!(length("\n").lines, 1);
}

#[test]
fn slice_counts_chars_and_never_splits_utf8() {
    let v = "ab🎉日本e\u{301}z"; // e + combining acute is two chars
    assert_eq!(v.chars().count(), 8);
    let p = slice(v, 2, 2);
    assert_eq!(p.text, "🎉日");
    assert_eq!(p.range, [2, 4]);
    assert_eq!(p.total, 8);
    assert_eq!(p.describe(), "chars 2–4 of 8");
    assert_eq!(slice(v, 5, 1).text, "e");
    assert_eq!(slice(v, 6, 1).text, "\u{301}");
    assert_eq!(slice(v, -3, 2).text, "e\u{301}");
    assert_eq!(slice(v, -1, 10).text, "z");
    for start in -10..10 {
        for len in 0..10 {
            let p = slice(v, start, len);
            let expected: String = v
                .chars()
                .skip(p.range[0])
                .take(p.range[1] - p.range[0])
                .collect();
            assert_eq!(p.text, expected, "start {start} len {len}");
        }
    }
}

#[test]
fn slice_clamps_out_of_range_and_empty() {
    let p = slice("abc", 10, 5);
    assert_eq!((p.text, p.range), ("", [3, 3]));
    assert!(p.describe().contains("past the end"), "{}", p.describe());
    let p = slice("abc", -10, 2);
    assert_eq!((p.text, p.range), ("ab", [0, 2]));
    let p = slice("abc", i64::MIN, usize::MAX);
    assert_eq!((p.text, p.range), ("abc", [0, 3]));
    let p = slice("abc", i64::MAX, usize::MAX);
    assert_eq!(p.text, "");
    let p = slice("", -5, 5);
    assert_eq!((p.text, p.range, p.total), ("", [0, 0], 0));
    assert_eq!(p.describe(), "chars 0–0 of 0 (the value is empty)");
    assert_eq!(read("").text, "");
}

#[test]
fn slice_across_block_boundaries() {
    // Multi-byte chars straddle the 64 KiB blocks used for counting.
    let v: String = "a日🎉".repeat(30_000);
    let chars: Vec<char> = v.chars().collect();
    for start in [
        0i64, 1, 65_535, 65_536, 65_537, 40_000, 89_999, -1, -65_537, -45_000,
    ] {
        let p = slice(&v, start, 7);
        let from = p.range[0];
        let expected: String = chars[from..(from + 7).min(chars.len())].iter().collect();
        assert_eq!(p.text, expected, "start {start}");
    }
}

#[test]
fn what_number_appears_at_the_end() {
    let v = transcript(5_000, 7_391_204);
    let p = slice(&v, -200, 200);
    assert!(p.text.contains("7391204"), "{}", p.text);
    assert_eq!(p.range[1], p.total);
    assert_eq!(p.text.chars().count(), 200);
    assert_eq!(
        p.describe(),
        format!("chars {}–{} of {}", p.total - 200, p.total, p.total)
    );
}

#[test]
fn lines_by_index_and_from_the_end() {
    let v = "zero\none\ntwo\nthree\n";
    let p = lines(v, 1, 2);
    assert_eq!((p.text, p.range, p.total), ("one\ntwo\n", [1, 3], 4));
    assert_eq!(p.describe(), "lines 1–3 of 4");
    assert_eq!(lines(v, -1, 5).text, "three\n");
    assert_eq!(lines(v, -2, 1).text, "two\n");
    assert_eq!(lines(v, -10, 1).text, "zero\n");
    assert_eq!(lines(v, 4, 3).text, "");
    assert_eq!(lines(v, 100, 3).range, [4, 4]);
    assert_eq!(lines("a\nb", -1, 1).text, "b");
    assert_eq!(lines("a\nb", 0, 0).text, "");
    assert_eq!(lines("", 0, 5).range, [0, 0]);
    assert_eq!(lines("\n\n", -1, 1).text, "\n");
    let v = "α\nβ🎉\n\nδ";
    for start in -6..6 {
        for count in 0..6 {
            let p = lines(v, start, count);
            let expected: String = v
                .split_inclusive('\n')
                .skip(p.range[0])
                .take(p.range[1] - p.range[0])
                .collect();
            assert_eq!(p.text, expected, "start {start} count {count}");
        }
    }
}

#[test]
fn grep_finds_img_tags_with_window() {
    let mut html = String::from("<!doctype html>\n<html><body>\n");
    for i in 0..20_000 {
        if i % 1000 == 500 {
            let _ = writeln!(html, "<IMG src=\"/img/{i}.png\" alt=\"pic {i}\">");
        } else {
            let _ = writeln!(html, "<p class=\"row\">paragraph {i}</p>");
        }
    }
    html.push_str("</body></html>\n");
    let opts = GrepOptions {
        window: 2,
        ignore_case: true,
        ..GrepOptions::default()
    };
    let r = grep(&html, "<img", &opts).expect("valid regex");
    assert_eq!(r.total_matches, 20);
    assert!(!r.truncated);
    let first = &r.matches[0];
    assert_eq!(first.line_no, 502);
    assert_eq!(first.line, "<IMG src=\"/img/500.png\" alt=\"pic 500\">");
    assert_eq!(
        first.before,
        [
            "<p class=\"row\">paragraph 498</p>",
            "<p class=\"row\">paragraph 499</p>"
        ]
    );
    assert_eq!(
        first.after,
        [
            "<p class=\"row\">paragraph 501</p>",
            "<p class=\"row\">paragraph 502</p>"
        ]
    );
    // line_no agrees with `lines`.
    assert_eq!(
        lines(&html, first.line_no as i64, 1).text.trim_end(),
        first.line
    );
    let strict = grep(&html, "<img", &GrepOptions::default()).expect("valid regex");
    assert_eq!(strict.total_matches, 0);
}

#[test]
fn grep_caps_results_and_counts_lines_once() {
    let v = "x x x\ny\nx\n".repeat(100);
    let opts = GrepOptions {
        window: 1,
        max_results: 3,
        ..GrepOptions::default()
    };
    let r = grep(&v, "x", &opts).expect("valid regex");
    assert_eq!(r.total_matches, 200);
    assert_eq!(r.matches.len(), 3);
    assert!(r.truncated);
    assert_eq!(
        r.matches.iter().map(|m| m.line_no).collect::<Vec<_>>(),
        [0, 2, 3]
    );
    assert_eq!(r.matches[0].before, Vec::<String>::new());
    // Windows are merged as `grep -C` merges them: line 1 (`y`) is shown
    // once, after line 0; line 2 (`x`) is a match, not line 3's context.
    let shown: Vec<(&[String], &[String])> = r
        .matches
        .iter()
        .map(|m| (m.before.as_slice(), m.after.as_slice()))
        .collect();
    let (none, y) = (&[][..], &["y".to_string()][..]);
    assert_eq!(shown, [(none, y), (none, none), (none, y)]);
    assert_eq!(
        r.render(usize::MAX).text,
        "0: x x x\n1- y\n2: x\n3: x x x\n4- y\n"
    );
    let r = grep(&v, "^y$", &GrepOptions::default()).expect("valid regex");
    assert_eq!(r.total_matches, 100);
    assert_eq!(r.matches[1].line_no, 4);
}

/// Groups that do not touch are separated by `--`; the text stops before
/// the match that would pass the cap, and says how many matches it holds.
#[test]
fn grep_renders_groups_within_a_cap() {
    let v: String = (0..100).map(|i| format!("{i}\n")).collect();
    let r = grep(
        &v,
        "^(10|12|50|90)$",
        &GrepOptions {
            window: 1,
            ..GrepOptions::default()
        },
    )
    .expect("valid regex");
    let all = r.render(usize::MAX);
    assert_eq!(
        all.text,
        "9- 9\n10: 10\n11- 11\n12: 12\n13- 13\n--\n49- 49\n50: 50\n51- 51\n--\n89- 89\n90: 90\n91- 91\n"
    );
    assert_eq!(all.shown, 4);
    let cut = r.render(30);
    assert_eq!(
        (cut.text.as_str(), cut.shown),
        ("9- 9\n10: 10\n11- 11\n", 1)
    );
    assert_eq!(r.render(0).shown, 1, "the first match is always shown");
}

#[test]
fn grep_edge_cases() {
    assert_eq!(
        grep("", ".*", &GrepOptions::default())
            .expect("ok")
            .total_matches,
        0
    );
    let r = grep("a\nb\n", "", &GrepOptions::default()).expect("ok");
    assert_eq!(
        r.total_matches, 2,
        "an empty pattern matches each line once"
    );
    let r = grep("one\r\ntwo\r\n", "^two$", &GrepOptions::default()).expect("ok");
    assert_eq!((r.total_matches, r.matches[0].line.as_str()), (1, "two"));
    assert_eq!(r.matches[0].before, ["one"]);
    let r = grep("ab\ncd", "b\nc", &GrepOptions::default()).expect("ok");
    assert_eq!(
        r.matches[0].line_no, 0,
        "a match spanning lines belongs to its first line"
    );
    // One huge line is cut around the match.
    let long = format!("{}NEEDLE{}", "日".repeat(100_000), "z".repeat(100_000));
    let r = grep(&long, "NEEDLE", &GrepOptions::default()).expect("ok");
    let line = &r.matches[0].line;
    assert!(line.contains("NEEDLE") && line.starts_with('…') && line.ends_with('…'));
    assert!(line.chars().count() <= 402, "{}", line.chars().count());
}

#[test]
fn invalid_regex_names_pattern_and_reason() {
    let err = grep("abc", "a(b", &GrepOptions::default()).expect_err("invalid");
    let message = err.to_string();
    assert!(message.starts_with("invalid regex `a(b`:"), "{message}");
    assert!(message.contains("unclosed group"), "{message}");
}

const ITEMS: &str = r#"{"items":[{"name":"a","n":1,"tags":["x"]},{"name":"b","n":5},{"name":"c","n":9}],"note":"héllo\nworld"}"#;

fn run(jq: &str, opts: &QueryOptions) -> Vec<String> {
    query(ITEMS, jq, opts).expect(jq).outputs
}

#[test]
fn query_select_map_and_std_library() {
    let compact = QueryOptions {
        compact: true,
        ..QueryOptions::default()
    };
    assert_eq!(
        run(".items[] | select(.n > 2) | .name", &compact),
        ["\"b\"", "\"c\""]
    );
    assert_eq!(run(".items | map(.n * 2)", &compact), ["[2,10,18]"]);
    assert_eq!(run(".items | length", &compact), ["3"]);
    assert_eq!(run("keys", &compact), ["[\"items\",\"note\"]"]);
    assert_eq!(
        run(".items | map(select(has(\"tags\"))) | length", &compact),
        ["1"]
    );
    assert_eq!(run("[.items[].n] | add", &compact), ["15"]);
    assert_eq!(
        run(".items[0]", &compact),
        [r#"{"name":"a","n":1,"tags":["x"]}"#]
    );
    assert_eq!(run(".missing", &compact), ["null"]);
    assert_eq!(run("empty", &compact), Vec::<String>::new());
}

#[test]
fn query_compact_pretty_and_raw() {
    let pretty = run(".items[1]", &QueryOptions::default());
    assert_eq!(pretty, ["{\n  \"name\": \"b\",\n  \"n\": 5\n}"]);
    let raw = QueryOptions {
        raw: true,
        ..QueryOptions::default()
    };
    assert_eq!(run(".note", &raw), ["héllo\nworld"]);
    assert_eq!(
        run(".note", &QueryOptions::default()),
        ["\"héllo\\nworld\""]
    );
    assert_eq!(run(".items[0].n", &raw), ["1"], "raw only changes strings");
}

#[test]
fn query_output_cap() {
    let value = format!(
        "[{}]",
        (0..1000)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let opts = QueryOptions {
        compact: true,
        max_output_chars: 50,
        ..QueryOptions::default()
    };
    let r = query(&value, ".[]", &opts).expect("valid");
    assert!(r.truncated);
    assert_eq!(
        r.outputs.iter().map(|o| o.chars().count()).sum::<usize>(),
        50
    );
    let r = query(&value, ".", &opts).expect("valid");
    assert!(r.truncated);
    assert_eq!(r.outputs.len(), 1);
    assert_eq!(r.outputs[0].chars().count(), 50);
    assert!(r.outputs[0].starts_with("[0,1,2,"));
    let all = query(&value, "length", &opts).expect("valid");
    assert_eq!(
        (all.outputs.as_slice(), all.truncated),
        (&["1000".to_string()][..], false)
    );
    let multibyte = QueryOptions {
        raw: true,
        max_output_chars: 3,
        ..QueryOptions::default()
    };
    let r = query(r#""🎉日本語""#, ".", &multibyte).expect("valid");
    assert_eq!((r.outputs[0].as_str(), r.truncated), ("🎉日本", true));
}

#[test]
fn query_time_limit() {
    let opts = QueryOptions {
        timeout: Duration::ZERO,
        ..QueryOptions::default()
    };
    let err = query("[1,2,3]", "range(1000000)", &opts).expect_err("times out");
    assert!(
        matches!(err, ResolveError::QueryTimedOut { outputs: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("limit(10; ...)"), "{err}");
}

/// Nesting past the limit is refused before jaq reads it (its reader, and
/// everything after, recurse per level); up to the limit it runs.
#[test]
fn query_refuses_json_nested_past_the_limit() {
    let opts = QueryOptions::default();
    let nested = |depth: usize| "[".repeat(depth) + &"]".repeat(depth);
    let at_limit = nested(crate::relay::nesting::MAX_JSON_DEPTH);
    let r = query(&at_limit, "[paths] | length", &opts).expect("at the limit");
    assert_eq!(r.outputs, ["999"]);
    for depth in [10_000, 1_000_000] {
        let err = query(&nested(depth), ".", &opts).expect_err("too deep");
        assert_eq!(
            err.to_string(),
            "value nests arrays or objects more than 1000 levels deep, too deep for a jq query; use grep, lines or slice instead"
        );
    }
}

/// A byte order mark before the JSON is skipped, as media detection skips it.
#[test]
fn query_skips_a_byte_order_mark() {
    let r = query("\u{feff}{\"k\":[1,2]}", "keys", &QueryOptions::default()).expect("runs");
    assert_eq!(r.outputs, ["[\n  \"k\"\n]"]);
}

#[test]
fn query_errors_say_what_to_do() {
    let opts = QueryOptions::default();
    let err = query("plain text, not json", ".a", &opts).expect_err("not json");
    let message = err.to_string();
    assert!(
        message.starts_with("value is not JSON (media type text/plain"),
        "{message}"
    );
    assert!(
        message.ends_with("use grep or lines instead of a jq query"),
        "{message}"
    );
    let err = query(ITEMS, ".items[", &opts)
        .expect_err("syntax")
        .to_string();
    assert!(
        err.starts_with("invalid jq query `.items[`: expected"),
        "{err}"
    );
    let err = query(ITEMS, "nosuchfilter", &opts)
        .expect_err("undefined")
        .to_string();
    assert!(err.contains("undefined filter `nosuchfilter/0`"), "{err}");
    let err = query(ITEMS, "env", &opts)
        .expect_err("env is removed")
        .to_string();
    assert!(err.contains("undefined filter `env/0`"), "{err}");
    let err = query(ITEMS, ".items[] | .name + 1", &opts).expect_err("runtime");
    assert!(
        matches!(err, ResolveError::QueryFailed { outputs: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("cannot"), "{err}");
    let err = query(ITEMS, "error(\"boom\")", &opts)
        .expect_err("error/1")
        .to_string();
    assert!(err.contains("boom"), "{err}");
    let err = query(ITEMS, "halt", &opts).expect_err("halt is an error, not an exit");
    assert!(err.to_string().contains("halt"), "{err}");
}

/// A path naming a key the value lacks answers null as jq does, with a note
/// naming the key and the keys there are; a path whose keys all exist, or a
/// query that is not a path, gets none.
#[test]
fn a_missing_key_is_named() {
    let opts = QueryOptions::default();
    let note = |jq: &str| query(ITEMS, jq, &opts).expect(jq).note;
    assert_eq!(
        note(".itemz").as_deref(),
        Some("the value has no key `itemz` (jq gives null for it); its keys: items, note")
    );
    assert_eq!(
        note(".items[1].nmae").as_deref(),
        Some("`.items[1]` has no key `nmae` (jq gives null for it); its keys: name, n")
    );
    assert_eq!(
        note(".items[]?.tag").as_deref(),
        Some(
            "the items of `.items` (the first shown) has no key `tag` (jq gives null for it); its keys: name, n, tags"
        )
    );
    let root = r#"[{"a": 1}, {"a": 2}]"#;
    let r = query(root, ".[].b", &opts).expect("runs");
    assert_eq!(r.outputs, ["null", "null"]);
    assert!(
        r.note
            .is_some_and(|n| n.starts_with("the items of the value"))
    );
    for fine in [
        ".items[0].tags",
        ".items[0].name",
        "[.itemz]",
        ".items | length",
    ] {
        assert_eq!(note(fine), None, "{fine}");
    }
    let err = query(ITEMS, ".itemz[] | .name", &opts).expect_err("null is not iterable");
    assert!(
        err.to_string()
            .contains("the value has no key `itemz` (jq gives null for it)"),
        "{err}"
    );
}
