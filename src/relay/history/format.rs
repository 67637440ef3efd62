//! Transcript formats: how OpenAI Chat Completions, OpenAI Responses and
//! Anthropic Messages write messages, tool calls, tool results and their
//! content parts; reading them into [`Item`]s and writing them back in any of
//! the three. Compaction (the parent module) decides what to keep; this module
//! only knows shapes, and keeps every output a valid request body of its
//! format (see [`finish`]).

use serde::Serialize;
use serde_json::{Value, json};

use super::image::{Image, ImageSource};
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

impl Format {
    /// Name as `--format` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Chat => "chat",
            Format::Responses => "responses",
            Format::Anthropic => "anthropic",
        }
    }

    /// The request field that holds the transcript.
    pub fn list_key(self) -> &'static str {
        match self {
            Format::Responses => "input",
            Format::Chat | Format::Anthropic => "messages",
        }
    }
}

/// One part of a message's or tool result's content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Text.
    Text(String),
    /// An image, counted and stored as an image, never as its base64 text.
    Image(Image),
    /// A block no other format has (a document, a file id): kept as is in its
    /// own format, written as its JSON text in another.
    Other(Value),
}

/// Content as written (`raw`), and its parts: one part per element of a
/// list, or one text part for a string.
#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    /// The content value as read.
    pub raw: Value,
    /// Its parts.
    pub parts: Vec<Part>,
}

impl Content {
    /// Reads a content value (a string, a list of parts, or nothing).
    pub fn parse(raw: &Value) -> Content {
        let parts = match raw {
            Value::Null => Vec::new(),
            Value::String(s) => vec![Part::Text(s.clone())],
            Value::Array(items) => items.iter().map(part_of).collect(),
            other => vec![Part::Other(other.clone())],
        };
        Content {
            raw: raw.clone(),
            parts,
        }
    }

    /// The text a reader sees: text parts, and other blocks as JSON, one per
    /// line; images are not text and are left out.
    pub fn text(&self) -> String {
        text_of_parts(&self.parts)
    }

    /// Its parts, those at the indexes of `replaced` replaced by that text.
    pub fn replaced(&self, replaced: &[(usize, String)]) -> Vec<Part> {
        let mut parts = self.parts.clone();
        for (at, text) in replaced {
            if let Some(part) = parts.get_mut(*at) {
                *part = Part::Text(text.clone());
            }
        }
        parts
    }

    /// Its images.
    pub fn images(&self) -> impl Iterator<Item = &Image> {
        self.parts.iter().filter_map(|p| match p {
            Part::Image(image) => Some(image),
            _ => None,
        })
    }
}

/// Text parts, and other blocks as JSON, one per line; images left out.
pub fn text_of_parts(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.clone()),
            Part::Other(v) => Some(v.to_string()),
            Part::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The image a content block holds, in any of the three formats: Anthropic
/// `image` (`source` base64 or url), Chat `image_url`, Responses `input_image`.
pub fn image_of(block: &Value) -> Option<Image> {
    match block.get("type").and_then(Value::as_str)? {
        "image" => {
            let source = block.get("source")?;
            match source.get("type").and_then(Value::as_str)? {
                "base64" => Some(Image::base64(
                    source.get("media_type").and_then(Value::as_str),
                    source.get("data").and_then(Value::as_str)?,
                )),
                "url" => Some(Image::from_url(source.get("url").and_then(Value::as_str)?)),
                _ => None,
            }
        }
        "image_url" => {
            let url = block.get("image_url")?;
            let url = url.get("url").unwrap_or(url).as_str()?;
            Some(Image::from_url(url))
        }
        "input_image" => Some(Image::from_url(
            block.get("image_url").and_then(Value::as_str)?,
        )),
        _ => None,
    }
}

/// Reads one content block; the text types of all three formats are text.
fn part_of(block: &Value) -> Part {
    if let Value::String(s) = block {
        return Part::Text(s.clone());
    }
    if let Some(image) = image_of(block) {
        return Part::Image(image);
    }
    let text_type = matches!(
        block.get("type").and_then(Value::as_str),
        Some("text" | "input_text" | "output_text")
    );
    match block.get("text").and_then(Value::as_str) {
        Some(text) if text_type => Part::Text(text.to_string()),
        _ => Part::Other(block.clone()),
    }
}

