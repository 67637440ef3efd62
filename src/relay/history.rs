//! Tool-history compaction: the single source of truth for an agent's tool
//! history. Tool calls are paired with their results by call id; the most recent
//! `keep` pairs stay verbatim (large results boxed); older pairs become one
//! summary line each (`name(args…) → internal://id, 12,400 tokens`) that the model
//! can still resolve. Calls without results and results without calls are kept as
//! text and reported, never dropped.
//!
//! Three transcript formats are read and written: OpenAI Chat Completions
//! messages, OpenAI Responses input items, and Anthropic Messages. How kept pairs
//! are rendered is a [`Strategy`] chosen in one place (`render`).

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::tokens;

/// Transcript formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// OpenAI Chat Completions `messages`.
    Chat,
    /// OpenAI Responses input items.
    Responses,
    /// Anthropic Messages (`tool_use` / `tool_result` blocks).
    Anthropic,
}

/// How kept tool pairs are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Calls omitted; each kept result becomes a user message
    /// `Context (tool result):\n…`; the summary is one user message.
    TextEmbed,
    /// Calls and results as the format's native tool items; summary as a user message.
    Native,
}

/// One normalized transcript item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A message that is not a tool call or result (kept as is).
    Message(Value),
    /// A tool call.
    Call {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
        /// Arguments (parsed when they were a JSON string).
        args: Value,
    },
    /// A tool result.
    Result {
        /// Id of the call it answers.
        id: String,
        /// Its text.
        content: String,
        /// Whether the tool reported an error.
        is_error: bool,
    },
}

/// Detects the format of a transcript (an array, or an object with `messages`
/// or `input`).
pub fn detect(items: &[Value]) -> Format {
    for v in items {
        if v.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("function_call"))
        {
            return Format::Responses;
        }
        if v.get("tool_calls").is_some() || v.get("role").and_then(Value::as_str) == Some("tool") {
            return Format::Chat;
        }
        if let Some(blocks) = v.get("content").and_then(Value::as_array)
            && blocks.iter().any(|b| {
                matches!(
                    b.get("type").and_then(Value::as_str),
                    Some("tool_use" | "tool_result")
                )
            })
        {
            return Format::Anthropic;
        }
    }
    Format::Chat
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p {
                Value::String(s) => s.clone(),
                _ => p
                    .get("text")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| p.to_string()),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn parse_args(v: Option<&Value>) -> Value {
    match v {
        Some(Value::String(s)) => {
            serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(other) => other.clone(),
        None => json!({}),
    }
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// Normalizes a transcript into items.
pub fn parse(items: &[Value], format: Format) -> Vec<Item> {
    let mut out = Vec::new();
    for v in items {
        match format {
            Format::Chat => {
                if v.get("role").and_then(Value::as_str) == Some("tool") {
                    out.push(Item::Result {
                        id: str_field(v, "tool_call_id"),
                        content: text_of(v.get("content").unwrap_or(&Value::Null)),
                        is_error: false,
                    });
                } else if let Some(calls) = v.get("tool_calls").and_then(Value::as_array) {
                    let has_text = v
                        .get("content")
                        .is_some_and(|c| !text_of(c).trim().is_empty());
                    if has_text {
                        let mut m = v.clone();
                        if let Some(o) = m.as_object_mut() {
                            o.remove("tool_calls");
                        }
                        out.push(Item::Message(m));
                    }
                    for c in calls {
                        let f = c.get("function").cloned().unwrap_or(Value::Null);
                        out.push(Item::Call {
                            id: str_field(c, "id"),
                            name: str_field(&f, "name"),
                            args: parse_args(f.get("arguments")),
                        });
                    }
                } else {
                    out.push(Item::Message(v.clone()));
                }
            }
            Format::Responses => match v.get("type").and_then(Value::as_str) {
                Some("function_call") => out.push(Item::Call {
                    id: str_field(v, "call_id"),
                    name: str_field(v, "name"),
                    args: parse_args(v.get("arguments")),
                }),
                Some("function_call_output") => out.push(Item::Result {
                    id: str_field(v, "call_id"),
                    content: text_of(v.get("output").unwrap_or(&Value::Null)),
                    is_error: false,
                }),
                _ => out.push(Item::Message(v.clone())),
            },
            Format::Anthropic => {
                let Some(blocks) = v.get("content").and_then(Value::as_array) else {
                    out.push(Item::Message(v.clone()));
                    continue;
                };
                let role = v.get("role").cloned().unwrap_or(Value::Null);
                let mut rest = Vec::new();
                let flush = |rest: &mut Vec<Value>, out: &mut Vec<Item>| {
                    if !rest.is_empty() {
                        out.push(Item::Message(
                            json!({"role": role, "content": std::mem::take(rest)}),
                        ));
                    }
                };
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_use") => {
                            flush(&mut rest, &mut out);
                            out.push(Item::Call {
                                id: str_field(b, "id"),
                                name: str_field(b, "name"),
                                args: b.get("input").cloned().unwrap_or(json!({})),
                            });
                        }
                        Some("tool_result") => {
                            flush(&mut rest, &mut out);
                            out.push(Item::Result {
                                id: str_field(b, "tool_use_id"),
                                content: text_of(b.get("content").unwrap_or(&Value::Null)),
                                is_error: b
                                    .get("is_error")
                                    .and_then(Value::as_bool)
                                    .unwrap_or(false),
                            });
                        }
                        _ => rest.push(b.clone()),
                    }
                }
                flush(&mut rest, &mut out);
            }
        }
    }
    out
}

