//! `ctx relay` in front of real MCP servers (npm, PyPI), driven by real clients:
//! the Python SDK (legacy, auto and 2026-07-28 modes), Inspector v1 and v2, and
//! the raw driver for exact-wire checks (progress tokens, cancellation).

use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::driver::{Relay, WAIT, cut, pyclient, reference_of, relay_argv, text_of};
use crate::util::{Env, test_tools};

/// A 2 MB text file with multi-byte characters, tabs and CRLF lines.
fn big_text() -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.len() < 2_000_000 {
        s.push_str(&format!(
            "{i:06}\tline — naïve café 日本語 {}\r\n",
            "abcdefghij".repeat(i % 7)
        ));
        i += 1;
    }
    s
}

fn step(out: &Value, i: usize) -> &Value {
    let s = &out["steps"][i];
    assert!(s.get("error").is_none(), "step {i} failed: {}", cut(out));
    s
}

/// server-filesystem: a 2 MB read is boxed; `write_file` with the reference
/// (in a second client session, same --session) writes a byte-identical file.
#[test]
fn filesystem_box_then_unbox_byte_identical() {
    let t = test_tools();
    let env = Env::empty();
    let data = env.path().join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    let original = big_text();
    std::fs::write(data.join("big.txt"), &original).expect("write");
    let server = vec![
        t.get("FS_SERVER").display().to_string(),
        data.display().to_string(),
    ];
    let argv = relay_argv(&env, &["--session", "fs1"], &server);
    let out = pyclient(&json!({
        "mode": "auto", "command": argv,
        "steps": [
            {"op": "list_tools"},
            {"op": "call_tool", "name": "read_text_file", "arguments": {"path": data.join("big.txt")}}
        ]
    }));
    assert_eq!(out["protocol_version"], "2025-11-25", "{}", cut(&out));
    assert!(out["server_capabilities"]["resources"].is_object());
    let listed = step(&out, 0)["tools"].as_array().expect("tools");
    assert!(listed.iter().all(|t| t.get("outputSchema").is_none()));
    assert!(listed.iter().any(|t| t["name"] == "ctx_search"));
    let result = step(&out, 1);
    let text = text_of(result);
    assert!(
        text.len() < 5_000,
        "{} bytes reached the client",
        text.len()
    );
    assert!(text.contains("read_text_file"), "{text}");
    let reference = reference_of(result);

    let out = pyclient(&json!({
        "mode": "legacy", "command": argv,
        "steps": [
            {"op": "call_tool", "name": "write_file", "arguments": {"path": data.join("copy.txt"), "content": reference}},
            {"op": "read_resource", "uri": reference}
        ]
    }));
    let written = step(&out, 0);
    assert_ne!(written["isError"], true, "{}", cut(written));
    let copy = std::fs::read(data.join("copy.txt")).expect("copy written");
    assert!(
        copy == original.as_bytes(),
        "write_file got different bytes"
    );
    let read = step(&out, 1);
    assert_eq!(
        read["contents"][0]["text"].as_str(),
        Some(original.as_str())
    );
}

