//! `ctx mcp` and `ctx tools` end to end, driven by real MCP clients: the Python
//! SDK (`tests/mcp/pyclient.py`, legacy, 2026-07-28 and auto modes) and the
//! Inspector CLI (v2 in both eras, v1 legacy). `scripts/setup-test-tools.sh`
//! installs them; when it fails these tests fail, they are never skipped.

mod boxed_reads;
mod code;
mod harness;
mod inspector;
mod queries;

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::util::{Env, spawn_pyclient, test_tools};
use harness::{
    ALL_TOOLS, Served, assert_ok, assert_tool_error, box_value, call, ctx_bin, ids, pyclient,
    serve, text,
};

/// Every tool answers correctly in each era, and the results carry what the era requires.
#[test]
fn every_tool_in_both_eras() {
    let s = Served::new();
    let query = "stale lock detection";
    let top = s.cli_search(query, 4);
    assert!(top.len() >= 2, "{top:?}");
    for (mode, version) in [
        ("legacy", "2025-11-25"),
        ("2026-07-28", "2026-07-28"),
        ("auto", "2026-07-28"),
    ] {
        let report = pyclient(
            mode,
            &s.command(),
            json!([
                {"op": "list_tools"},
                call("ctx_search", json!({"query": query, "k": 4})),
                call("ctx_get", json!({"ids": &top[..2], "mode": "excerpt", "query": query, "budget": 600})),
                call("ctx_evidence", json!({"query": query, "budget": 800})),
                call("ctx_search", json!({"query": "quantum entanglement of penguins"})),
                call("internal_resource_length", json!({"opaque_reference": s.log_ref})),
                call("internal_resource_read_slice", json!({"opaque_reference": s.log_ref, "start_index": -20, "length": 20})),
                call("internal_resource_read_lines", json!({"opaque_reference": s.log_ref, "start_line": 10, "line_count": 2})),
                call("internal_resource_grep", json!({"opaque_reference": s.log_ref, "pattern": "^log line 29\\d9$", "window": 1})),
                call("internal_resource_query", json!({"opaque_reference": s.json_ref, "jq": ".items | length"})),
                call("internal_resource_read", json!({"opaque_reference": s.json_ref})),
                call("ctx_evidence", json!({"query": query, "budget": 999999})),
                call("internal_resource_length", json!({"opaque_reference": s.json_ref})),
                call("ctx_search", json!({"query": "what is it?"})),
            ]),
        );
        assert_eq!(report["protocol_version"], version, "{mode}");
        if mode != "2026-07-28" {
            // A pinned modern client skips `server/discover`, so it never sees serverInfo.
            assert_eq!(report["server_info"]["name"], "ctx", "{mode}");
        }
        let steps = report["steps"].as_array().expect("steps");
        let names: Vec<&str> = steps[0]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names, ALL_TOOLS, "{mode}");
        for step in steps {
            // 2026-07-28 requires `resultType`; legacy peers must not get it.
            assert_eq!(
                step.get("resultType").is_some(),
                version == "2026-07-28",
                "{mode}: {step}"
            );
        }
        // 2026-07-28 list results also carry cache hints.
        assert_eq!(
            steps[0].get("ttlMs").is_some() && steps[0].get("cacheScope").is_some(),
            version == "2026-07-28",
            "{mode}"
        );
        for step in &steps[1..] {
            assert_ok(step);
        }
        let search = &steps[1]["structuredContent"];
        assert_eq!(search["no_evidence"], false);
        assert_eq!(ids(&search["hits"]), top, "{mode}: MCP and CLI rank alike");

        let got = &steps[2]["structuredContent"];
        assert_eq!(ids(&got["chunks"]), top[..2], "{mode}");
        assert!(got["used"].as_u64().expect("used") <= 600);

        let evidence = &steps[3];
        assert_eq!(evidence["structuredContent"]["no_evidence"], false);
        assert!(text(evidence, 0).starts_with("EVIDENCE (read-only)\n"));
        assert!(!ids(&evidence["structuredContent"]["chunks"]).is_empty());

        // No evidence is an answer, not an error.
        let none = &steps[4];
        assert_eq!(none["structuredContent"]["no_evidence"], true);
        assert_eq!(none["structuredContent"]["hits"], json!([]));
        assert!(text(none, 0).starts_with("No evidence in indexed context"));
        // Words no indexed text holds are named, for the model to weigh.
        assert_eq!(
            none["structuredContent"]["absent"],
            json!(["quantum", "entanglement", "penguins"]),
            "{mode}: {none}"
        );
        assert!(
            text(none, 0).contains(
                "\nNote: no searched text contains \"quantum\" or \"entanglement\" or \"penguins\"."
            ),
            "{mode}: {none}"
        );

        let length = &steps[5]["structuredContent"];
        assert_eq!(length["chars"], s.log.chars().count());
        assert_eq!(length["lines"], 3000);

        assert_eq!(text(&steps[6], 1), &s.log[s.log.len() - 20..]);
        assert_eq!(
            steps[6]["structuredContent"]["range"],
            json!([s.log.len() - 20, s.log.len()])
        );
        assert_eq!(text(&steps[7], 1), "log line 10\nlog line 11\n");

        let grep = &steps[8]["structuredContent"];
        assert_eq!(grep["total_matches"], 10);
        assert_eq!(grep["matches"][0]["line_no"], 2909);
        assert_eq!(grep["matches"][0]["before"], json!(["log line 2908"]));

        assert_eq!(steps[9]["structuredContent"]["outputs"], json!(["300"]));
        assert_eq!(text(&steps[10], 1), s.json);

        // A budget over the cap is clamped, and the model is told.
        let clamped = &steps[11];
        assert_eq!(clamped["structuredContent"]["budget"]["applied"], 16000);
        assert!(
            text(clamped, 0).ends_with(
                "hint: budget 999999 is over the cap of 16000 (max_budget in _ctx/ctx.toml); clamped"
            ),
            "{mode}: {clamped}"
        );

        // A JSON value's length also gives its keys, for the jq filter to come.
        let shape = &steps[12];
        assert_eq!(shape["structuredContent"]["media"], "json");
        assert_eq!(
            shape["structuredContent"]["shape"]["fields"][0],
            json!([".items", "array[300] of object{name,n}"]),
            "{mode}: {shape}"
        );
        assert!(
            text(shape, 0).contains("\nshape: object{items} (1 keys)\n"),
            "{mode}: {shape}"
        );

        // A query nothing can match says why, so the model rewords it.
        let unsearchable = &steps[13];
        assert_eq!(unsearchable["structuredContent"]["no_evidence"], true);
        assert!(
            text(unsearchable, 0).contains("\nNote: every word of the query is a stop word"),
            "{mode}: {unsearchable}"
        );
    }
}

