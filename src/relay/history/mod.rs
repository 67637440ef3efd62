//! Tool-history compaction: the single source of truth for an agent's tool
//! history. Tool calls are paired with their results by call id; the most recent
//! `keep` pairs stay verbatim (large results boxed); older pairs become one
//! summary line each (`name(args…) → internal://id, 12,400 tokens`) that the model
//! can still resolve. Calls without results and results without calls are kept as
//! text and reported, never dropped.
//!
//! Three transcript formats are read and written ([`format`]): OpenAI Chat
//! Completions messages, OpenAI Responses input items, and Anthropic Messages.
//! How kept pairs are rendered is a [`Strategy`] chosen in one place (`render`).
//!
//! Images in tool results are images, not text ([`image`]): a kept result keeps
//! them in place and only its text parts over the threshold are boxed; a
//! summarized result stores each inline image and names it in its line.

mod format;
mod image;

use serde::Serialize;
use serde_json::{Value, json};

pub use format::Format;
use format::{Content, Item, Part, detect, parse};
use format::{convert_message, result_value, user_parts, user_text};
use image::ImageSource;

use crate::error::{Error, Result};
use crate::tokens;

/// How kept tool pairs are rendered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Calls omitted; each kept result becomes a user message
    /// `Context (tool result):\n…`; the summary is one user message.
    TextEmbed,
    /// Calls and results as the format's native tool items; summary as a user message.
    Native,
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
    /// Output format.
    pub output: Option<Format>,
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
    /// Items the output format has no equivalent of (dropped).
    pub dropped: Vec<String>,
    /// Estimated tokens of the input JSON.
    pub tokens_before: usize,
    /// Estimated tokens of the output JSON.
    pub tokens_after: usize,
}

/// Stores a result and returns its reference; provided by the caller so this
/// module stays free of storage details (the CLI passes the relay store).
pub type BoxFn<'a> = dyn FnMut(&str, &str) -> Result<String> + 'a;

/// A kept tool pair ready to render.
struct Pair<'a> {
    name: &'a str,
    id: &'a str,
    args: &'a Value,
    content: &'a Content,
    /// Parts boxed, by index, and the text that replaces each.
    replaced: Vec<(usize, String)>,
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
        output: Some(out_format),
        tokens_before: format::estimate_tokens(input),
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
            Item::Message(m) => match convert_message(m, format, out_format) {
                Some(m) => out_items.push(m),
                None => report.dropped.push(format::describe_item(m)),
            },
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
                    let mut parts = vec![Part::Text(format!(
                        "Tool result without a call ({id}):\n{}",
                        content.text()
                    ))];
                    parts.extend(content.images().cloned().map(Part::Image));
                    out_items.push(user_parts(out_format, &parts));
                    continue;
                };
                if pos < kept_from {
                    report.summarized += 1;
                    let line = summary_line(name, args, content, *is_error, store, &mut report)?;
                    summary_lines.push(line);
                    summary_at.get_or_insert(out_items.len());
                    continue;
                }
                report.kept += 1;
                let pair = Pair {
                    name,
                    id,
                    args,
                    content,
                    replaced: box_large_parts(name, content, opts.threshold, store, &mut report)?,
                    is_error: *is_error,
                };
                out_items.extend(render(&pair, opts.strategy, format, out_format));
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
    let output = wrap(input, wrap_key, out_items, format, out_format);
    report.tokens_after = format::estimate_tokens(&output);
    Ok((output, report))
}

/// The output value: the items under the key of `to` (`messages`, or
/// `input` for Responses) beside the input's other fields, or a bare list when
/// the input was one and `to` needs nothing else. A system prompt moves to
/// where `to` takes it: Anthropic's top-level `system` (so converting to
/// Anthropic always gives an object), a leading `system` message elsewhere.
fn wrap(
    input: &Value,
    wrap_key: Option<&str>,
    mut items: Vec<Value>,
    from: Format,
    to: Format,
) -> Value {
    let mut fields = match input {
        Value::Object(o) => o.clone(),
        _ => serde_json::Map::new(),
    };
    let key = to.list_key();
    if let Some(k) = wrap_key
        && k != key
    {
        fields.shift_remove(k);
    }
    if to != Format::Anthropic
        && let Some(system) = fields.shift_remove("system")
    {
        items.insert(
            0,
            json!({"role": "system", "content": format::system_text(&system)}),
        );
    }
    let (items, system) = format::finish(items, to);
    if let Some(system) = system {
        let text = match fields.get("system") {
            Some(given) => format!("{}\n\n{system}", format::system_text(given)),
            None => system,
        };
        fields.insert("system".to_string(), Value::String(text));
    }
    let converted_to_anthropic = to == Format::Anthropic && from != to;
    if matches!(input, Value::Object(_)) || converted_to_anthropic || fields.contains_key("system")
    {
        fields.insert(key.to_string(), Value::Array(items));
        Value::Object(fields)
    } else {
        Value::Array(items)
    }
}

