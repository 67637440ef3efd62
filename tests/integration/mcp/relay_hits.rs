//! Search hits inside boxed values, over MCP: each names the arguments of the
//! tool that reads exactly it.

use serde_json::{Value, json};

use super::harness::{Served, assert_ok, call, pyclient, text};

/// A hit in the one-line JSON value is a piece of that line, so it names
/// `internal_resource_read_slice`'s arguments (its line would be the whole
/// value); a hit in the log names `internal_resource_read_lines`'s. Called
/// with them, each tool returns the hit's text.
#[test]
fn relay_hits_name_the_call_that_reads_exactly_them() {
    let s = Served::new();
    let search = |query: &str| -> Value {
        let out = s
            .env
            .json(&["search", "--no-build", "--scope", "relay", "-k", "1", query]);
        out["hits"][0].clone()
    };
    let chunk_text = |hit: &Value| -> String {
        let got = s
            .env
            .json(&["get", "--mode", "raw", hit["id"].as_str().expect("id")]);
        got["chunks"][0]["text"].as_str().expect("text").to_string()
    };
    let in_json = search("item250");
    assert_eq!(
        in_json["boxed"]["reference"].as_str(),
        Some(&*s.json_ref),
        "{in_json}"
    );
    let [start, length] = ["start_index", "length"].map(|k| {
        in_json["boxed"][k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k}: {in_json}"))
    });
    let in_log = search("log line 1234");
    assert_eq!(
        in_log["boxed"]["reference"].as_str(),
        Some(&*s.log_ref),
        "{in_log}"
    );
    assert!(in_log["boxed"].get("start_index").is_none(), "{in_log}");
    let [line, lines] = ["start_line", "line_count"].map(|k| {
        in_log["boxed"][k]
            .as_u64()
            .unwrap_or_else(|| panic!("{k}: {in_log}"))
    });

    let report = pyclient(
        "auto",
        &s.command(),
        json!([
            call(
                "ctx_search",
                json!({"query": "item250", "scope": "relay", "k": 1})
            ),
            call(
                "internal_resource_read_slice",
                json!({"opaque_reference": s.json_ref, "start_index": start, "length": length})
            ),
            call(
                "ctx_search",
                json!({"query": "log line 1234", "scope": "relay", "k": 1})
            ),
            call(
                "internal_resource_read_lines",
                json!({"opaque_reference": s.log_ref, "start_line": line, "line_count": lines})
            ),
        ]),
    );
    let steps = report["steps"].as_array().expect("steps");
    for step in steps {
        assert_ok(step);
    }
    let named = format!(
        ", boxed output {} start_index {start} length {length})",
        s.json_ref
    );
    assert!(
        text(&steps[0], 0).contains(&named),
        "{}",
        text(&steps[0], 0)
    );
    assert_eq!(text(&steps[1], 1), chunk_text(&in_json));
    let named = format!(
        ", boxed output {} start_line {line} line_count {lines})",
        s.log_ref
    );
    assert!(
        text(&steps[2], 0).contains(&named),
        "{}",
        text(&steps[2], 0)
    );
    assert_eq!(
        text(&steps[3], 1).trim_end(),
        chunk_text(&in_log).trim_end()
    );
}
