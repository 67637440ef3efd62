//! What an agent sees in place of a boxed value: its media type, its size, its
//! first and last lines and, for JSON, its shape with jq paths that work as-is.
//!
//! The preview is the agent's only view of the value before it asks for a part,
//! so it answers "what is this and how do I get at it" within a fixed budget
//! (≤ ~600 tokens however large the value is).

use serde::Serialize;

use super::nesting;
use super::resolve::{self, Length};
use crate::tokens;

mod shape;
mod values;

pub use shape::{JsonShape, ValuesOf, json_shape};
pub use values::Category;

/// Sniffed kind of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MediaType {
    /// A JSON object or array.
    Json,
    /// An HTML document or tag soup.
    Html,
    /// Markdown with ATX headings or code fences.
    Markdown,
    /// Anything else.
    Text,
}

impl MediaType {
    /// File extension for the stored value, so `rg`/`jq` on the relay folder work.
    pub fn extension(self) -> &'static str {
        match self {
            MediaType::Json => "json",
            MediaType::Html => "html",
            MediaType::Markdown => "md",
            MediaType::Text => "txt",
        }
    }

    /// The MIME type, as used in MCP `resource_link` blocks.
    pub fn mime(self) -> &'static str {
        match self {
            MediaType::Json => "application/json",
            MediaType::Html => "text/html",
            MediaType::Markdown => "text/markdown",
            MediaType::Text => "text/plain",
        }
    }

    /// Short lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            MediaType::Json => "json",
            MediaType::Html => "html",
            MediaType::Markdown => "markdown",
            MediaType::Text => "text",
        }
    }
}

/// How many bytes from the start the HTML and Markdown sniffers look at.
const SNIFF_BYTES: usize = 64 * 1024;

/// Sniffs the media type: JSON (object or array that parses), HTML, Markdown, text.
pub fn media_type(value: &str) -> MediaType {
    let trimmed = value.trim_start_matches(['\u{feff}', ' ', '\t', '\r', '\n']);
    // Only containers count as JSON: a bare `42` or `"ok"` tool output is text to
    // a reader. The first-character check keeps the full parse for likely JSON,
    // and `IgnoredAny` validates without building a tree (and without recursing,
    // so any depth parses). JSON nested past what jq is given reads as text.
    if trimmed.starts_with(['{', '['])
        && serde_json::from_str::<serde::de::IgnoredAny>(value.trim_start_matches('\u{feff}'))
            .is_ok()
        && !nesting::nests_deeper(trimmed, nesting::MAX_JSON_DEPTH)
    {
        return MediaType::Json;
    }
    let head = prefix(trimmed, SNIFF_BYTES);
    let opening = prefix(head, 64).to_ascii_lowercase();
    if opening.starts_with("<!doctype html") || opening.starts_with("<html") {
        return MediaType::Html;
    }
    let lines = head.lines().count().max(1);
    let tags = count_tags(head);
    // Tag-dense text is HTML; Markdown with a few inline tags or badges is not.
    if tags >= 10 && tags * 2 >= lines && head.contains("</") {
        return MediaType::Html;
    }
    if looks_like_markdown(head) {
        return MediaType::Markdown;
    }
    MediaType::Text
}

fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Counts `<name` and `</name` openings.
fn count_tags(text: &str) -> usize {
    let bytes = text.as_bytes();
    text.match_indices('<')
        .filter(|(i, _)| {
            let next = bytes.get(i + 1).copied().unwrap_or(0);
            let after = bytes.get(i + 2).copied().unwrap_or(0);
            next.is_ascii_alphabetic() || (next == b'/' && after.is_ascii_alphabetic())
        })
        .count()
}

/// ATX headings that open a block (first line or after a blank line) or a closed
/// fence pair. Runs of `# comment` lines in scripts do not open blocks, so they
/// count once at most.
fn looks_like_markdown(text: &str) -> bool {
    let (mut headings, mut fences) = (0, 0);
    let mut previous_blank = true;
    for line in text.lines() {
        let hashes = line.bytes().take_while(|&b| b == b'#').count();
        if previous_blank && (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            headings += 1;
        }
        if line.starts_with("```") || line.starts_with("~~~") {
            fences += 1;
        }
        previous_blank = line.trim().is_empty();
    }
    headings >= 2 || fences >= 2 || (headings == 1 && fences >= 1)
}

/// Options for [`preview`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewOptions {
    /// Lines shown from the start.
    pub head_lines: usize,
    /// Lines shown from the end.
    pub tail_lines: usize,
    /// Each shown line is cut to this many chars.
    pub max_line_chars: usize,
    /// JSON keys described (top level first, then one level down).
    pub max_keys: usize,
    /// Budget for [`Preview::render`], in estimated tokens.
    pub max_tokens: usize,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        PreviewOptions {
            head_lines: 8,
            tail_lines: 4,
            max_line_chars: 200,
            max_keys: 16,
            max_tokens: 600,
        }
    }
}