/// Mistakes the model can fix come back as `isError` results that say what to
/// do; protocol mistakes are JSON-RPC errors with the era's code.
#[test]
fn errors_are_results_the_model_can_act_on() {
    let s = Served::new();
    for (mode, not_found) in [("legacy", -32002), ("2026-07-28", -32602)] {
        let report = pyclient(
            mode,
            &s.command(),
            json!([
                call("ctx_get", json!({"ids": ["operations:0000000000"]})),
                call("internal_resource_read", json!({"opaque_reference": "not-a-reference"})),
                call("internal_resource_read", json!({"opaque_reference": "internal://zzzzzzzzzzzzzzzz"})),
                call("internal_resource_length", json!({"opaque_reference": s.other_ref})),
                call("internal_resource_grep", json!({"opaque_reference": s.log_ref, "pattern": "(unclosed"})),
                call("internal_resource_query", json!({"opaque_reference": s.log_ref, "jq": "."})),
                call("ctx_search", json!({})),
                call("ctx_search", json!({"query": "x", "k": "five"})),
                call("ctx_search", json!({"query": "x", "segment": "other"})),
                call("no_such_tool", json!({})),
                {"op": "read_resource", "uri": "internal://zzzzzzzzzzzzzzzz"},
                {"op": "read_resource", "uri": s.other_ref},
                {"op": "read_resource", "uri": "file:///etc/passwd"},
                call("ctx_get", json!({"ids": ["nosuchdoc:0000000000"]})),
                call("ctx_search", json!({"query": "stale lock", "doc": "doc/**"})),
                call("ctx_evidence", json!({"query": "stale lock", "budget": 0})),
            ]),
        );
        let steps = report["steps"].as_array().expect("steps");
        assert_tool_error(&steps[0], "unknown chunk ID `operations:0000000000`");
        assert_tool_error(&steps[0], "IDs of `docs/operations.md` include");
        assert_tool_error(&steps[13], "use ctx_search to find IDs");
        assert_tool_error(
            &steps[14],
            "no indexed document matches the doc glob `doc/**`",
        );
        assert_tool_error(&steps[15], "the budget is 0 tokens, which nothing fits");
        assert_tool_error(&steps[1], "is not a relay reference");
        assert_tool_error(&steps[2], "unknown reference `internal://zzzzzzzzzzzzzzzz`");
        assert_tool_error(&steps[3], "belongs to another session");
        assert_tool_error(&steps[3], "use a reference returned in this session");
        assert!(
            !text(&steps[3], 0).contains("--any-session"),
            "{}",
            steps[3]
        );
        assert_tool_error(&steps[4], "invalid regex `(unclosed`");
        assert_tool_error(&steps[5], "value is not JSON");
        assert_tool_error(&steps[6], "missing field `query`");
        assert_tool_error(&steps[6], r#"Expected {"query": string"#);
        assert_tool_error(&steps[7], "invalid type: string \"five\"");
        assert_tool_error(
            &steps[8],
            "needs the server started with `ctx mcp --root DIR`",
        );
        assert_eq!(steps[9]["error"]["code"], -32602, "{mode}: unknown tool");
        assert_eq!(steps[9]["error"]["data"]["tool"], "no_such_tool");
        for step in &steps[10..13] {
            assert_eq!(step["error"]["code"], not_found, "{mode}: {step}");
        }
        assert_eq!(
            steps[10]["error"]["data"]["uri"],
            "internal://zzzzzzzzzzzzzzzz"
        );
    }
}

/// `kind` keeps ctx_search and ctx_evidence to code or to docs, as `--kind`
/// does on the command line; a kind it does not know is named in the error.
#[test]
fn search_and_evidence_by_kind() {
    test_tools();
    let env = Env::code_and_docs();
    let command = serve(&env);
    let query = "walk builder build";
    let report = pyclient(
        "auto",
        &command,
        json!([
            call("ctx_search", json!({"query": query, "kind": "code"})),
            call("ctx_search", json!({"query": query, "kind": "docs"})),
            call(
                "ctx_evidence",
                json!({"query": query, "kind": "code", "budget": 600})
            ),
            call(
                "ctx_evidence",
                json!({"query": query, "kind": "docs", "budget": 600})
            ),
            call("ctx_search", json!({"query": query, "kind": "binary"})),
        ]),
    );
    let steps = report["steps"].as_array().expect("steps");
    let docs = |step: &Value, list: &str| -> Vec<String> {
        assert_ok(step);
        step["structuredContent"][list]
            .as_array()
            .expect("a list")
            .iter()
            .map(|h| h["doc"].as_str().expect("doc").to_string())
            .collect()
    };
    for (step, list) in [(&steps[0], "hits"), (&steps[2], "chunks")] {
        let d = docs(step, list);
        assert!(
            !d.is_empty() && d.iter().all(|d| !d.ends_with(".md")),
            "{d:?}"
        );
    }
    assert_eq!(docs(&steps[1], "hits"), ["GUIDE.md"]);
    assert_eq!(docs(&steps[3], "chunks"), ["GUIDE.md"]);
    assert_tool_error(
        &steps[4],
        "unknown variant `binary`, expected one of `code`, `docs`, `all`",
    );
}

/// `resources/read` serves the digest and `internal://` references; the
/// capability is advertised.
#[test]
fn resources_digest_and_references() {
    let s = Served::new();
    let big: String = (0..15_000).map(|i| format!("row {i:05}\n")).collect();
    let big_ref = box_value(&s.env, &big, "default");
    let pack: Value = serde_json::from_slice(
        &std::fs::read(s.env.path().join("_ctx/context_pack.json")).expect("read pack"),
    )
    .expect("pack JSON");
    for mode in ["legacy", "auto"] {
        let report = pyclient(
            mode,
            &s.command(),
            json!([
                {"op": "list_resources"},
                {"op": "read_resource", "uri": "ctx://digest"},
                {"op": "read_resource", "uri": s.log_ref},
                {"op": "read_resource", "uri": s.json_ref},
                {"op": "list_resource_templates"},
                {"op": "read_resource", "uri": big_ref},
                call("internal_resource_read", json!({"opaque_reference": big_ref})),
            ]),
        );
        assert!(
            report["server_capabilities"]["resources"].is_object(),
            "{report}"
        );
        assert!(
            report["server_capabilities"]["tools"].is_object(),
            "{report}"
        );
        let steps = report["steps"].as_array().expect("steps");
        let uris: Vec<&Value> = steps[0]["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .map(|r| &r["uri"])
            .collect();
        assert_eq!(uris, [&json!("ctx://digest")]);
        let digest = &steps[1]["contents"][0];
        assert_eq!(digest["text"], pack["digest"]);
        let log = &steps[2]["contents"][0];
        assert_eq!(log["uri"], s.log_ref);
        assert_eq!(log["mimeType"], "text/plain");
        assert_eq!(log["text"], s.log);
        assert_eq!(steps[3]["contents"][0]["mimeType"], "application/json");
        assert_eq!(steps[3]["contents"][0]["text"], s.json);
        assert_eq!(
            steps[4]["resourceTemplates"][0]["uriTemplate"],
            "internal://{id}"
        );
        // resources/read gives programs the whole value; the read tool cuts it
        // for a model's context and says how to go on.
        assert_eq!(steps[5]["contents"][0]["text"], big);
        let read = &steps[6];
        assert_ok(read);
        assert_eq!(text(read, 1), &big[..100_000]);
        assert_eq!(read["structuredContent"]["range"], json!([0, 100_000]));
        assert_eq!(read["structuredContent"]["total"], big.len());
        assert!(
            text(read, 0).contains("\"start_index\":100000"),
            "{}",
            text(read, 0)
        );
    }
}

/// Twenty overlapping calls over one connection are all answered, each with its own answer.
#[test]
fn twenty_overlapping_calls() {
    let s = Served::new();
    let queries = [
        "stale lock",
        "backups",
        "log rotation",
        "rollback a deploy",
        "health check",
        "configuration",
        "changelog",
        "architecture modules",
        "budgets",
        "when to ask",
    ];
    let expected: Vec<Vec<String>> = queries.iter().map(|q| s.cli_search(q, 3)).collect();
    let mut calls = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        calls.push(json!({"name": "ctx_search", "arguments": {"query": q, "k": 3}}));
        calls.push(json!({"name": "internal_resource_read_lines",
            "arguments": {"opaque_reference": s.log_ref, "start_line": i * 100, "line_count": 1}}));
    }
    let report = pyclient(
        "auto",
        &s.command(),
        json!([{"op": "concurrent_calls", "calls": calls}]),
    );
    let results = report["steps"][0].as_array().expect("results");
    assert_eq!(results.len(), 20);
    for (i, pair) in results.chunks(2).enumerate() {
        assert_ok(&pair[0]);
        assert_eq!(
            ids(&pair[0]["structuredContent"]["hits"]),
            expected[i],
            "{}",
            queries[i]
        );
        assert_ok(&pair[1]);
        assert_eq!(text(&pair[1], 1), format!("log line {}\n", i * 100));
    }
}

/// A rebuild between two calls shows at the second call, without a restart.
#[test]
fn rebuild_is_visible_without_restart() {
    let s = Served::new();
    let query = "zebra unicorn migration";
    let mut command = s.command();
    command.push("-vv".into());
    let script = json!({
    "mode": "auto", "exclude_unset": true, "command": command,
    "steps": [
        call("ctx_search", json!({"query": query})),
        {"op": "sleep", "seconds": 12},
        call("ctx_search", json!({"query": query})),
    ]});
    let mut child = spawn_pyclient(&script);
    // The server logs each call on stderr (-vv): wait for the first one.
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let first_call = loop {
        let line = lines
            .next()
            .expect("server stderr ended before the first call")
            .expect("read stderr");
        if line.starts_with("ctx mcp: ctx_search") {
            break Instant::now();
        }
    };
    s.env.write(
        "docs/zebra.md",
        "# Zebra unicorn migration\n\nThe zebra unicorn migration moves every stripe to the new herd.\n",
    );
    s.env.ctx(&["build", "-q"]).assert().success();
    assert!(
        first_call.elapsed() < Duration::from_secs(10),
        "the rebuild took longer than the client's pause; the test cannot tell old from new"
    );
    std::thread::spawn(move || lines.for_each(drop));
    let out = child.wait_with_output().expect("pyclient");
    assert!(out.status.success());
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let steps = &report["steps"];
    assert_eq!(
        steps[0]["structuredContent"]["no_evidence"], true,
        "{report}"
    );
    let after = &steps[2]["structuredContent"];
    assert_eq!(after["no_evidence"], false, "{report}");
    assert_eq!(after["hits"][0]["doc"], "docs/zebra.md");
}

/// `ctx tools` prints exactly what `tools/list` serves, in three shapes, and the
/// whole `tools/list` answer (eleven tools) stays under 1,700 estimated tokens:
/// every agent pays it on every turn (ten tools fitted in 1,600; `ctx_refs`
/// and its `file` brought it near the limit, and other descriptions were
/// cut to make room).
#[test]
fn ctx_tools_matches_the_server() {
    let s = Served::new();
    let report = pyclient("auto", &s.command(), json!([{"op": "list_tools"}]));
    let listed = &report["steps"][0];
    let wire = serde_json::to_string(listed).expect("serialize");
    let tokens = ctx::tokens::estimate(&wire);
    assert!(tokens < 1700, "tools/list is ~{tokens} tokens: {wire}");
    let served = listed["tools"].as_array().expect("tools");

    let mcp = s.env.json(&["tools"]);
    assert_eq!(mcp.as_array().expect("array"), served);
    let openai = s.env.json(&["tools", "--format", "openai"]);
    let anthropic = s.env.json(&["tools", "--format", "anthropic"]);
    for (i, tool) in served.iter().enumerate() {
        let function = &openai[i];
        assert_eq!(function["type"], "function");
        assert_eq!(function["function"]["name"], tool["name"]);
        assert_eq!(function["function"]["description"], tool["description"]);
        assert_eq!(function["function"]["parameters"], tool["inputSchema"]);
        let a = &anthropic[i];
        assert_eq!(a["name"], tool["name"]);
        assert_eq!(a["description"], tool["description"]);
        assert_eq!(a["input_schema"], tool["inputSchema"]);
    }
    let one = s
        .env
        .json(&["tools", "--schema", "ctx_get", "--format", "openai"]);
    assert_eq!(one, openai[1]);

    let out = s.env.ctx(&["tools", "--names"]).output().expect("run");
    let names: Vec<String> = String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default().to_string())
        .collect();
    assert_eq!(names, ALL_TOOLS);

    s.env
        .ctx(&["tools", "--schema", "ctx_nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown tool `ctx_nope`"));

    // A segment without a relay store lists only the five ctx tools.
    let bare = Env::fixture("demo");
    let names: Vec<Value> = bare
        .json(&["tools"])
        .as_array()
        .expect("array")
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(names, ALL_TOOLS[..5]);
}