/// Settings of a compaction.
#[derive(Debug, Clone)]
pub struct CompactOptions {
    /// Most recent pairs kept verbatim.
    pub keep: usize,
    /// Kept results above this many estimated tokens are boxed.
    pub threshold: usize,
    /// Rendering of kept pairs.
    pub strategy: Strategy,
    /// Output format (default: the input's).
    pub output: Option<Format>,
}

/// What a compaction did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Input format.
    pub format: Option<Format>,
    /// Pairs found.
    pub pairs: usize,
    /// Pairs kept verbatim.
    pub kept: usize,
    /// Pairs summarized.
    pub summarized: usize,
    /// Results stored in the relay store.
    pub boxed: usize,
    /// Calls that had no result (kept as text).
    pub orphan_calls: Vec<String>,
    /// Results that had no call (kept as text).
    pub orphan_results: Vec<String>,
    /// Estimated tokens of the input JSON.
    pub tokens_before: usize,
    /// Estimated tokens of the output JSON.
    pub tokens_after: usize,
}

/// Stores a result and returns its reference; provided by the caller so this
/// module stays free of storage details (the CLI passes the relay store).
pub type BoxFn<'a> = dyn FnMut(&str, &str) -> Result<String> + 'a;

/// A tool pair ready to render.
struct Pair {
    name: String,
    id: String,
    args: Value,
    content: String,
    is_error: bool,
}