/// server-memory: a large read_graph is boxed as JSON, and a jq query on it works.
#[test]
fn memory_graph_boxed_and_queried() {
    let t = test_tools();
    let env = Env::empty();
    let memory = env.path().join("memory.jsonl").display().to_string();
    let entities: Vec<Value> = (0..1500)
        .map(|i| json!({"name": format!("entity-{i}"), "entityType": "thing",
            "observations": [format!("observation {i} about a fairly long subject {}", "z".repeat(i % 50))]}))
        .collect();
    let argv = relay_argv(
        &env,
        &["--session", "mem"],
        &[t.get("MEMORY_SERVER").display().to_string()],
    );
    let out = pyclient(&json!({
        "mode": "legacy", "command": argv, "env": {"MEMORY_FILE_PATH": memory},
        "steps": [
            {"op": "call_tool", "name": "create_entities", "arguments": {"entities": entities}},
            {"op": "call_tool", "name": "read_graph", "arguments": {}}
        ]
    }));
    let graph = step(&out, 1);
    let reference = reference_of(graph);
    let link = graph["content"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["type"] == "resource_link"))
        .expect("link");
    assert_eq!(link["mimeType"], "application/json");
    let out = pyclient(&json!({
        "mode": "legacy", "command": argv, "env": {"MEMORY_FILE_PATH": memory},
        "steps": [
            {"op": "call_tool", "name": "internal_resource_query", "arguments": {"opaque_reference": reference, "jq": ".entities | length"}},
            {"op": "call_tool", "name": "ctx_search", "arguments": {"query": "observation 1234 subject", "scope": "relay"}}
        ]
    }));
    assert_eq!(text_of(step(&out, 0)).trim(), "1500", "{}", cut(&out));
    let hits = text_of(step(&out, 1));
    assert!(
        hits.contains(&format!("boxed output {reference}")),
        "{hits}"
    );
    assert!(hits.contains("observation 123"), "{hits}");
    // The graph is pretty-printed JSON, so the hit names the lines that hold
    // it, in read_lines' numbering, and they are a piece of the graph.
    let span = hits
        .split(&format!("boxed output {reference} start_line "))
        .nth(1)
        .unwrap_or_else(|| panic!("a span: {hits}"));
    let numbers: Vec<u64> = span
        .split([' ', ')'])
        .filter_map(|w| w.parse().ok())
        .take(2)
        .collect();
    let out = pyclient(&json!({
        "mode": "legacy", "command": argv, "env": {"MEMORY_FILE_PATH": memory},
        "steps": [
            {"op": "call_tool", "name": "internal_resource_read_lines", "arguments": {"opaque_reference": reference, "start_line": numbers[0], "line_count": numbers[1]}},
            {"op": "call_tool", "name": "internal_resource_length", "arguments": {"opaque_reference": reference}},
            {"op": "call_tool", "name": "internal_resource_read_lines", "arguments": {"opaque_reference": reference, "start_line": 0, "line_count": 10000}},
        ]
    }));
    let piece = text_of(step(&out, 0));
    assert!(
        piece.contains("observation 1234 about"),
        "{numbers:?}: {}",
        cut(&out)
    );
    // "internal://…: 123,456 characters, …"
    let length = text_of(step(&out, 1));
    let total: u64 = length
        .split_once(": ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("a character count: {length}"));
    assert!(
        (piece.chars().count() as u64) < total / 20,
        "a piece of the graph, not all {total} characters: {numbers:?}"
    );
    // Too many lines for one answer are cut to the relay's cap, with the
    // slice that reads on from the cut.
    let lines = &step(&out, 2)["content"];
    let header = lines[0]["text"].as_str().expect("header");
    let shown = lines[1]["text"].as_str().expect("text").chars().count();
    assert!((shown as u64) < total, "{header}");
    assert!(
        header.contains(&format!(
            " asked, cut by the relay's cap of ~10000 tokens. Continue with internal_resource_read_slice {{\"opaque_reference\": \"{reference}\", \"start_index\": {shown}, \"length\": {shown}}}"
        )),
        "{header}"
    );
    // create_entities echoes its input as text and as structuredContent: boxed once.
    let boxes = std::fs::read_dir(env.path().join("_ctx/relay/mem"))
        .expect("store")
        .count();
    assert_eq!(boxes, 2, "one box for create_entities, one for read_graph");
}

fn git(dir: &std::path::Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@localhost")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@localhost")
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

