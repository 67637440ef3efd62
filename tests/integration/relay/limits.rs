//! Hostile values and queries: JSON nested far deeper than any reader's
//! stack, jq programs that never end or take all memory, and a byte order
//! mark before JSON. Each is answered with a message, and the process lives.

use std::time::{Duration, Instant};

use super::super::util::{Env, boxed, refused};
use super::resolve;

fn nested_arrays(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

fn nested_objects(depth: usize) -> String {
    "{\"a\":".repeat(depth) + "1" + &"}".repeat(depth)
}

/// `[[[…]]]` and `{"a":{"a":…}}` ten thousand to a million levels deep are
/// boxed (they used to overflow the stack of `ctx box`), as text: jq refuses
/// them with a message, and grep, lines and length read them.
#[test]
fn json_nested_past_the_limit_is_boxed_as_text() {
    let env = Env::empty();
    for (depth, value) in [
        (10_000, nested_arrays(10_000)),
        (100_000, nested_objects(100_000)),
        (1_000_000, nested_arrays(1_000_000)),
    ] {
        let r = boxed(env.path(), &value, &["--threshold-chars", "1", "--preview"]);
        let r = r.lines().next().expect("a reference").to_string();
        let length = env.json(&["resolve", "length", &r]);
        assert_eq!(length["media"], "text", "depth {depth}");
        assert_eq!(length["bytes"], value.len());
        refused(
            &env,
            &["resolve", "query", &r, "."],
            &[
                "error: value nests arrays or objects more than 1000 levels deep, too deep for a jq query; use grep, lines or slice instead",
            ],
        );
        let hits = env.json(&["resolve", "grep", &r, "1\\}\\}", "-C", "0"]);
        assert_eq!(hits["total_matches"], u64::from(depth == 100_000));
    }
    // A thousand levels is still JSON, and jq reads it.
    let r = boxed(
        env.path(),
        &nested_arrays(1_000),
        &["--threshold-chars", "1"],
    );
    let r = r.trim();
    assert_eq!(env.json(&["resolve", "length", r])["media"], "json");
    assert_eq!(resolve(&env, &["query", r, "[paths] | length"]), "999\n");
}

/// A stored value may also be deep JSON that a build finds in the project:
/// the JSON chunker splits it as text below its depth limit.
#[test]
fn a_deeply_nested_json_file_builds() {
    let env = Env::empty();
    env.write("deep.json", nested_arrays(200_000));
    env.write("notes.md", "# Notes\n\nA page to search.\n");
    env.ctx(&["build", "-q"]).assert().success();
}

/// A query that never ends is stopped at `--timeout`, whether it computes
/// one endless output (`def f: f; f`) or endless outputs.
#[test]
fn jq_stops_at_its_deadline() {
    let env = Env::empty();
    let r = boxed(env.path(), "{\"a\":[1,2,3]}", &["--threshold-chars", "1"]);
    let r = r.trim();
    let endless = [
        "def f: f; f",
        "last(range(1e10))",
        "range(1e10) | select(. % 100000 == 0)",
    ];
    for jq in endless {
        let started = Instant::now();
        refused(
            &env,
            &["resolve", "query", r, jq, "--timeout", "1"],
            &[&format!("error: jq query `{jq}` ran longer than 1 s ")],
        );
        assert!(
            started.elapsed() < Duration::from_secs(8),
            "{jq}: {:?}",
            started.elapsed()
        );
    }
}

/// A query that needs more memory than its limit, or recurses without end,
/// is stopped with a message saying so; the command still answers.
#[test]
fn jq_stops_at_its_memory_and_stack_limits() {
    let env = Env::empty();
    let r = boxed(env.path(), "{\"a\":[1,2,3]}", &["--threshold-chars", "1"]);
    let r = r.trim();
    refused(
        &env,
        &["resolve", "query", r, "\"x\" * 2000000000 | length"],
        &["needed more than 1280 MiB of memory and was stopped"],
    );
    refused(
        &env,
        &["resolve", "query", r, "def f: [f]; f"],
        &["error: jq query `def f: [f]; f` recursed too deeply"],
    );
    // An ordinary query after them, and its JSON form.
    assert_eq!(resolve(&env, &["query", r, ".a | add"]), "6\n");
    let answer = env.json(&["resolve", "query", r, ".a[]"]);
    assert_eq!(answer["outputs"], serde_json::json!(["1", "2", "3"]));
}

/// JSON after a byte order mark is JSON to jq too, as its preview said.
#[test]
fn json_after_a_byte_order_mark_is_queried() {
    let env = Env::empty();
    let out = boxed(
        env.path(),
        "\u{feff}{\"k\":[1,2]}",
        &["--threshold-chars", "1", "--tool", "bom", "--preview"],
    );
    assert!(out.contains("  keys\n"), "{out}");
    let r = out.lines().next().expect("reference");
    assert_eq!(
        resolve(&env, &["query", r, "keys", "--compact"]),
        "[\"k\"]\n"
    );
}
