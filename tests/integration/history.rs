//! `ctx history compact` on transcripts in the three formats.

use predicates::prelude::*;
use serde_json::{Value, json};

use super::util::Env;

fn responses_transcript(n: usize) -> Value {
    let mut items = vec![json!({"role": "user", "content": "summarize the logs"})];
    for i in 0..n {
        items.push(json!({"type": "function_call", "call_id": format!("call_{i}"), "name": "read_log", "arguments": format!("{{\"file\":\"app{i}.log\"}}")}));
        let body: String = (0..2000)
            .map(|l| format!("{i}:{l} INFO request served in {} ms\n", l % 97))
            .collect();
        items.push(
            json!({"type": "function_call_output", "call_id": format!("call_{i}"), "output": body}),
        );
    }
    Value::Array(items)
}

fn compact(env: &Env, input: &Value, args: &[&str]) -> (Value, String) {
    let out = env
        .ctx(&["history", "compact"])
        .args(args)
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        serde_json::from_slice(&out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `--keep` and `--threshold` take effect exactly; summaries resolve.
#[test]
fn keep_threshold_and_summaries() {
    let env = Env::empty();
    let t = responses_transcript(8);
    let (out, err) = compact(&env, &t, &["--keep", "2", "--threshold", "100000"]);
    let items = out.as_array().unwrap();
    let outputs: Vec<_> = items
        .iter()
        .filter(|i| i["type"] == "function_call_output")
        .collect();
    assert_eq!(outputs.len(), 2);
    assert_eq!(outputs[0]["call_id"], "call_6");
    assert!(
        outputs[0]["output"]
            .as_str()
            .unwrap()
            .starts_with("6:0 INFO")
    );
    let summary = items
        .iter()
        .find(|i| {
            i["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("Earlier tool calls"))
        })
        .unwrap();
    let text = summary["content"].as_str().unwrap();
    assert_eq!(text.matches("read_log(file=\"app").count(), 6, "{text}");
    let r = text
        .split("→ ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .trim();
    let len = env.json(&["resolve", "length", r]);
    assert_eq!(len["lines"], 2000);
    assert!(
        err.contains("history: 8 pairs, 2 kept, 6 summarized, 6 boxed"),
        "{err}"
    );
    let (out, err) = compact(&env, &t, &["--keep", "8", "--threshold", "1000"]);
    assert!(err.contains("8 kept, 0 summarized, 8 boxed"), "{err}");
    let first = out
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .unwrap();
    assert!(
        first["output"]
            .as_str()
            .unwrap()
            .contains("stored as internal://")
    );
}

/// text-embed renders kept results as user messages; the output can switch format.
#[test]
fn text_embed_and_format_switch() {
    let env = Env::empty();
    let t = responses_transcript(3);
    let (out, _) = compact(
        &env,
        &t,
        &[
            "--keep",
            "3",
            "--strategy",
            "text-embed",
            "--threshold",
            "100000",
        ],
    );
    let items = out.as_array().unwrap();
    assert!(items.iter().all(|i| i.get("type").is_none()));
    assert_eq!(
        items
            .iter()
            .filter(|i| i["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("Context (tool result):\n")))
            .count(),
        3
    );
    let (out, _) = compact(
        &env,
        &t,
        &[
            "--keep",
            "3",
            "--format",
            "anthropic",
            "--threshold",
            "100000",
        ],
    );
    // Converted to Anthropic, the transcript is a request body: `messages`.
    let uses = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"][0]["type"] == "tool_use")
        .count();
    assert_eq!(uses, 3);
}

/// Orphans are kept as text and reported; bad input is a clear error.
#[test]
fn orphans_and_errors() {
    let env = Env::empty();
    let t = json!({"model": "x", "messages": [
        {"role": "assistant", "content": null, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "lost", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "b", "content": "stray"}
    ]});
    let (out, err) = compact(&env, &t, &[]);
    assert_eq!(out["model"], "x");
    assert_eq!(out["messages"].as_array().unwrap().len(), 2);
    assert!(
        err.contains("tool call without a result kept as text: lost (a)"),
        "{err}"
    );
    assert!(
        err.contains("tool result without a call kept as text: b"),
        "{err}"
    );
    env.ctx(&["history", "compact"])
        .write_stdin("not json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("stdin is not a JSON transcript"));
    env.ctx(&["history", "compact"])
        .write_stdin("42")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "transcript must be a JSON array or object",
        ));
}

/// Base64 of `bytes`.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// About 260 KB of base64: a 1280×800 PNG header and noise that does not compress.
fn screenshot() -> String {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    png.extend(1280u32.to_be_bytes());
    png.extend(800u32.to_be_bytes());
    png.extend([8, 6, 0, 0, 0]);
    png.extend((0..195_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8));
    base64(&png)
}

/// Screenshots are images: the kept result is written back as it came (its
/// text part too), and older ones are stored and named in the summary.
#[test]
fn screenshots_stay_images() {
    let env = Env::empty();
    let data = screenshot();
    let mut messages = vec![json!({"role": "user", "content": "check the login page"})];
    for i in 0..3 {
        messages.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": format!("s{i}"), "name": "screenshot", "input": {}}]}));
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("s{i}"), "content": [
            {"type": "text", "text": "shot"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        ]}]}));
    }
    let input = json!({"model": "claude", "messages": messages});
    let (out, err) = compact(&env, &input, &["--keep", "1", "--threshold", "1000"]);
    assert!(
        err.contains("3 pairs, 1 kept, 2 summarized, 2 boxed"),
        "{err}"
    );
    let messages = out["messages"].as_array().unwrap();
    assert_eq!(
        messages.last().unwrap()["content"][0]["content"],
        input["messages"][6]["content"][0]["content"]
    );
    let summary = messages
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find_map(|b| {
            b["text"]
                .as_str()
                .filter(|t| t.starts_with("Earlier tool calls"))
        })
        .unwrap();
    let line = summary.lines().nth(1).unwrap();
    let (named, reference) = line.split_once(" → internal://").unwrap();
    assert_eq!(
        named,
        "screenshot() → \"shot\", 1 tokens; image (image/png, 1280×800, 195 KB)"
    );
    let start = env
        .ctx(&[
            "resolve",
            "slice",
            &format!("internal://{reference}"),
            "0",
            "40",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&start.stdout).trim_end(),
        &format!("data:image/png;base64,{}", &data[..18])
    );
}

/// Chat converted to Anthropic is a request the Messages API accepts: the
/// system prompt top-level, user and assistant turns alternating, each
/// `tool_use` answered at the start of the next turn; an item Anthropic
/// cannot carry is dropped with a warning.
#[test]
fn chat_to_anthropic_is_a_valid_request() {
    let env = Env::empty();
    let chat = json!([
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "read both files"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}},
            {"id": "b", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"b\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "a", "content": "alpha"},
        {"role": "tool", "tool_call_id": "b", "content": "beta"},
        {"role": "user", "content": "thanks"}
    ]);
    let (out, _) = compact(&env, &chat, &["--keep", "1", "--format", "anthropic"]);
    assert_eq!(out["system"], "You are terse.");
    let roles: Vec<&str> = out["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    let messages = &out["messages"];
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "text", "text": "Reading."})
    );
    assert!(
        messages[2]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("read(path=\"a\") → \"alpha\", 1 tokens")
    );
    assert_eq!(messages[3]["content"][0]["type"], "tool_use");
    assert_eq!(
        messages[4]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "b", "content": "beta"},
            {"type": "text", "text": "thanks"}
        ])
    );

    let responses = json!([
        {"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "c", "name": "get", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"}
    ]);
    let (out, err) = compact(&env, &responses, &["--format", "anthropic"]);
    assert_eq!(out["messages"].as_array().unwrap().len(), 3);
    assert!(
        err.contains("item of type `reasoning` has no equivalent in `anthropic`; dropped"),
        "{err}"
    );
}