/// mcp-server-git (dual-era): a large git_show is boxed, in the 2026-07-28 era
/// (resultType present on the wire) and in the legacy era.
#[test]
fn git_show_boxed_in_both_eras() {
    let t = test_tools();
    let env = Env::empty();
    let repo = env.path().join("repo");
    std::fs::create_dir_all(&repo).expect("mkdir");
    git(&repo, &["init", "-q"]);
    std::fs::write(repo.join("big.txt"), big_text()).expect("write");
    git(&repo, &["add", "big.txt"]);
    git(&repo, &["commit", "-q", "-m", "big"]);
    let argv = relay_argv(&env, &[], &[t.get("GIT_SERVER").display().to_string()]);
    for mode in ["2026-07-28", "legacy"] {
        let out = pyclient(&json!({
            "mode": mode, "command": argv, "exclude_unset": true,
            "steps": [
                {"op": "list_tools"},
                {"op": "call_tool", "name": "git_show", "arguments": {"repo_path": repo, "revision": "HEAD"}},
                {"op": "call_tool", "name": "internal_resource_length", "arguments": {"opaque_reference": "internal://aaaaaaaaaaaaaaaa"}}
            ]
        }));
        let shown = step(&out, 1);
        assert!(text_of(shown).len() < 5_000, "{mode}: {}", cut(shown));
        reference_of(shown);
        let missing = step(&out, 2);
        assert_eq!(missing["isError"], true, "{mode}");
        if mode == "legacy" {
            assert_eq!(out["protocol_version"], "2025-11-25");
            assert!(shown.get("resultType").is_none(), "{}", cut(shown));
        } else {
            assert_eq!(out["protocol_version"], "2026-07-28");
            assert_eq!(shown["resultType"], "complete");
            assert_eq!(missing["resultType"], "complete");
        }
    }
}

/// server-everything, raw wire: progress keeps the client's token, cancellation
/// reaches the server, resource links and structured content pass, and the
/// proxy's schema check answers a bad get-sum precisely.
#[test]
fn everything_progress_cancel_links_structured_errors() {
    let t = test_tools();
    let env = Env::empty();
    let mut r = Relay::start(
        &env,
        &[],
        &[t.get("EVERYTHING_SERVER").display().to_string()],
        &[],
    );
    r.initialize();
    let list = r.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    assert!(tools.iter().all(|t| t.get("outputSchema").is_none()));

    r.send(
        &json!({"jsonrpc": "2.0", "id": "p-1", "method": "tools/call", "params": {
        "name": "trigger-long-running-operation", "arguments": {"duration": 1, "steps": 3},
        "_meta": {"progressToken": "tok-7"}}}),
    );
    let done = r.response(&json!("p-1"), WAIT);
    assert!(done["result"]["content"].is_array(), "{done}");
    let progress: Vec<&Value> = r
        .others
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(!progress.is_empty(), "no progress: {:?}", r.others);
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "tok-7")
    );

    r.others.clear();
    r.send(
        &json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call", "params": {
        "name": "trigger-long-running-operation", "arguments": {"duration": 3, "steps": 6},
        "_meta": {"progressToken": 50}}}),
    );
    let first = r.recv(WAIT);
    assert_eq!(first["method"], "notifications/progress", "{first}");
    r.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 50, "reason": "test"}}));
    let echo = r.call("echo", json!({"message": "after cancel"}));
    assert_eq!(text_of(&echo), "Echo: after cancel");
    let deadline = std::time::Instant::now() + Duration::from_secs(4);
    while let Some(line) = r.recv_raw(deadline.saturating_duration_since(std::time::Instant::now()))
    {
        let m: Value = serde_json::from_slice(&line).expect("json");
        assert!(
            m.get("method").is_some() || m["id"] != 50,
            "cancelled call answered: {m}"
        );
    }

    let links = r.call("get-resource-links", json!({"count": 2}));
    let n = links["content"]
        .as_array()
        .map(|c| c.iter().filter(|b| b["type"] == "resource_link").count());
    assert_eq!(n, Some(2), "{links}");
    let structured = r.call("get-structured-content", json!({"location": "Chicago"}));
    assert!(
        structured["structuredContent"]["temperature"].is_number(),
        "{structured}"
    );

    let bad = r.call("get-sum", json!({"a": "one", "b": 2}));
    assert_eq!(bad["isError"], true);
    let text = text_of(&bad);
    assert!(
        text.contains("/a: expected number, received string \"one\""),
        "{text}"
    );
    assert!(
        text.contains("ctx relay"),
        "the proxy, not the server, answered: {text}"
    );
    let good = r.call("get-sum", json!({"a": 2, "b": 3}));
    assert!(text_of(&good).contains('5'), "{good}");
}

