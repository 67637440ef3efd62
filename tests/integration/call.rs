//! `ctx call` on the corpus of messy model outputs, and running ctx's own tools.

use predicates::prelude::*;
use serde_json::Value;

use super::util::{Env, repo};

/// Every messy output gets its expected outcome; the shares are printed.
#[test]
fn messy_corpus_outcomes() {
    let env = Env::fixture("demo");
    let corpus = std::fs::read_to_string(repo().join("fixtures/toolcalls/messy.jsonl")).unwrap();
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let mut total = 0;
    for line in corpus.lines() {
        let case: Value = serde_json::from_str(line).unwrap();
        let out = env
            .ctx(&["call", "--print", "--json"])
            .write_stdin(case["text"].as_str().unwrap())
            .output()
            .unwrap();
        let got: Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{}: {e}", case["id"]));
        let expect = case["expect"].as_str().unwrap();
        assert_eq!(got["outcome"], expect, "case {}: {got}", case["id"]);
        let ok_exit = if matches!(expect, "parsed" | "repaired") {
            0
        } else {
            2
        };
        assert_eq!(out.status.code(), Some(ok_exit), "case {}", case["id"]);
        if let Some(args) = case.get("arguments") {
            assert_eq!(&got["arguments"], args, "case {}", case["id"]);
        }
        if matches!(expect, "parsed" | "repaired") {
            assert_eq!(got["name"], case["tool"], "case {}", case["id"]);
        } else {
            assert!(
                got["repair_prompt"]
                    .as_str()
                    .unwrap()
                    .contains("Output only"),
                "case {}",
                case["id"]
            );
        }
        *counts.entry(expect.to_string()).or_default() += 1;
        total += 1;
    }
    assert!(total >= 40);
    eprintln!("ctx call on {total} messy outputs: {counts:?}");
}

/// A repaired call to ctx's own tool runs; an invalid one gets the repair prompt.
#[test]
fn runs_own_tools_and_prompts_repairs() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    env.ctx(&["call"])
        .write_stdin("Let me search.\n```json\n{'name': 'ctx_search', 'arguments': {'query': 'stale locks', 'k': 2,}}\n```")
        .assert()
        .success()
        .stdout(predicate::str::contains("operations:"));
    env.ctx(&["call"])
        .write_stdin(r#"{"name": "ctx_search", "arguments": {"k": "three"}}"#)
        .assert()
        .code(2)
        .stdout(predicate::str::starts_with("Your call to `ctx_search` was not valid: /k: \"three\" is not of type \"integer\"; (root): \"query\" is a required property.\nOutput only JSON matching this schema, no prose"));
    let raw = env.path().join("raw.txt");
    std::fs::write(
        &raw,
        r#"{"tool": "ctx_get", "args": {"ids": ["nope:0000000000"]}}"#,
    )
    .unwrap();
    env.ctx(&["call", "--text-file", raw.to_str().unwrap()])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "unknown chunk ID `nope:0000000000`",
        ));
}