/// Under `--root`, calls may name sibling segments, but nothing outside the root.
#[test]
fn segments_under_root_only() {
    let root = tempfile::tempdir().expect("tempdir");
    for name in ["alpha", "beta"] {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join("notes.md"),
            format!("# {name} notes\n\nThe {name} segment talks about {name} pipelines.\n"),
        )
        .expect("write");
        super::util::ctx()
            .args(["-s", &dir.to_string_lossy(), "build", "-q"])
            .assert()
            .success();
    }
    let outside = tempfile::tempdir().expect("tempdir");
    std::os::unix::fs::symlink(outside.path(), root.path().join("escape")).expect("symlink");
    let command = vec![
        ctx_bin(),
        "mcp".into(),
        "-s".into(),
        root.path().join("alpha").to_string_lossy().into_owned(),
        "--root".into(),
        root.path().to_string_lossy().into_owned(),
        "--no-build".into(),
    ];
    let report = pyclient(
        "auto",
        &command,
        json!([
            {"op": "list_tools"},
            call("ctx_search", json!({"query": "beta pipelines", "segment": "beta"})),
            call("ctx_search", json!({"query": "alpha pipelines"})),
            call("ctx_search", json!({"query": "x", "segment": "../beta"})),
            call("ctx_search", json!({"query": "x", "segment": "/etc"})),
            call("ctx_search", json!({"query": "x", "segment": "escape"})),
        ]),
    );
    let steps = report["steps"].as_array().expect("steps");
    let wire = serde_json::to_string(&steps[0]).expect("serialize");
    let tokens = ctx::tokens::estimate(&wire);
    assert!(
        tokens < 1900,
        "tools/list with `segment` is ~{tokens} tokens"
    );
    for tool in steps[0]["tools"].as_array().expect("tools") {
        assert_eq!(
            tool["inputSchema"]["properties"]["segment"]["type"],
            "string"
        );
    }
    assert_eq!(steps[1]["structuredContent"]["hits"][0]["doc"], "notes.md");
    assert!(
        text(&steps[1], 0).contains("beta notes"),
        "{}",
        text(&steps[1], 0)
    );
    assert!(text(&steps[2], 0).contains("alpha notes"));
    assert_tool_error(&steps[3], "invalid segment `../beta`");
    assert_tool_error(&steps[4], "invalid segment `/etc`");
    assert_tool_error(&steps[5], "resolves outside the server's root");
}

/// Without `--no-build`, the server builds a missing pack beside the handshake.
#[test]
fn builds_a_missing_pack_at_start() {
    test_tools();
    let env = Env::fixture("demo");
    let command = vec![
        ctx_bin(),
        "mcp".into(),
        "-s".into(),
        env.path().to_string_lossy().into_owned(),
    ];
    let mut steps = Vec::new();
    for _ in 0..10 {
        steps.push(json!({"op": "sleep", "seconds": 1}));
        steps.push(call("ctx_search", json!({"query": "stale lock"})));
    }
    let report = pyclient("auto", &command, Value::Array(steps));
    let results: Vec<&Value> = report["steps"]
        .as_array()
        .expect("steps")
        .iter()
        .filter(|s| s.get("content").is_some())
        .collect();
    for r in &results {
        if r["isError"] == true {
            assert_tool_error(r, "has no context pack yet");
        }
    }
    let last = results.last().expect("a call");
    assert_ok(last);
    assert_eq!(last["structuredContent"]["no_evidence"], false);
}
