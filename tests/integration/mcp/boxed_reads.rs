//! Boxed values over MCP: a search hit names the arguments of the tool that
//! reads exactly it, and no read returns more than the answer cap.

use serde_json::{Value, json};

use super::super::util::{Env, test_tools};
use super::harness::{Served, assert_ok, box_value, call, pyclient, serve, text};

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

/// "50 lines" of a one-line value (minified JSON) of ~300,000 characters are
/// capped like a whole read: the first 100,000 characters, and the slice that
/// reads on, which continues exactly where the cut stopped. A read within the
/// cap is not cut. A query naming a key the rows lack says so beside jq's
/// nulls.
#[test]
fn reads_of_a_one_line_value_are_capped_and_read_on() {
    test_tools();
    let env = Env::fixture("demo");
    env.ctx(&["build", "-q"]).assert().success();
    let rows: Vec<Value> = (0..12_000)
        .map(|i| json!({"id": i, "name": format!("row-{i}")}))
        .collect();
    let value = json!({ "rows": rows }).to_string();
    assert!(value.len() > 250_000 && value.is_ascii() && !value.contains('\n'));
    let reference = box_value(&env, &value, "default");
    let mut command = serve(&env);
    command.extend(["--session".into(), "default".into()]);
    let report = pyclient(
        "auto",
        &command,
        json!([
            call(
                "internal_resource_read_lines",
                json!({"opaque_reference": reference, "start_line": 0, "line_count": 50})
            ),
            call(
                "internal_resource_read_slice",
                json!({"opaque_reference": reference, "start_index": 100_000, "length": 100_000})
            ),
            call(
                "internal_resource_read_slice",
                json!({"opaque_reference": reference, "start_index": 10, "length": 1000})
            ),
            call(
                "internal_resource_read",
                json!({"opaque_reference": reference})
            ),
            call(
                "internal_resource_query",
                json!({"opaque_reference": reference, "jq": ".rows[0].nam"})
            ),
        ]),
    );
    let steps = report["steps"].as_array().expect("steps");
    for step in steps {
        assert_ok(step);
    }
    let header = text(&steps[0], 0);
    let read_on = format!(
        "read on with internal_resource_read_slice {{\"opaque_reference\":\"{reference}\",\"start_index\":100000,\"length\":100000}}"
    );
    assert!(header.starts_with("[chars 0–100000 of "), "{header}");
    assert!(
        header.contains("lines 0–1 of 1 asked, cut at 100000 chars"),
        "{header}"
    );
    assert!(header.contains(&read_on), "{header}");
    assert_eq!(text(&steps[0], 1), &value[..100_000]);
    assert_eq!(steps[0]["structuredContent"]["range"], json!([0, 100_000]));
    // Read on as told: the next characters, and nothing more to cut.
    assert_eq!(text(&steps[1], 1), &value[100_000..200_000]);
    assert!(
        !text(&steps[1], 0).contains("cut at"),
        "{}",
        text(&steps[1], 0)
    );
    assert_eq!(text(&steps[2], 1), &value[10..1010]);
    assert!(
        text(&steps[3], 0).contains(&read_on),
        "{}",
        text(&steps[3], 0)
    );
    assert_eq!(text(&steps[3], 1), &value[..100_000]);
    assert_eq!(
        text(&steps[4], 0),
        "null\n[`.rows[0]` has no key `nam` (jq gives null for it); its keys: id, name]"
    );
}
