//! Shared setup for the MCP tests: the installed clients, a served segment with
//! boxed values, and a pyclient runner.

use serde_json::{Value, json};

use super::super::util::{Env, boxed, spawn_pyclient, test_tools};

/// The `ctx` binary's path, for server command lines.
pub(super) fn ctx_bin() -> String {
    assert_cmd::cargo::cargo_bin("ctx")
        .to_string_lossy()
        .into_owned()
}

/// `ctx mcp` serving `env` as built (no build at start).
pub(super) fn serve(env: &Env) -> Vec<String> {
    vec![
        ctx_bin(),
        "mcp".into(),
        "-s".into(),
        env.path().to_string_lossy().into_owned(),
        "--no-build".into(),
    ]
}

/// A built copy of `fixtures/demo` with three boxed values.
pub(super) struct Served {
    pub(super) env: Env,
    /// 3000 lines `log line <i>`, session `default`.
    pub(super) log: String,
    pub(super) log_ref: String,
    /// `{"items":[{"name":"item<i>","n":<i>}…]}` (300 items), session `default`.
    pub(super) json: String,
    pub(super) json_ref: String,
    /// A value of session `other`.
    pub(super) other_ref: String,
}

impl Served {
    pub(super) fn new() -> Served {
        test_tools();
        let env = Env::fixture("demo");
        env.ctx(&["build", "-q"]).assert().success();
        let log: String = (0..3000).map(|i| format!("log line {i}\n")).collect();
        let items: Vec<Value> = (0..300)
            .map(|i| json!({"name": format!("item{i}"), "n": i}))
            .collect();
        let json = json!({ "items": items }).to_string();
        let log_ref = box_value(&env, &log, "default");
        let json_ref = box_value(&env, &json, "default");
        let other_ref = box_value(&env, "another session's value\n", "other");
        Served {
            env,
            log,
            log_ref,
            json,
            json_ref,
            other_ref,
        }
    }

    pub(super) fn path(&self) -> String {
        self.env.path().to_string_lossy().into_owned()
    }

    /// The server command line.
    pub(super) fn command(&self) -> Vec<String> {
        vec![
            ctx_bin(),
            "mcp".into(),
            "-s".into(),
            self.path(),
            "--no-build".into(),
            "--session".into(),
            "default".into(),
        ]
    }

    /// Hit IDs of `ctx search --json` (the CLI path of the same search).
    pub(super) fn cli_search(&self, query: &str, k: usize) -> Vec<String> {
        let out = self
            .env
            .json(&["search", "--no-build", "-k", &k.to_string(), query]);
        ids(&out["hits"])
    }
}

pub(super) fn box_value(env: &Env, value: &str, session: &str) -> String {
    let args = [
        "--tool",
        "t",
        "--threshold-chars",
        "10",
        "--session",
        session,
    ];
    boxed(env.path(), value, &args).trim().to_string()
}

pub(super) fn ids(hits: &Value) -> Vec<String> {
    hits.as_array()
        .expect("array of hits")
        .iter()
        .map(|h| h["id"].as_str().expect("id").to_string())
        .collect()
}

/// Runs a pyclient script (dumps only what the server sent) and returns its report.
pub(super) fn pyclient(mode: &str, command: &[String], steps: Value) -> Value {
    let script = json!({"mode": mode, "command": command, "steps": steps, "exclude_unset": true, "timeout": 120});
    let out = spawn_pyclient(&script)
        .wait_with_output()
        .expect("pyclient");
    assert!(
        out.status.success(),
        "pyclient {mode} failed: {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("pyclient prints one JSON document")
}

pub(super) fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call_tool", "name": name, "arguments": arguments})
}

/// Text of content block `i` of a tool result.
pub(super) fn text(result: &Value, i: usize) -> &str {
    result["content"][i]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block {i} in {result}"))
}

pub(super) fn assert_ok(result: &Value) {
    assert_eq!(result["isError"], false, "{result}");
}

pub(super) fn assert_tool_error(result: &Value, says: &str) {
    assert_eq!(result["isError"], true, "{result}");
    let message = text(result, 0);
    assert!(message.contains(says), "expected `{says}` in: {message}");
}

pub(super) const ALL_TOOLS: [&str; 11] = [
    "ctx_search",
    "ctx_get",
    "ctx_evidence",
    "ctx_symbol",
    "ctx_refs",
    "internal_resource_length",
    "internal_resource_read_slice",
    "internal_resource_read_lines",
    "internal_resource_grep",
    "internal_resource_query",
    "internal_resource_read",
];