/// Compacts a transcript (the JSON value as read: an array, or an object with
/// `messages` / `input`, whose other fields are kept).
pub fn compact(
    input: &Value,
    opts: &CompactOptions,
    store: &mut BoxFn<'_>,
) -> Result<(Value, Report)> {
    let (items, wrap_key) = match input {
        Value::Array(a) => (a.clone(), None),
        Value::Object(o) => match ["messages", "input"]
            .iter()
            .find(|k| o.get(**k).is_some_and(Value::is_array))
        {
            Some(k) => (o[*k].as_array().cloned().unwrap_or_default(), Some(*k)),
            None => {
                return Err(Error::Invalid(
                    "transcript must be a JSON array of messages/items, or an object with `messages` or `input`".into(),
                ));
            }
        },
        _ => {
            return Err(Error::Invalid(
                "transcript must be a JSON array or object".into(),
            ));
        }
    };
    let format = detect(&items);
    let parsed = parse(&items, format);
    let out_format = opts.output.unwrap_or(format);
    let mut report = Report {
        format: Some(format),
        tokens_before: tokens::estimate(&input.to_string()),
        ..Report::default()
    };

    // Pair calls and results by id; orphans become plain text messages.
    let result_ids: std::collections::HashSet<&str> = parsed
        .iter()
        .filter_map(|i| match i {
            Item::Result { id, .. } => Some(id.as_str()),
            _ => None,
        })
        .collect();
    let mut calls: std::collections::HashMap<String, (String, Value)> = Default::default();
    let mut pair_positions = Vec::new(); // index in `parsed` of each pair's result
    for (pos, i) in parsed.iter().enumerate() {
        match i {
            Item::Call { id, name, args } => {
                calls.insert(id.clone(), (name.clone(), args.clone()));
            }
            Item::Result { id, .. } if calls.contains_key(id) => pair_positions.push(pos),
            _ => {}
        }
    }
    report.pairs = pair_positions.len();
    let first_kept = pair_positions.len().saturating_sub(opts.keep);
    let kept_from = pair_positions
        .get(first_kept)
        .copied()
        .unwrap_or(usize::MAX);

    let mut out_items: Vec<Value> = Vec::new();
    let mut summary_lines: Vec<String> = Vec::new();
    let mut summary_at: Option<usize> = None;
    for (pos, item) in parsed.iter().enumerate() {
        match item {
            Item::Message(m) => out_items.push(convert_message(m, format, out_format)),
            Item::Call { id, name, args } => {
                if !result_ids.contains(id.as_str()) {
                    report.orphan_calls.push(format!("{name} ({id})"));
                    out_items.push(user_text(
                        out_format,
                        &format!("Tool call without a result: {}", call_line(name, args)),
                    ));
                }
            }
            Item::Result {
                id,
                content,
                is_error,
            } => {
                let Some((name, args)) = calls.get(id) else {
                    report.orphan_results.push(id.clone());
                    out_items.push(user_text(
                        out_format,
                        &format!("Tool result without a call ({id}):\n{content}"),
                    ));
                    continue;
                };
                let toks = tokens::estimate(content);
                if pos < kept_from {
                    report.summarized += 1;
                    let what = if toks <= 64 {
                        format!("{:?}", content.trim())
                    } else {
                        report.boxed += 1;
                        store(name, content)?
                    };
                    summary_lines.push(format!(
                        "{} → {what}, {} tokens{}",
                        call_line(name, args),
                        group_thousands(toks),
                        if *is_error { " (error)" } else { "" }
                    ));
                    summary_at.get_or_insert(out_items.len());
                    continue;
                }
                report.kept += 1;
                let content = if toks > opts.threshold {
                    report.boxed += 1;
                    let r = store(name, content)?;
                    format!(
                        "[{name} returned {} tokens; stored as {r}. Resolve it with internal_resource_* tools or pass the reference to another tool.]",
                        group_thousands(toks)
                    )
                } else {
                    content.clone()
                };
                let pair = Pair {
                    name: name.clone(),
                    id: id.clone(),
                    args: args.clone(),
                    content,
                    is_error: *is_error,
                };
                out_items.extend(render(&pair, opts.strategy, out_format));
            }
        }
    }
    if let Some(at) = summary_at {
        let text = format!(
            "Earlier tool calls (compacted; results can be resolved by reference):\n{}",
            summary_lines.join("\n")
        );
        out_items.insert(at, user_text(out_format, &text));
    }
    let output = match (wrap_key, input) {
        (Some(k), Value::Object(o)) => {
            let mut o = o.clone();
            o.insert(k.to_string(), Value::Array(out_items));
            Value::Object(o)
        }
        _ => Value::Array(out_items),
    };
    report.tokens_after = tokens::estimate(&output.to_string());
    Ok((output, report))
}

/// `name(arg=value, …)`, values cut short.
pub fn call_line(name: &str, args: &Value) -> String {
    let parts: Vec<String> = match args {
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| {
                let s = match v {
                    Value::String(s) => format!("{s:?}"),
                    other => other.to_string(),
                };
                let short: String = s.chars().take(40).collect();
                format!(
                    "{k}={short}{}",
                    if short.len() < s.len() { "…" } else { "" }
                )
            })
            .collect(),
        Value::Null => Vec::new(),
        other => vec![other.to_string().chars().take(40).collect()],
    };
    format!("{name}({})", parts.join(", "))
}

fn group_thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A user message with plain text, in `format`.
fn user_text(format: Format, text: &str) -> Value {
    match format {
        Format::Chat => json!({"role": "user", "content": text}),
        Format::Responses => json!({"role": "user", "content": text}),
        Format::Anthropic => json!({"role": "user", "content": [{"type": "text", "text": text}]}),
    }
}

fn convert_message(m: &Value, from: Format, to: Format) -> Value {
    if from == to {
        return m.clone();
    }
    let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
    let text = text_of(m.get("content").unwrap_or(&Value::Null));
    match to {
        Format::Anthropic => json!({"role": role, "content": [{"type": "text", "text": text}]}),
        _ => json!({"role": role, "content": text}),
    }
}