/// Boxes the text parts of a kept result that are over `threshold` tokens,
/// each on its own, and returns what replaces them. Images stay: a model
/// reads one for a bounded price (see [`image`]), and a reference to it would
/// be text it cannot see.
fn box_large_parts(
    name: &str,
    content: &Content,
    threshold: usize,
    store: &mut BoxFn<'_>,
    report: &mut Report,
) -> Result<Vec<(usize, String)>> {
    let mut replaced = Vec::new();
    for (at, part) in content.parts.iter().enumerate() {
        let text = match part {
            Part::Text(text) => text.clone(),
            Part::Other(block) => block.to_string(),
            Part::Image(_) => continue,
        };
        let toks = tokens::estimate(&text);
        if toks > threshold {
            report.boxed += 1;
            let r = store(name, &text)?;
            replaced.push((at, format!(
                "[{name} returned {} tokens; stored as {r}. Resolve it with internal_resource_* tools or pass the reference to another tool.]",
                group_thousands(toks)
            )));
        }
    }
    Ok(replaced)
}

/// One summary line: `name(args…) → "short result", 12 tokens`, or its
/// reference when the text is longer, then each image, stored when inline:
/// `; image (image/png, 1280×800, 195 KB) → internal://…`.
fn summary_line(
    name: &str,
    args: &Value,
    content: &Content,
    is_error: bool,
    store: &mut BoxFn<'_>,
    report: &mut Report,
) -> Result<String> {
    let text = content.text();
    let images: Vec<_> = content.images().collect();
    let mut pieces = Vec::new();
    if !text.is_empty() || images.is_empty() {
        let toks = tokens::estimate(&text);
        let what = if toks <= 64 {
            format!("{:?}", text.trim())
        } else {
            report.boxed += 1;
            store(name, &text)?
        };
        pieces.push(format!("{what}, {} tokens", group_thousands(toks)));
    }
    for image in images {
        pieces.push(match &image.source {
            ImageSource::Url(url) if !url.starts_with("data:") => image.describe(),
            // The relay store holds text: an inline image is stored as its
            // `data:` URI, which names its media type and which indexing
            // elides (see `chunk::encoded`).
            _ => {
                report.boxed += 1;
                format!(
                    "image ({}) → {}",
                    image.describe(),
                    store(name, &image.url())?
                )
            }
        });
    }
    Ok(format!(
        "{} → {}{}",
        call_line(name, args),
        pieces.join("; "),
        if is_error { " (error)" } else { "" }
    ))
}

/// `name(arg=value, …)`, values cut short.
fn call_line(name: &str, args: &Value) -> String {
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

/// Renders one kept pair with the chosen strategy — the one place that decides.
fn render(p: &Pair<'_>, strategy: Strategy, from: Format, to: Format) -> Vec<Value> {
    let content = result_value(p.content, &p.replaced, from, to);
    match (strategy, to) {
        (Strategy::TextEmbed, _) => {
            let text = format::text_of_parts(&p.content.replaced(&p.replaced));
            let mut parts = vec![Part::Text(format!("Context (tool result):\n{text}"))];
            parts.extend(p.content.images().cloned().map(Part::Image));
            vec![user_parts(to, &parts)]
        }
        (Strategy::Native, Format::Responses) => vec![
            json!({"type": "function_call", "call_id": p.id, "name": p.name, "arguments": p.args.to_string()}),
            json!({"type": "function_call_output", "call_id": p.id, "output": content}),
        ],
        (Strategy::Native, Format::Chat) => vec![
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": p.id, "type": "function", "function": {"name": p.name, "arguments": p.args.to_string()}}]}),
            json!({"role": "tool", "tool_call_id": p.id, "content": content}),
        ],
        (Strategy::Native, Format::Anthropic) => {
            let mut result =
                json!({"type": "tool_result", "tool_use_id": p.id, "content": content});
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
mod tests;
