//! `ctx relay -- <server>`: the MCP proxy over real pipes. This file drives the
//! stub server (`fixtures/mcp/stub_server.py`) for exact-wire and failure cases;
//! `proxy/real.rs` drives the real npm/PyPI servers and clients.

pub(crate) mod driver;
mod limits;
mod real;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use self::driver::{Relay, WAIT, reference_of, stub, text_of};
use super::util::{Env, ctx};

fn stub_log(env: &Env) -> Vec<Value> {
    let text = std::fs::read_to_string(env.path().join("stub.log")).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn start(env: &Env, opts: &[&str], modern: bool) -> Relay {
    let log = env.path().join("stub.log").display().to_string();
    let server = stub(if modern { &["--modern"] } else { &[] });
    Relay::start(env, opts, &server, &[("STUB_LOG", &log)])
}

/// Unknown fields, string ids, id 0 and exact bytes pass through; tools/list
/// drops outputSchema, keeps unknown tool fields, and appends the added tools.
#[test]
fn forwards_verbatim_and_rewrites_only_what_it_must() {
    let env = Env::empty();
    let mut r = start(&env, &[], false);
    let init = r.initialize();
    assert_eq!(init["x-init"], "kept", "{init}");
    assert_eq!(init["capabilities"]["resources"], json!({}));
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);

    // A request with odd spacing and unknown fields reaches the server byte for byte.
    let odd = br#"{"jsonrpc":"2.0",  "id":"s-1" ,"method":"ping","params":{"x-q":[1,2.50]},"x-top":{"k":null}}"#;
    r.send_raw(odd);
    let pong = r.response(&json!("s-1"), WAIT);
    assert_eq!(pong["result"], json!({}));
    let log = std::fs::read(env.path().join("stub.log")).expect("stub log");
    assert!(
        log.windows(odd.len()).any(|w| w == odd),
        "the server did not get the exact bytes"
    );

    let list = r.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    let odd_tool = tools.iter().find(|t| t["name"] == "odd").expect("odd");
    assert_eq!(odd_tool["execution"], json!({"taskSupport": "forbidden"}));
    assert_eq!(odd_tool["x-vendor"], json!({"keep": true}));
    assert!(tools.iter().all(|t| t.get("outputSchema").is_none()));
    // The stub has its own internal_resource_read: ours is prefixed, the others not.
    for n in [
        "internal_resource_read",
        "ctx_internal_resource_read",
        "internal_resource_grep",
        "internal_resource_query",
        "ctx_search",
        "ctx_get",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    // The added tools are `ctx mcp`'s definitions; here `scope` defaults to all.
    let search = tools
        .iter()
        .find(|t| t["name"] == "ctx_search")
        .expect("ctx_search");
    assert_eq!(
        search["description"],
        ctx::surface::mcp::tools::ToolName::Search.description()
    );
    let scope = &search["inputSchema"]["properties"]["scope"]["description"];
    assert!(
        scope
            .as_str()
            .is_some_and(|d| d.starts_with("all (default)")),
        "{scope}"
    );
    assert!(!names.contains(&"ctx_evidence"), "{names:?}");
    let own = r.call("internal_resource_read", json!({"opaque_reference": "x"}));
    assert_eq!(text_of(&own), "child's own internal_resource_read: x");

    // A result with unknown fields and an unknown block type is untouched.
    let id = json!(0);
    r.send(&json!({"jsonrpc": "2.0", "id": 0, "method": "tools/call", "params": {"name": "odd", "arguments": {}}}));
    let res = r.response(&id, WAIT);
    assert_eq!(res["result"]["x-result"], json!({"nested": true}));
    assert_eq!(
        res["result"]["content"][1],
        json!({"type": "future_block", "payload": [1, 2]})
    );
    assert_eq!(res["result"]["content"][0]["x-block"], 1);

    // Notifications with unknown fields, and server-to-client requests, pass.
    let notified = r.call("notify", json!({}));
    assert_eq!(text_of(&notified), "notified");
    let note = r
        .others
        .iter()
        .find(|m| m["method"] == "notifications/message")
        .expect("notification");
    assert_eq!(note["x-top"], "kept");
    assert_eq!(note["params"]["x-extra"], json!([1]));
    r.send(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}));
    let ask = r.recv(WAIT);
    assert_eq!(ask["method"], "roots/list", "{ask}");
    let ask_id = ask["id"].clone();
    r.send(&json!({"jsonrpc": "2.0", "id": ask_id, "result": {"roots": [{"uri": "file:///r"}]}}));
    let answer = r.response(&json!(77), WAIT);
    assert!(text_of(&answer["result"]).contains("file:///r"), "{answer}");

    let (status, stderr) = r.finish(Duration::from_secs(20));
    assert!(status.success(), "{status:?}\n{stderr}");
    // The child's stderr is the proxy's stderr.
    assert!(stderr.contains("stub server: started"), "{stderr}");
}