/// Renders one kept pair with the chosen strategy — the one place that decides.
fn render(p: &Pair, strategy: Strategy, format: Format) -> Vec<Value> {
    match (strategy, format) {
        (Strategy::TextEmbed, _) => vec![user_text(
            format,
            &format!("Context (tool result):\n{}", p.content),
        )],
        (Strategy::Native, Format::Responses) => vec![
            json!({"type": "function_call", "call_id": p.id, "name": p.name, "arguments": p.args.to_string()}),
            json!({"type": "function_call_output", "call_id": p.id, "output": p.content}),
        ],
        (Strategy::Native, Format::Chat) => vec![
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": p.id, "type": "function", "function": {"name": p.name, "arguments": p.args.to_string()}}]}),
            json!({"role": "tool", "tool_call_id": p.id, "content": p.content}),
        ],
        (Strategy::Native, Format::Anthropic) => {
            let mut result =
                json!({"type": "tool_result", "tool_use_id": p.id, "content": p.content});
            if p.is_error {
                result["is_error"] = Value::Bool(true);
            }
            vec![
                json!({"role": "assistant", "content": [{"type": "tool_use", "id": p.id, "name": p.name, "input": p.args}]}),
                json!({"role": "user", "content": [result]}),
            ]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(n: usize, big: usize) -> Value {
        let mut v = vec![json!({"role": "user", "content": "do things"})];
        for i in 0..n {
            v.push(json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": format!("c{i}"), "type": "function", "function": {"name": "read", "arguments": format!("{{\"path\":\"f{i}\"}}")}}]}));
            v.push(json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "x ".repeat(big)}));
        }
        Value::Array(v)
    }

    fn opts(keep: usize, threshold: usize, strategy: Strategy) -> CompactOptions {
        CompactOptions {
            keep,
            threshold,
            strategy,
            output: None,
        }
    }

    #[test]
    fn keep_and_threshold_take_effect_exactly() {
        let mut stored = Vec::new();
        let mut store = |name: &str, v: &str| {
            stored.push((name.to_string(), v.len()));
            Ok(format!("internal://{:016}", stored.len()))
        };
        let (out, r) = compact(
            &chat(10, 300),
            &opts(3, 100_000, Strategy::Native),
            &mut store,
        )
        .unwrap();
        assert_eq!((r.pairs, r.kept, r.summarized, r.boxed), (10, 3, 7, 7));
        let arr = out.as_array().unwrap();
        assert_eq!(arr.iter().filter(|m| m["role"] == "tool").count(), 3);
        assert!(
            arr[1]["content"]
                .as_str()
                .unwrap()
                .contains("read(path=\"f0\") → internal://")
        );
        let mut store2 = |_: &str, _: &str| Ok("internal://aaaaaaaaaaaaaaaa".to_string());
        let (_, r) = compact(
            &chat(10, 300),
            &opts(10, 100, Strategy::Native),
            &mut store2,
        )
        .unwrap();
        assert_eq!((r.kept, r.boxed), (10, 10));
        let (_, r) = compact(
            &chat(10, 300),
            &opts(10, 1000, Strategy::Native),
            &mut store2,
        )
        .unwrap();
        assert_eq!((r.kept, r.boxed), (10, 0));
        assert!(r.tokens_after <= r.tokens_before + 10);
    }

    #[test]
    fn orphans_are_kept_and_reported() {
        let v = json!([
            {"type": "function_call", "call_id": "a", "name": "lost", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "zzz", "output": "stray"}
        ]);
        let mut store = |_: &str, _: &str| Ok(String::new());
        let (out, r) = compact(&v, &opts(5, 1000, Strategy::TextEmbed), &mut store).unwrap();
        assert_eq!(r.orphan_calls, vec!["lost (a)"]);
        assert_eq!(r.orphan_results, vec!["zzz"]);
        assert_eq!(out.as_array().unwrap().len(), 2);
    }

    #[test]
    fn anthropic_round_trip_native() {
        let v = json!([
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "text", "text": "calling"}, {"type": "tool_use", "id": "t1", "name": "get", "input": {"q": 1}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "result"}]}]}
        ]);
        assert_eq!(detect(v.as_array().unwrap()), Format::Anthropic);
        let mut store = |_: &str, _: &str| Ok(String::new());
        let (out, r) = compact(&v, &opts(5, 1000, Strategy::Native), &mut store).unwrap();
        assert_eq!(r.kept, 1);
        let a = out.as_array().unwrap();
        assert_eq!(a.last().unwrap()["content"][0]["type"], "tool_result");
        assert_eq!(a.last().unwrap()["content"][0]["content"], "result");
    }
}