/// Everything an agent needs to decide what to ask for next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preview {
    /// Sizes of the value.
    pub length: Length,
    /// Sniffed media type.
    pub media: MediaType,
    /// First lines, each cut to `max_line_chars`.
    pub head: Vec<String>,
    /// Last lines (none when `head` already reaches the end).
    pub tail: Vec<String>,
    /// JSON shape, for JSON values.
    pub shape: Option<JsonShape>,
    /// Render budget in estimated tokens.
    pub max_tokens: usize,
}

/// Builds the preview of a value (JSON is parsed once; other media are not).
pub fn preview(value: &str, media: MediaType, opts: &PreviewOptions) -> Preview {
    let length = resolve::length(value);
    let head_count = opts.head_lines.min(length.lines);
    let tail_count = opts.tail_lines.min(length.lines - head_count);
    let cut = |line: &str| clip(line.strip_suffix('\r').unwrap_or(line), opts.max_line_chars);
    let head = value.split('\n').take(head_count).map(cut).collect();
    let mut tail: Vec<String> = value
        .strip_suffix('\n')
        .unwrap_or(value)
        .rsplit('\n')
        .take(tail_count)
        .map(cut)
        .collect();
    tail.reverse();
    let shape = match media {
        MediaType::Json => json_shape(value, opts.max_keys),
        _ => None,
    };
    Preview {
        length,
        media,
        head,
        tail,
        shape,
        max_tokens: opts.max_tokens,
    }
}

impl Preview {
    /// A compact text block within `max_tokens`: header, shape, jq examples, then
    /// first and last lines as far as the budget goes (omissions are counted).
    pub fn render(&self) -> String {
        let budget = self.max_tokens.max(60);
        let Length {
            chars,
            lines,
            tokens,
            ..
        } = self.length;
        // The tail is reserved first: the last lines of a tool output (exit status,
        // totals, the final error) are often what the agent needs.
        let tail = self.render_lines("last", &self.tail, budget / 4);
        let limit = budget.saturating_sub(tokens::estimate(&tail));
        let mut out = format!(
            "{} value: {chars} chars, {lines} lines, ~{tokens} tokens\n",
            self.media.as_str()
        );
        if let Some(shape) = &self.shape {
            // The shape may use about half the budget; lines get the rest.
            let used = tokens::estimate(&out);
            out.push_str(&shape.render(
                (budget / 2).saturating_sub(used),
                limit.saturating_sub(used),
            ));
        }
        let room = limit.saturating_sub(tokens::estimate(&out));
        out.push_str(&self.render_lines("first", &self.head, room));
        out.push_str(&tail);
        out
    }

    fn render_lines(&self, which: &str, lines: &[String], budget: usize) -> String {
        if lines.is_empty() {
            return String::new();
        }
        let mut block = String::new();
        let mut shown = 0;
        for line in lines {
            let entry = format!("  {line}\n");
            if tokens::estimate(&block) + tokens::estimate(&entry) + 8 > budget {
                break;
            }
            block.push_str(&entry);
            shown += 1;
        }
        if shown == 0 {
            return String::new();
        }
        let header = if shown < lines.len() {
            format!("{which} {shown} lines (of {} shown here):\n", lines.len())
        } else {
            format!("{which} {shown} lines:\n")
        };
        header + &block
    }
}

/// Cuts to `max` chars with a `…` and the number of chars left out.
fn clip(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    match line.char_indices().nth(max) {
        Some((end, _)) => {
            let rest = line[end..].chars().count();
            format!("{}… (+{rest} chars)", &line[..end])
        }
        None => line.to_string(),
    }
}

/// Stored JSON values up to this size have their shape described on
/// `length`; a larger one would cost a parse of its whole text for a question
/// about its size (its box-time preview described it already).
pub const SHAPE_ON_LENGTH_MAX_BYTES: usize = 64 << 20;

/// What `length` answers about a stored value: its sizes, its media type and,
/// for JSON, its shape (the keys a jq filter needs; the preview that listed
/// them may be long gone from the conversation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Described {
    /// Sizes.
    #[serde(flatten)]
    pub length: Length,
    /// Media type recorded when the value was boxed.
    pub media: String,
    /// Shape of a JSON value small enough to parse on the spot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<JsonShape>,
}

/// Describes a stored `value` of media type `media`.
pub fn describe(value: &str, media: &str) -> Described {
    let shape = (media == MediaType::Json.as_str() && value.len() <= SHAPE_ON_LENGTH_MAX_BYTES)
        .then(|| json_shape(value, PreviewOptions::default().max_keys))
        .flatten();
    Described {
        length: resolve::length(value),
        media: media.to_string(),
        shape,
    }
}

impl Described {
    /// One line of sizes, then the shape within about 300 tokens.
    pub fn render(&self) -> String {
        let l = self.length;
        let mut out = format!(
            "{} chars, {} bytes, {} lines, ~{} tokens ({})\n",
            l.chars, l.bytes, l.lines, l.tokens, self.media
        );
        if let Some(shape) = &self.shape {
            out.push_str(&shape.render(150, 300));
        }
        out
    }
}

#[cfg(test)]
mod tests;
