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
    let uses = out
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