/// A slow call does not hold up a fast one; each answer keeps its id.
#[test]
fn out_of_order_responses() {
    let env = Env::empty();
    let mut r = start(&env, &[], false);
    r.initialize();
    r.send(&json!({"jsonrpc": "2.0", "id": "slow", "method": "tools/call", "params": {"name": "slow", "arguments": {"seconds": 1.5, "message": "late"}}}));
    r.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "early"}}}));
    let first = r.recv(WAIT);
    assert_eq!(first["id"], 5, "{first}");
    assert_eq!(text_of(&first["result"]), "Echo: early");
    let second = r.recv(WAIT);
    assert_eq!(second["id"], "slow");
    assert_eq!(text_of(&second["result"]), "slow: late");
}

/// A 20 MB result is boxed without hanging; with a threshold above it, the
/// 20 MB line passes through intact. A 20 MB argument line reaches the server.
#[test]
fn twenty_megabyte_lines() {
    let env = Env::empty();
    let mut r = start(&env, &[], false);
    r.initialize();
    let started = Instant::now();
    let boxed = r.call("big", json!({"bytes": 20_000_000}));
    let text = text_of(&boxed);
    assert!(text.len() < 4_000, "boxed text is {} bytes", text.len());
    let reference = reference_of(&boxed);
    let len = r.call(
        "internal_resource_length",
        json!({"opaque_reference": reference}),
    );
    assert!(text_of(&len).contains("20000000 bytes"), "{len}");
    // A 20 MB argument: the echo comes back boxed too.
    let message = "m".repeat(20_000_000);
    let echoed = r.call("echo", json!({"message": message}));
    assert!(text_of(&echoed).contains("internal://"));
    eprintln!("20 MB twice through the relay: {:?}", started.elapsed());
    drop(r);

    let mut r = start(&env, &["--threshold", "100000000"], false);
    r.initialize();
    let whole = r.call("big", json!({"bytes": 20_000_000}));
    assert_eq!(text_of(&whole).len(), 20_000_000);
}

/// Boxed text unboxes byte for byte into another call; an unknown reference is
/// an isError result and the call never reaches the server.
#[test]
fn unboxing_and_unknown_references() {
    let env = Env::empty();
    let mut r = start(&env, &["--threshold", "1000"], false);
    r.initialize();
    let boxed = r.call("big", json!({"bytes": 50_000, "line": 37}));
    let reference = reference_of(&boxed);
    assert_eq!(boxed["_meta"]["ctx/boxed"][0]["ref"], reference.as_str());
    let echoed = r.call("echo", json!({"message": reference}));
    assert!(
        text_of(&echoed).contains("internal://"),
        "the echo is large too"
    );
    let unit = format!("{}\n", "x".repeat(36));
    let expected: String = unit.repeat(50_000 / unit.len() + 1)[..50_000].to_string();
    let sent = stub_log(&env)
        .into_iter()
        .find(|m| m["params"]["name"] == "echo")
        .expect("echo reached the server");
    assert_eq!(
        sent["params"]["arguments"]["message"].as_str(),
        Some(expected.as_str())
    );

    let bad = r.call("echo", json!({"message": "internal://abcdefghabcdefgh"}));
    assert_eq!(bad["isError"], true);
    assert!(
        text_of(&bad).contains("unknown reference `internal://abcdefghabcdefgh`"),
        "{bad}"
    );
    let calls = stub_log(&env)
        .into_iter()
        .filter(|m| m["params"]["name"] == "echo")
        .count();
    assert_eq!(calls, 1, "the bad call was forwarded");

    // A boxed JSON result's length names its keys, for a jq filter.
    let boxed = r.call("rows", json!({"count": 200}));
    let len = r.call(
        "internal_resource_length",
        json!({"opaque_reference": reference_of(&boxed)}),
    );
    let len = text_of(&len);
    assert!(
        len.contains("(json)\nshape: object{rows,next} (2 keys)\n"),
        "{len}"
    );
    assert!(
        len.contains("  .rows: array[200] of object{id,title}\n"),
        "{len}"
    );
}

