//! Prompt-case checks for the relay: expectations written as YAML front matter of
//! a Markdown case file, checked against a recorded transcript (JSON lines of
//! calls and results, as `ctx relay --record` writes them).
//!
//! Matching rules:
//! - `tool_calls` entries are matched in order against the transcript's calls;
//!   calls to tools not named in the case may come in between. Repeated names mean
//!   repeated calls.
//! - `allow_multiple: true` on an entry makes that tool count-based and
//!   order-agnostic: it must be called at least as many times as it has entries,
//!   and extra runs are allowed.
//! - `opaque_id_result: true` expects the matched call's result to be an
//!   `internal://` reference; `false` expects a plain value.
//! - `opaque_id_input: true` expects the matched call's arguments to contain a
//!   reference returned earlier in the transcript.
//! - `forbidden_tools` must not be called at all.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// One expected call.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedCall {
    /// The tool's name.
    pub tool_name: String,
    /// The result must (true) or must not (false) be a reference.
    #[serde(default)]
    pub opaque_id_result: Option<bool>,
    /// The arguments must (true) or must not (false) contain an earlier reference.
    #[serde(default)]
    pub opaque_id_input: Option<bool>,
    /// Count-based, order-agnostic matching for this tool.
    #[serde(default)]
    pub allow_multiple: bool,
}

/// A prompt case.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// Expected calls, in order.
    #[serde(default)]
    pub tool_calls: Vec<ExpectedCall>,
    /// Tools that must not be called.
    #[serde(default)]
    pub forbidden_tools: Vec<String>,
}

/// Parses a case file: YAML front matter between `---` lines, then the prompt.
pub fn parse_case(text: &str) -> Result<(Case, String)> {
    let fm = crate::chunk::markdown::front_matter(text);
    let raw = fm.raw.ok_or_else(|| {
        Error::Invalid("the case has no YAML front matter (`---` … `---`) with tool_calls".into())
    })?;
    let case: Case = serde_saphyr::from_str(&raw).map_err(|e| {
        Error::Invalid(format!(
            "front matter: {e} (line numbers count from the line after the first `---`)"
        ))
    })?;
    Ok((case, text[fm.body_start..].trim().to_string()))
}

/// A call with its result, from a recorded transcript.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Tool name.
    pub tool: String,
    /// Arguments as sent by the client.
    pub arguments: Value,
    /// The reference, when the result was boxed.
    pub reference: Option<String>,
}

/// Reads a transcript: JSON lines `{"type":"call","tool","arguments"}` and
/// `{"type":"result","tool","boxed","reference"?}`; a result belongs to the
/// latest call of the same tool without one.
pub fn parse_transcript(text: &str) -> Result<Vec<Recorded>> {
    let mut out: Vec<Recorded> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v: Value = serde_json::from_str(line)
            .map_err(|e| Error::Invalid(format!("transcript line {}: {e}", n + 1)))?;
        let tool = v
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match v.get("type").and_then(Value::as_str) {
            Some("call") => {
                open.push(out.len());
                out.push(Recorded {
                    tool,
                    arguments: v.get("arguments").cloned().unwrap_or(Value::Null),
                    reference: None,
                });
            }
            Some("result") => {
                let Some(pos) = open.iter().rposition(|&i| out[i].tool == tool) else {
                    return Err(Error::Invalid(format!(
                        "transcript line {}: result of `{tool}` without a call",
                        n + 1
                    )));
                };
                let i = open.remove(pos);
                if v.get("boxed").and_then(Value::as_bool).unwrap_or(false) {
                    out[i].reference = v
                        .get("reference")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .or_else(|| Some(String::new()));
                }
            }
            _ => {
                return Err(Error::Invalid(format!(
                    "transcript line {}: `type` must be `call` or `result`",
                    n + 1
                )));
            }
        }
    }
    Ok(out)
}

/// The verdict on one expectation.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// What was expected.
    pub expectation: String,
    /// Whether it held.
    pub passed: bool,
    /// Why (which call matched, or what was missing).
    pub reason: String,
}

fn contains_reference(v: &Value, earlier: &[&str]) -> bool {
    match v {
        Value::String(s) => earlier.iter().any(|r| !r.is_empty() && s.contains(r)),
        Value::Array(a) => a.iter().any(|x| contains_reference(x, earlier)),
        Value::Object(o) => o.values().any(|x| contains_reference(x, earlier)),
        _ => false,
    }
}

fn check_call(e: &ExpectedCall, calls: &[Recorded], i: usize) -> (bool, String) {
    let c = &calls[i];
    let earlier: Vec<&str> = calls[..i]
        .iter()
        .filter_map(|c| c.reference.as_deref())
        .collect();
    if let Some(want) = e.opaque_id_result
        && want != c.reference.is_some()
    {
        return (
            false,
            format!(
                "call #{} of `{}` returned {}",
                i + 1,
                c.tool,
                if want {
                    "a plain value, not a reference"
                } else {
                    "a reference, not a plain value"
                }
            ),
        );
    }
    if let Some(want) = e.opaque_id_input
        && want != contains_reference(&c.arguments, &earlier)
    {
        return (
            false,
            format!(
                "call #{} of `{}` {} an earlier reference in its arguments",
                i + 1,
                c.tool,
                if want { "did not get" } else { "got" }
            ),
        );
    }
    (true, format!("call #{} of `{}`", i + 1, c.tool))
}

