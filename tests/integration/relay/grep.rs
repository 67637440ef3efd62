//! `resolve grep` and `internal_resource_grep`: contexts merged as `grep -C`
//! merges them, exit 1 when nothing matches, and the MCP answer within its
//! 100,000-character cap with the call that reads on.

use serde_json::json;

use super::super::proxy::driver::{Relay, text_of};
use super::super::util::{Env, boxed};

fn numbers(env: &Env) -> String {
    let value: String = (1..=30_000).map(|i| format!("{i}\n")).collect();
    boxed(env.path(), &value, &["--threshold-chars", "1"])
        .trim()
        .to_string()
}

/// Neighbouring matches share their context lines, which are printed once,
/// and a matching line is never another match's context.
#[test]
fn overlapping_contexts_are_printed_once() {
    let env = Env::empty();
    let r = numbers(&env);
    env.ctx(&["resolve", "grep", &r, "^1999(8|9)$", "-C", "1"])
        .assert()
        .success()
        .stdout("2 matching line(s)\n19996- 19997\n19997: 19998\n19998: 19999\n19999- 20000\n");
    env.ctx(&["resolve", "grep", &r, "^(5|9)$", "-C", "1"])
        .assert()
        .success()
        .stdout("2 matching line(s)\n3- 4\n4: 5\n5- 6\n--\n7- 8\n8: 9\n9- 10\n");
}

/// No match is a negative answer: exit 1, as grep (and the README) say,
/// in JSON too; a bad pattern is an error (exit 2).
#[test]
fn no_match_exits_1() {
    let env = Env::empty();
    let r = numbers(&env);
    env.ctx(&["resolve", "grep", &r, "^x"])
        .assert()
        .code(1)
        .stdout("0 matching line(s)\n");
    let out = env
        .ctx(&["resolve", "grep", &r, "^x", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["total_matches"], 0);
    env.ctx(&["resolve", "grep", &r, "(x"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("error: invalid regex `(x`"));
}

/// Over MCP the window is at most 20 lines and the answer at most 100,000
/// characters (it was 1.2 and 3.7 million); when the cap cuts it, it says
/// where the next match is and the read_lines call that shows it.
#[test]
fn mcp_grep_answers_within_the_cap() {
    let env = Env::empty();
    let r = numbers(&env);
    let wide: String = (0..3_000)
        .map(|i| {
            let lead = if i % 60 == 0 { "x" } else { "-" };
            format!("{lead}{}\n", "y".repeat(999))
        })
        .collect();
    let wide = boxed(env.path(), &wide, &["--threshold-chars", "1"])
        .trim()
        .to_string();
    let mut server = Relay::mcp(&env, &["--session", "default"]);
    server.initialize();
    for window in [5_000, 1_000_000_000] {
        let answer = server.call(
            "internal_resource_grep",
            json!({"opaque_reference": r, "pattern": "^1000[0-9]$", "window": window}),
        );
        let text = text_of(&answer);
        assert!(
            text.starts_with("10 matching line(s)\n9979- 9980\n"),
            "{text}"
        );
        assert!(text.ends_with("10028- 10029"), "{text}");
    }
    let answer = server.call(
        "internal_resource_grep",
        json!({"opaque_reference": wide, "pattern": "^x", "window": 20}),
    );
    let text = text_of(&answer);
    assert!(text.len() <= 100_000, "{} chars", text.len());
    let note = text.lines().last().expect("a note");
    assert!(
        note.starts_with("[cut at 100000 chars: 6 of the 50 matches collected are shown; the next is line 360. Read on with internal_resource_read_lines {\"opaque_reference\":"),
        "{note}"
    );
    assert_eq!(
        answer["structuredContent"]["matches"]
            .as_array()
            .map(Vec::len),
        Some(6)
    );
    let args: serde_json::Value = serde_json::from_str(
        note.split_once("internal_resource_read_lines ")
            .and_then(|(_, rest)| rest.split_once("}, or"))
            .map(|(call, _)| format!("{call}}}"))
            .expect("the call")
            .as_str(),
    )
    .expect("the call's arguments are JSON");
    let read = server.call("internal_resource_read_lines", args);
    assert!(
        text_of(&read).contains(&format!("x{}", "y".repeat(999))),
        "{read}"
    );
}