/// Validation errors say where, what was expected, what came, and how a valid
/// call looks; --no-validate lets the server judge.
#[test]
fn argument_checking() {
    let env = Env::empty();
    let mut r = start(&env, &[], false);
    r.initialize();
    r.request("tools/list", json!({}));
    let bad = r.call(
        "strict",
        json!({"count": "3", "tags": ["a", 5], "colour": "red"}),
    );
    assert_eq!(bad["isError"], true);
    let text = text_of(&bad);
    for want in [
        "Invalid arguments for tool `strict`",
        "/count: expected integer, received string \"3\"",
        "/tags/1: expected string, received integer 5",
        "missing required property `name` (string)",
        "unexpected property `colour`",
        "Valid arguments look like: {",
    ] {
        assert!(text.contains(want), "{want:?} not in:\n{text}");
    }
    let example = text
        .lines()
        .find_map(|l| l.strip_prefix("Valid arguments look like: "))
        .expect("example");
    let fixed = r.call(
        "strict",
        serde_json::from_str(example).expect("example is JSON"),
    );
    assert_eq!(fixed.get("isError"), None, "{fixed}");
    assert!(text_of(&fixed).starts_with("strict ok"));

    // No arguments at all is checked as `{}`.
    let none = r.request("tools/call", json!({"name": "strict"}));
    assert!(
        text_of(&none["result"]).contains("missing required property `name`"),
        "{none}"
    );

    // Arguments sent as a string: unparseable is refused, a JSON object is repaired.
    let r2 = r.request(
        "tools/call",
        json!({"name": "strict", "arguments": "{name: oops"}),
    );
    assert_eq!(r2["result"]["isError"], true);
    assert!(
        text_of(&r2["result"]).contains("does not parse as a JSON object"),
        "{r2}"
    );
    let r3 = r.request(
        "tools/call",
        json!({"name": "strict", "arguments": "{\"name\":\"a\",\"count\":2}"}),
    );
    assert!(text_of(&r3["result"]).starts_with("strict ok"), "{r3}");
    let forwarded = stub_log(&env)
        .into_iter()
        .filter(|m| m["params"]["name"] == "strict")
        .count();
    assert_eq!(forwarded, 2);
    drop(r);

    let mut r = start(&env, &["--no-validate"], false);
    r.initialize();
    r.request("tools/list", json!({}));
    let passed = r.call("strict", json!({"count": "3"}));
    assert!(text_of(&passed).starts_with("strict ok"), "{passed}");
}

/// A call the server never answers gets an isError result after --call-timeout;
/// the server gets notifications/cancelled, and the session goes on.
#[test]
fn call_timeout() {
    let env = Env::empty();
    let mut r = start(&env, &["--call-timeout", "1"], false);
    r.initialize();
    let started = Instant::now();
    let res = r.call("hang", json!({}));
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(res["isError"], true);
    assert!(text_of(&res).contains("did not answer within 1 s"), "{res}");
    assert!(text_of(&res).contains("--call-timeout"));
    let echo = r.call("echo", json!({"message": "still here"}));
    assert_eq!(text_of(&echo), "Echo: still here");
    let cancelled = stub_log(&env)
        .into_iter()
        .find(|m| m["method"] == "notifications/cancelled")
        .expect("the server was told");
    assert_eq!(cancelled["params"]["requestId"], 1);
}

/// A server that exits mid-call: the open call gets an answer, and the proxy
/// exits with the server's code.
#[test]
fn child_exits_mid_call() {
    let env = Env::empty();
    let mut r = start(&env, &[], false);
    r.initialize();
    r.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "hang", "arguments": {}}}));
    r.send(&json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "die", "arguments": {"code": 7}}}));
    let mut answers = vec![r.recv(WAIT), r.recv(WAIT)];
    answers.sort_by_key(|a| a["id"].as_i64());
    for a in &answers {
        assert_eq!(a["result"]["isError"], true, "{a}");
        assert!(
            text_of(&a["result"]).contains("exited with code 7 before answering"),
            "{a}"
        );
    }
    let (status, _) = r.wait(Duration::from_secs(20));
    assert_eq!(status.code(), Some(7));
}