/// A part as a content block of `to` (`assistant`: Responses writes an
/// assistant's text as `output_text`).
pub fn part_value(part: &Part, to: Format, assistant: bool) -> Value {
    match part {
        Part::Text(text) => text_block(text, to, assistant),
        Part::Other(v) => text_block(&v.to_string(), to, assistant),
        Part::Image(image) => match (to, &image.source) {
            (Format::Chat, _) => json!({"type": "image_url", "image_url": {"url": image.url()}}),
            (Format::Responses, _) => {
                json!({"type": "input_image", "image_url": image.url(), "detail": "auto"})
            }
            (Format::Anthropic, ImageSource::Base64(data)) => json!({"type": "image", "source": {
                "type": "base64",
                "media_type": image.media_type().unwrap_or_else(|| "image/png".to_string()),
                "data": data,
            }}),
            (Format::Anthropic, ImageSource::Url(url)) => {
                json!({"type": "image", "source": {"type": "url", "url": url}})
            }
        },
    }
}

fn text_block(text: &str, to: Format, assistant: bool) -> Value {
    match to {
        Format::Responses if assistant => json!({"type": "output_text", "text": text}),
        Format::Responses => json!({"type": "input_text", "text": text}),
        Format::Chat | Format::Anthropic => json!({"type": "text", "text": text}),
    }
}

/// Parts as a content value of `to`: a string when they are all text, else a
/// list. Anthropic rejects empty text blocks, so those are left out there.
pub fn content_value(parts: &[Part], to: Format, assistant: bool) -> Value {
    if parts.iter().all(|p| matches!(p, Part::Text(_))) {
        return Value::String(text_of_parts(parts));
    }
    Value::Array(
        parts
            .iter()
            .filter(|p| !(to == Format::Anthropic && matches!(p, Part::Text(t) if t.is_empty())))
            .map(|p| part_value(p, to, assistant))
            .collect(),
    )
}

/// A tool result's content in `to`, with the text parts at the indexes of
/// `replaced` replaced by the given text. When the output format is the
/// input's, the content is written as it came, block for block, so fields
/// this module does not know (`cache_control`, a document block) survive.
pub fn result_value(
    content: &Content,
    replaced: &[(usize, String)],
    from: Format,
    to: Format,
) -> Value {
    if from == to {
        match &content.raw {
            Value::Array(items) => {
                let mut items = items.clone();
                for (at, text) in replaced {
                    if let Some(item) = items.get_mut(*at) {
                        *item = text_block(text, to, false);
                    }
                }
                return Value::Array(items);
            }
            raw if replaced.is_empty() => return raw.clone(),
            _ => {}
        }
    }
    content_value(&content.replaced(replaced), to, false)
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
        /// Its content.
        content: Content,
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
            Format::Chat => parse_chat(v, &mut out),
            Format::Responses => match v.get("type").and_then(Value::as_str) {
                Some("function_call") => out.push(Item::Call {
                    id: str_field(v, "call_id"),
                    name: str_field(v, "name"),
                    args: parse_args(v.get("arguments")),
                }),
                Some("function_call_output") => out.push(Item::Result {
                    id: str_field(v, "call_id"),
                    content: Content::parse(v.get("output").unwrap_or(&Value::Null)),
                    is_error: false,
                }),
                _ => out.push(Item::Message(v.clone())),
            },
            Format::Anthropic => parse_anthropic(v, &mut out),
        }
    }
    out
}

fn parse_chat(v: &Value, out: &mut Vec<Item>) {
    if v.get("role").and_then(Value::as_str) == Some("tool") {
        out.push(Item::Result {
            id: str_field(v, "tool_call_id"),
            content: Content::parse(v.get("content").unwrap_or(&Value::Null)),
            is_error: false,
        });
    } else if let Some(calls) = v.get("tool_calls").and_then(Value::as_array) {
        let has_text = v
            .get("content")
            .is_some_and(|c| !Content::parse(c).text().trim().is_empty());
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

fn parse_anthropic(v: &Value, out: &mut Vec<Item>) {
    let Some(blocks) = v.get("content").and_then(Value::as_array) else {
        out.push(Item::Message(v.clone()));
        return;
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
                flush(&mut rest, out);
                out.push(Item::Call {
                    id: str_field(b, "id"),
                    name: str_field(b, "name"),
                    args: b.get("input").cloned().unwrap_or(json!({})),
                });
            }
            Some("tool_result") => {
                flush(&mut rest, out);
                out.push(Item::Result {
                    id: str_field(b, "tool_use_id"),
                    content: Content::parse(b.get("content").unwrap_or(&Value::Null)),
                    is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
                });
            }
            _ => rest.push(b.clone()),
        }
    }
    flush(&mut rest, out);
}