fn describe(e: &ExpectedCall) -> String {
    let mut s = format!("call `{}`", e.tool_name);
    match e.opaque_id_result {
        Some(true) => s.push_str(", result boxed"),
        Some(false) => s.push_str(", result not boxed"),
        None => {}
    }
    match e.opaque_id_input {
        Some(true) => s.push_str(", given a reference"),
        Some(false) => s.push_str(", given no reference"),
        None => {}
    }
    if e.allow_multiple {
        s.push_str(" (any order, repeats allowed)");
    }
    s
}

/// Checks every expectation of `case` against `calls`.
pub fn check(case: &Case, calls: &[Recorded]) -> Vec<Verdict> {
    let mut out = Vec::new();
    let multi: std::collections::HashSet<&str> = case
        .tool_calls
        .iter()
        .filter(|e| e.allow_multiple)
        .map(|e| e.tool_name.as_str())
        .collect();
    let mut cursor = 0usize;
    let mut used = vec![false; calls.len()];
    for e in &case.tool_calls {
        let expectation = describe(e);
        if multi.contains(e.tool_name.as_str()) {
            let found = (0..calls.len())
                .find(|&i| !used[i] && calls[i].tool == e.tool_name && check_call(e, calls, i).0);
            match found {
                Some(i) => {
                    used[i] = true;
                    out.push(Verdict {
                        expectation,
                        passed: true,
                        reason: check_call(e, calls, i).1,
                    });
                }
                None => out.push(Verdict {
                    expectation,
                    passed: false,
                    reason: format!(
                        "no further matching call of `{}` in the transcript",
                        e.tool_name
                    ),
                }),
            }
            continue;
        }
        let next = (cursor..calls.len()).find(|&i| !used[i] && calls[i].tool == e.tool_name);
        match next {
            Some(i) => {
                used[i] = true;
                cursor = i + 1;
                let (passed, reason) = check_call(e, calls, i);
                out.push(Verdict {
                    expectation,
                    passed,
                    reason,
                });
            }
            None => out.push(Verdict {
                expectation,
                passed: false,
                reason: if calls.iter().any(|c| c.tool == e.tool_name) {
                    format!(
                        "`{}` was called, but not in the expected order",
                        e.tool_name
                    )
                } else {
                    format!("`{}` was never called", e.tool_name)
                },
            }),
        }
    }
    for f in &case.forbidden_tools {
        let n = calls.iter().filter(|c| &c.tool == f).count();
        out.push(Verdict {
            expectation: format!("never call `{f}`"),
            passed: n == 0,
            reason: if n == 0 {
                "not called".into()
            } else {
                format!("called {n} time(s)")
            },
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CASE: &str = "---\ntool_calls:\n  - tool_name: yt_transcribe\n    opaque_id_result: true\n  - tool_name: deep_check\n    opaque_id_input: true\nforbidden_tools: [internal_resource_read]\n---\nGenerate a transcript and pass it to Deep Check.\n";

    fn t(lines: &[&str]) -> Vec<Recorded> {
        parse_transcript(&lines.join("\n")).unwrap()
    }

    #[test]
    fn passes_and_fails_with_reasons() {
        let (case, prompt) = parse_case(CASE).unwrap();
        assert!(prompt.starts_with("Generate"));
        let good = t(&[
            r#"{"type":"call","tool":"yt_transcribe","arguments":{"video_id":"123"}}"#,
            r#"{"type":"result","tool":"yt_transcribe","boxed":true,"reference":"internal://abcdefghijklmnop"}"#,
            r#"{"type":"call","tool":"deep_check","arguments":{"text":"internal://abcdefghijklmnop"}}"#,
            r#"{"type":"result","tool":"deep_check","boxed":false}"#,
        ]);
        assert!(check(&case, &good).iter().all(|v| v.passed));
        let bad = t(&[
            r#"{"type":"call","tool":"yt_transcribe","arguments":{}}"#,
            r#"{"type":"result","tool":"yt_transcribe","boxed":true,"reference":"internal://abcdefghijklmnop"}"#,
            r#"{"type":"call","tool":"internal_resource_read","arguments":{"opaque_reference":"internal://abcdefghijklmnop"}}"#,
            r#"{"type":"result","tool":"internal_resource_read","boxed":false}"#,
            r#"{"type":"call","tool":"deep_check","arguments":{"text":"the whole transcript"}}"#,
        ]);
        let v = check(&case, &bad);
        assert!(
            !v[1].passed && v[1].reason.contains("did not get an earlier reference"),
            "{v:?}"
        );
        assert!(!v[2].passed && v[2].reason == "called 1 time(s)");
    }

    #[test]
    fn allow_multiple_counts() {
        let case: Case = serde_saphyr::from_str("tool_calls:\n  - tool_name: a\n    allow_multiple: true\n  - tool_name: a\n    allow_multiple: true\n").unwrap();
        let one = t(&[r#"{"type":"call","tool":"a","arguments":{}}"#]);
        assert!(!check(&case, &one)[1].passed);
        let three = t(&[
            r#"{"type":"call","tool":"a"}"#,
            r#"{"type":"call","tool":"b"}"#,
            r#"{"type":"call","tool":"a"}"#,
            r#"{"type":"call","tool":"a"}"#,
        ]);
        assert!(check(&case, &three).iter().all(|v| v.passed));
    }
}