/// SIGTERM to the proxy reaches the server; the proxy exits as the server did.
#[test]
fn signals_reach_the_child() {
    let env = Env::empty();
    let mut r = start(&env, &[], false);
    r.initialize();
    let pid = r.pid().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let (status, stderr) = r.wait(Duration::from_secs(20));
    // Python dies of SIGTERM: 128 + 15.
    assert_eq!(status.code(), Some(143), "{stderr}");

    let mut r = start(&env, &[], false);
    r.initialize();
    let pid = r.pid().to_string();
    let sent = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    assert!(sent.success());
    let (status, stderr) = r.wait(Duration::from_secs(20));
    // Python re-raises SIGINT after its KeyboardInterrupt: 128 + 2.
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("KeyboardInterrupt"), "{stderr}");
}

/// Structured content repeating the text is dropped with it; a large blob is
/// boxed and read back identical; a small image passes untouched.
#[test]
fn structured_and_binary_content() {
    let env = Env::empty();
    let mut r = start(
        &env,
        &["--threshold", "2000", "--binary-threshold", "100000"],
        false,
    );
    r.initialize();
    let s = r.call("structured", json!({"bytes": 100_000}));
    assert!(s.get("structuredContent").is_none(), "{}", driver::cut(&s));
    assert!(
        text_of(&s).contains("structuredContent repeated this text"),
        "{}",
        driver::cut(&s)
    );
    let small = r.call("image", json!({"bytes": 5_000}));
    assert_eq!(small["content"][1]["type"], "image");
    assert_eq!(
        small["content"][1]["data"].as_str().map(str::len),
        Some(5_000)
    );

    let blob = r.call("blob", json!({"bytes": 800_000}));
    let reference = reference_of(&blob);
    let link = blob["content"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["type"] == "resource_link"))
        .expect("link");
    assert_eq!(link["mimeType"], "application/octet-stream");
    let read = r.request("resources/read", json!({"uri": reference}));
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], "application/octet-stream");
    assert!(
        read["result"].get("resultType").is_none(),
        "legacy request, no resultType"
    );

    // A large error result is boxed and stays an error.
    let error = r.call("big", json!({"bytes": 50_000, "error": true}));
    assert_eq!(error["isError"], true);
    reference_of(&error);
    drop(r);

    // The blob read back is exactly what the server sent.
    let mut bare = start(&env, &["--binary-threshold", "10000000"], false);
    bare.initialize();
    let original = bare.call("blob", json!({"bytes": 800_000}));
    let sent = original["content"][0]["resource"]["blob"]
        .as_str()
        .expect("blob");
    assert_eq!(sent.len(), 800_000);
    assert!(
        content["blob"].as_str() == Some(sent),
        "the boxed blob differs"
    );
}

/// Local results follow the request's era; references survive a restart with
/// the same --session and are refused from another session.
#[test]
fn eras_and_sessions() {
    let env = Env::empty();
    let mut r = start(&env, &["--session", "s1", "--threshold", "500"], true);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"});
    let discover = r.request("server/discover", json!({"_meta": meta}));
    assert_eq!(discover["result"]["capabilities"]["resources"], json!({}));
    assert_eq!(discover["result"]["resultType"], "complete");
    assert_eq!(
        discover["result"]["supportedVersions"],
        json!(["2026-07-28"])
    );
    let boxed = r.call("big", json!({"bytes": 20_000}));
    let reference = reference_of(&boxed);
    let modern = r.request("tools/call", json!({"name": "internal_resource_length", "arguments": {"opaque_reference": reference}, "_meta": meta}));
    assert_eq!(modern["result"]["resultType"], "complete");
    let legacy = r.call(
        "internal_resource_length",
        json!({"opaque_reference": reference}),
    );
    assert!(legacy.get("resultType").is_none());
    let read = r.request("resources/read", json!({"uri": reference, "_meta": meta}));
    assert_eq!(read["result"]["resultType"], "complete");
    assert_eq!(read["result"]["cacheScope"], "private");
    assert!(read["result"]["ttlMs"].is_number());
    let missing = r.request(
        "resources/read",
        json!({"uri": "internal://zzzzzzzzzzzzzzzz", "_meta": meta}),
    );
    assert_eq!(missing["error"]["code"], -32602);
    assert_eq!(
        missing["error"]["data"]["uri"],
        "internal://zzzzzzzzzzzzzzzz"
    );
    drop(r);

    let mut r = start(&env, &["--session", "s1"], true);
    let again = r.request("resources/read", json!({"uri": reference}));
    assert_eq!(
        again["result"]["contents"][0]["text"]
            .as_str()
            .map(str::len),
        Some(20_000)
    );
    drop(r);
    // $CTX_SESSION names the session as --session does, as for every command.
    let log = env.path().join("stub.log").display().to_string();
    let server = stub(&["--modern"]);
    let vars = [("STUB_LOG", log.as_str()), ("CTX_SESSION", "s1")];
    let mut r = Relay::start(&env, &[], &server, &vars);
    let again = r.call(
        "internal_resource_length",
        json!({"opaque_reference": reference}),
    );
    assert_eq!(again["isError"], false, "{again}");
    assert!(text_of(&again).contains(": 20000 chars"), "{again}");
    drop(r);
    let mut r = start(&env, &["--session", "s2"], true);
    let other = r.call(
        "internal_resource_length",
        json!({"opaque_reference": reference}),
    );
    assert_eq!(other["isError"], true);
    assert!(
        text_of(&other).contains("belongs to another session"),
        "{other}"
    );
}