/// The Python SDK client in legacy and auto modes sees the server's tools plus
/// the added ones, gets progress, and a validation error as a result.
#[test]
fn python_sdk_legacy_and_auto() {
    let t = test_tools();
    let env = Env::empty();
    let argv = relay_argv(
        &env,
        &[],
        &[t.get("EVERYTHING_SERVER").display().to_string()],
    );
    for mode in ["legacy", "auto"] {
        let out = pyclient(&json!({
            "mode": mode, "command": argv,
            "steps": [
                {"op": "list_tools"},
                {"op": "call_tool", "name": "echo", "arguments": {"message": "hi"}},
                {"op": "call_tool", "name": "trigger-long-running-operation", "arguments": {"duration": 1, "steps": 2}, "progress": true},
                {"op": "call_tool", "name": "get-sum", "arguments": {"a": "one", "b": 1}},
                {"op": "concurrent_calls", "calls": [
                    {"name": "echo", "arguments": {"message": "a"}},
                    {"name": "get-sum", "arguments": {"a": 1, "b": 1}},
                    {"name": "ctx_search", "arguments": {"query": "anything"}}]}
            ]
        }));
        assert_eq!(
            out["protocol_version"],
            "2025-11-25",
            "{mode}: {}",
            cut(&out)
        );
        let names: Vec<&str> = step(&out, 0)["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert!(
            names.contains(&"echo") && names.contains(&"internal_resource_grep"),
            "{names:?}"
        );
        assert_eq!(text_of(step(&out, 1)), "Echo: hi");
        let progress = step(&out, 2)["progress_notifications"]
            .as_array()
            .map(Vec::len);
        assert!(progress.unwrap_or(0) >= 1, "{mode}: {}", cut(&out));
        assert_eq!(step(&out, 3)["isError"], true);
        let concurrent = step(&out, 4).as_array().expect("list");
        assert_eq!(text_of(&concurrent[0]), "Echo: a");
        assert!(text_of(&concurrent[1]).contains('2'));
    }
}

/// Inspector v1 (TS SDK 1.x) and v2 (dual-era) list and call through the relay.
#[test]
fn inspector_clients() {
    let t = test_tools();
    let env = Env::empty();
    let data = env.path().join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    std::fs::write(data.join("big.txt"), big_text()).expect("write");
    let big = data.join("big.txt").display().to_string();
    let argv = relay_argv(
        &env,
        &[],
        &[
            t.get("FS_SERVER").display().to_string(),
            data.display().to_string(),
        ],
    );

    // v1: the target command before its options, the rest after its `--`.
    let out = Command::new("node")
        .arg(t.get("INSPECTOR1"))
        .arg(&argv[0])
        .args([
            "--method",
            "tools/call",
            "--tool-name",
            "read_text_file",
            "--tool-arg",
        ])
        .arg(format!("path={big}"))
        .arg("--")
        .args(&argv[1..])
        .current_dir(t.get("INSPECTOR1_CWD"))
        .output()
        .expect("inspector v1");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let result: Value = serde_json::from_str(&stdout).expect("v1 prints JSON");
    reference_of(&result);

    for era in ["legacy", "auto"] {
        let out = Command::new(t.get("INSPECTOR2"))
            .args(["--cli", "--format", "json", "-q", "--protocol-era", era])
            .args([
                "--method",
                "tools/call",
                "--tool-name",
                "read_text_file",
                "--tool-args-json",
            ])
            .arg(json!({"path": big}).to_string())
            .arg("--")
            .args(&argv)
            .output()
            .expect("inspector v2");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{era}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Value = serde_json::from_str(&stdout).expect("v2 prints JSON");
        reference_of(&result["result"]);
        assert!(text_of(&result["result"]).len() < 5_000);
    }
}