/// A user message with plain text, in `format`.
pub fn user_text(format: Format, text: &str) -> Value {
    user_parts(format, &[Part::Text(text.to_string())])
}

/// A user message with these parts, in `format`.
pub fn user_parts(format: Format, parts: &[Part]) -> Value {
    match format {
        Format::Chat | Format::Responses => {
            json!({"role": "user", "content": content_value(parts, format, false)})
        }
        Format::Anthropic => json!({"role": "user", "content": Value::Array(
            parts.iter().map(|p| part_value(p, format, false)).collect()
        )}),
    }
}

/// A message in another format: its role and its content, part by part (an
/// image stays an image). `None` for an item `to` has no equivalent of (a
/// Responses `reasoning` item has no role).
pub fn convert_message(m: &Value, from: Format, to: Format) -> Option<Value> {
    if from == to {
        return Some(m.clone());
    }
    let role = m.get("role").and_then(Value::as_str)?;
    let content = Content::parse(m.get("content").unwrap_or(&Value::Null));
    let assistant = role == "assistant";
    Some(match to {
        Format::Anthropic => json!({"role": role, "content": Value::Array(
            content.parts.iter()
                .filter(|p| !matches!(p, Part::Text(t) if t.is_empty()))
                .map(|p| part_value(p, to, assistant)).collect()
        )}),
        Format::Chat | Format::Responses => {
            json!({"role": role, "content": content_value(&content.parts, to, assistant)})
        }
    })
}

/// Estimated tokens of a transcript: its JSON as text, each image at what
/// the model spends on it rather than at the length of its base64.
pub fn estimate_tokens(transcript: &Value) -> usize {
    fn blank_images(v: &mut Value, images: &mut usize) {
        if let Some(image) = image_of(v) {
            *images += image.tokens();
            *v = Value::Null;
            return;
        }
        match v {
            Value::Array(items) => items.iter_mut().for_each(|x| blank_images(x, images)),
            Value::Object(fields) => fields.values_mut().for_each(|x| blank_images(x, images)),
            _ => {}
        }
    }
    let mut images = 0;
    let mut text = transcript.clone();
    blank_images(&mut text, &mut images);
    tokens::estimate(&text.to_string()) + images
}
/// What an item `to` cannot carry is called in a report: `item of type
/// \`reasoning\``.
pub fn describe_item(m: &Value) -> String {
    match m.get("type").and_then(Value::as_str) {
        Some(kind) => format!("item of type `{kind}`"),
        None => "item without a role".to_string(),
    }
}

/// Makes the rendered items a valid transcript of `to`, and returns the
/// system prompt it must carry outside them. Anthropic takes the system
/// prompt only as the top-level `system` (a `system` role in `messages` is
/// rejected), rejects a message with no content, and wants user and
/// assistant turns to alternate — with a `tool_result` first in the user turn
/// right after its `tool_use`. Rendering splits a turn that mixed text and
/// tool calls into one message per pair, so consecutive messages of a role
/// are merged back here, tool results first.
pub fn finish(items: Vec<Value>, to: Format) -> (Vec<Value>, Option<String>) {
    if to != Format::Anthropic {
        return (items, None);
    }
    let mut system = Vec::new();
    let mut out: Vec<Value> = Vec::new();
    for m in items {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        if matches!(role, "system" | "developer") {
            system.push(Content::parse(m.get("content").unwrap_or(&Value::Null)).text());
            continue;
        }
        let blocks = blocks_of(m.get("content"));
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.get("role").and_then(Value::as_str) == Some(role) => {
                let mut merged = blocks_of(last.get("content"));
                merged.extend(blocks);
                // Stable: tool results move first, each group keeps its order.
                merged
                    .sort_by_key(|b| b.get("type").and_then(Value::as_str) != Some("tool_result"));
                if let Some(fields) = last.as_object_mut() {
                    fields.insert("content".to_string(), Value::Array(merged));
                }
            }
            // A message that merges with none is written as it came.
            _ => out.push(m),
        }
    }
    let system = system
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>();
    (out, (!system.is_empty()).then(|| system.join("\n\n")))
}

/// Content as Anthropic blocks: a string is one text block, an empty one none.
fn blocks_of(content: Option<&Value>) -> Vec<Value> {
    match content {
        Some(Value::Array(blocks)) => blocks.clone(),
        Some(Value::String(s)) if !s.is_empty() => vec![json!({"type": "text", "text": s})],
        _ => Vec::new(),
    }
}

/// The text of an Anthropic top-level `system` (a string or text blocks).
pub fn system_text(system: &Value) -> String {
    Content::parse(system).text()
}