/// --record writes each call and result as the client saw them.
#[test]
fn record_file() {
    let env = Env::empty();
    let record = env.path().join("calls.jsonl");
    let path = record.display().to_string();
    let mut r = start(&env, &["--record", &path, "--threshold", "500"], false);
    r.initialize();
    r.call("echo", json!({"message": "hi"}));
    let boxed = r.call("big", json!({"bytes": 10_000}));
    drop(r);
    let lines: Vec<Value> = std::fs::read_to_string(&record)
        .expect("record")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0]["type"], "call");
    assert_eq!(lines[0]["tool"], "echo");
    assert_eq!(lines[0]["arguments"], json!({"message": "hi"}));
    assert_eq!(lines[1]["type"], "result");
    assert_eq!(lines[1]["boxed"], false);
    assert_eq!(lines[1]["is_error"], false);
    assert_eq!(lines[3]["boxed"], true);
    assert_eq!(lines[3]["reference"], reference_of(&boxed).as_str());
}

/// `ctx relay` needs a command or a subcommand; `ctx relay gc` still works.
#[test]
fn relay_command_line() {
    let env = Env::empty();
    let out = env.ctx(&["relay"]).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`ctx relay` needs a server command after `--`"),
        "{stderr}"
    );
    env.ctx(&["relay", "gc", "--older-than", "7d"])
        .assert()
        .success();
    let out = ctx()
        .args(["relay", "--", "/nonexistent/server"])
        .current_dir(env.path())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("cannot start the MCP server `/nonexistent/server`")
    );
}

/// The proxy's `ctx_search` re-ranks project docs like `ctx search` does, and a
/// model that cannot be opened stops the proxy before the server starts.
#[test]
fn the_added_search_re_ranks_with_a_configured_model() {
    let env = super::rerank::paraphrase_corpus();
    env.ctx(&["build"]).assert().success();
    let model = super::rerank::model().to_str().expect("utf-8 path");
    let first_title = |opts: &[&str]| {
        let mut r = start(&env, opts, false);
        r.initialize();
        let found = r.call(
            "ctx_search",
            json!({"query": "how do I stop the server", "k": 1, "scope": "docs"}),
        );
        text_of(&found)
    };
    let lexical = first_title(&[]);
    assert!(lexical.contains("Guide > Indexing"), "{lexical}");
    let reranked = first_title(&["--rerank-model", model]);
    assert!(reranked.contains("Guide > Shutting down"), "{reranked}");

    std::fs::remove_file(env.path().join("stub.log")).expect("the stub ran");
    let missing = env.path().join("no-model");
    std::fs::create_dir_all(&missing).expect("mkdir");
    let mut r = start(
        &env,
        &["--rerank-model", missing.to_str().expect("utf-8")],
        false,
    );
    let (status, stderr) = r.wait(WAIT);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no config.json"), "{stderr}");
    assert!(
        !env.path().join("stub.log").exists(),
        "the server was started"
    );
}
