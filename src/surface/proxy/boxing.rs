//! Boxing large `tools/call` results: which parts of a `CallToolResult` are stored
//! out of band, and what the client gets in their place.
//!
//! The rules (documented for users in `ctx relay --help` and the README):
//! - **Text** (text blocks, embedded `resource` text, and `structuredContent` as
//!   JSON) counts in estimated tokens against `--threshold`. When the total is over
//!   it, the largest parts are boxed one by one (each at least 256 tokens) until
//!   what stays inline is under a quarter of the threshold; if many small text
//!   blocks still exceed the threshold, they are boxed together, joined by `\n`.
//!   A boxed text part is stored byte for byte, so handing its reference to
//!   another tool reproduces it exactly.
//! - **Binary** (image and audio `data`, embedded `resource` `blob`) is not text a
//!   model reads, so it does not count against the token threshold. Below
//!   `--binary-threshold` bytes of base64 it passes through untouched (a model may
//!   need to see the image); above, the base64 string is boxed as is, and
//!   `resources/read` of the reference returns it as a `blob` with the original
//!   `mimeType` (after a proxy restart: as base64 text, the MIME type is not stored).
//! - **`structuredContent`** that only repeats a text block (the same JSON, or an
//!   object whose one field is that text or that JSON, as server-filesystem and
//!   server-memory send) is
//!   dropped when that block is boxed; otherwise, when large, it is boxed as
//!   pretty-printed JSON (`internal_resource_query` works on it) and removed from
//!   the result. Clients validate `structuredContent` against `outputSchema`, so the
//!   proxy drops `outputSchema` from every tool it lists (see `rewrite`).
//! - Each boxed part becomes a short text block (reference, size, preview, the
//!   tools that inspect it) followed by a `resource_link` block, at the part's
//!   place. `isError`, unknown fields and small blocks are kept as they were;
//!   `_meta["ctx/boxed"]` lists the references.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::relay::preview::{self, PreviewOptions};
use crate::relay::store::{self, BoxOptions, Threshold};
use crate::segment::Segment;
use crate::tokens;

/// Parts smaller than this many tokens are never boxed alone: the preview and
/// link would cost about as much as the part.
const MIN_PART_TOKENS: usize = 256;

/// How boxing is done; shared with blocking tasks.
#[derive(Debug, Clone)]
pub struct BoxConfig {
    /// Segment holding the store.
    pub seg: Segment,
    /// Session the references belong to.
    pub session: String,
    /// Text over this many estimated tokens is boxed.
    pub threshold_tokens: usize,
    /// Binary payloads over this many base64 bytes are boxed.
    pub binary_threshold: usize,
    /// Wait for the build lock while indexing a boxed value.
    pub lock_timeout: Duration,
    /// Canonical added-tool name -> name the client sees (prefixed on collision).
    pub tool_names: Arc<Mutex<HashMap<String, String>>>,
    /// Boxed binary payloads of this process: ID -> MIME type.
    pub blobs: Arc<Mutex<HashMap<String, String>>>,
}

impl BoxConfig {
    /// Whether a result line of `len` bytes could hold anything to box. Decoded
    /// text is never longer than its JSON, so small lines skip all work.
    pub fn may_box(&self, len: usize) -> bool {
        len / 4 > self.threshold_tokens || len > self.binary_threshold
    }

    fn exposed(&self, canonical: &str) -> String {
        self.tool_names
            .lock()
            .ok()
            .and_then(|m| m.get(canonical).cloned())
            .unwrap_or_else(|| canonical.to_string())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    ResourceText,
    Binary,
    Structured,
}

#[derive(Debug)]
struct Part {
    /// Index in `content`, or `None` for `structuredContent`.
    block: Option<usize>,
    kind: Kind,
    /// Estimated tokens (text) or base64 bytes (binary).
    size: usize,
}

/// Boxes the large parts of `result` in place and returns the references made
/// (none: the result is unchanged).
pub fn box_result(result: &mut Value, tool: &str, cfg: &BoxConfig) -> Result<Vec<String>, Error> {
    let Some(obj) = result.as_object_mut() else {
        return Ok(Vec::new());
    };
    let (parts, duplicate_of) = parts(obj);
    let chosen = choose(&parts, cfg);
    if chosen.individual.is_empty() && chosen.joined.is_empty() {
        return Ok(Vec::new());
    }
    let mut replaced: HashMap<usize, Vec<Value>> = HashMap::new();
    let mut references = Vec::new();
    let mut trailer = Vec::new();
    let drop_structured = duplicate_of.is_some_and(|b| {
        chosen.individual.iter().any(|&p| parts[p].block == Some(b)) || chosen.joined.contains(&b)
    });
    let content = obj.get("content").and_then(Value::as_array);
    for &p in &chosen.individual {
        let part = &parts[p];
        let (value, mime, what) = match (part.kind, part.block) {
            (Kind::Structured, _) => {
                let sc = obj.get("structuredContent").unwrap_or(&Value::Null);
                let text = serde_json::to_string_pretty(sc).unwrap_or_default();
                (text, None, "its structuredContent".to_string())
            }
            (_, Some(i)) => {
                let block = content.and_then(|c| c.get(i)).unwrap_or(&Value::Null);
                block_payload(block, part.kind)
            }
            (_, None) => continue,
        };
        let note = if drop_structured && part.block.is_some() && part.block == duplicate_of {
            " (its structuredContent repeated this text and was dropped)"
        } else {
            ""
        };
        let blocks = boxed_blocks(tool, &value, mime.as_deref(), &what, note, cfg)?;
        references.push(blocks.0);
        match part.block {
            Some(i) if part.kind != Kind::Structured => {
                replaced.insert(i, blocks.1);
            }
            _ => trailer.extend(blocks.1),
        }
    }
    if !chosen.joined.is_empty() {
        let texts: Vec<&str> = chosen
            .joined
            .iter()
            .filter_map(|&i| content.and_then(|c| c.get(i)))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        let value = texts.join("\n");
        let what = format!("{} text blocks, joined by newlines", texts.len());
        let note = if drop_structured {
            " (its structuredContent repeated this text and was dropped)"
        } else {
            ""
        };
        let (reference, blocks) = boxed_blocks(tool, &value, None, &what, note, cfg)?;
        references.push(reference);
        if let Some(first) = chosen.joined.iter().min() {
            replaced.insert(*first, blocks);
        }
    }
    let old = match obj.get_mut("content") {
        Some(Value::Array(a)) => std::mem::take(a),
        _ => Vec::new(),
    };
    let mut new_content = Vec::with_capacity(old.len() + 2);
    for (i, block) in old.into_iter().enumerate() {
        if let Some(blocks) = replaced.remove(&i) {
            new_content.extend(blocks);
        } else if !chosen.joined.contains(&i) {
            new_content.push(block);
        }
    }
    new_content.extend(trailer);
    obj.insert("content".into(), Value::Array(new_content));
    let structured_boxed = chosen
        .individual
        .iter()
        .any(|&p| parts[p].kind == Kind::Structured);
    if drop_structured || structured_boxed {
        obj.shift_remove("structuredContent");
    }
    let meta = obj
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(m) = meta {
        m.insert(
            "ctx/boxed".into(),
            Value::Array(references.iter().map(|r| json!({"ref": r})).collect()),
        );
    }
    Ok(references)
}

/// The boxable parts of a result, and which text block `structuredContent`
/// merely repeats (if any).
fn parts(obj: &Map<String, Value>) -> (Vec<Part>, Option<usize>) {
    let mut parts = Vec::new();
    let mut texts: Vec<(usize, &str)> = Vec::new();
    if let Some(Value::Array(content)) = obj.get("content") {
        for (i, block) in content.iter().enumerate() {
            let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
            let resource = block.get("resource");
            let (kind, payload) = match kind {
                "text" => (Kind::Text, block.get("text")),
                "image" | "audio" => (Kind::Binary, block.get("data")),
                "resource" => match resource.and_then(|r| r.get("text")) {
                    Some(t) => (Kind::ResourceText, Some(t)),
                    None => (Kind::Binary, resource.and_then(|r| r.get("blob"))),
                },
                _ => continue,
            };
            let Some(payload) = payload.and_then(Value::as_str) else {
                continue;
            };
            let size = match kind {
                Kind::Binary => payload.len(),
                _ => tokens::estimate(payload),
            };
            if kind == Kind::Text {
                texts.push((i, payload));
            }
            parts.push(Part {
                block: Some(i),
                kind,
                size,
            });
        }
    }
    let mut duplicate_of = None;
    if let Some(sc) = obj.get("structuredContent") {
        duplicate_of = texts.iter().find(|(_, t)| repeats(sc, t)).map(|(i, _)| *i);
        if duplicate_of.is_none() {
            let size = serde_json::to_string(sc)
                .map(|s| tokens::estimate(&s))
                .unwrap_or(0);
            parts.push(Part {
                block: None,
                kind: Kind::Structured,
                size,
            });
        }
    }
    (parts, duplicate_of)
}

/// Whether `structuredContent` carries nothing but `text`: the same string in a
/// one-field object (server-filesystem), or the same JSON, alone or in a
/// one-field object (server-memory: `{"entities": [...]}` beside the array).
fn repeats(sc: &Value, text: &str) -> bool {
    let inner = match sc {
        Value::Object(o) if o.len() == 1 => o.values().next(),
        _ => None,
    };
    if inner.and_then(Value::as_str) == Some(text) {
        return true;
    }
    let trimmed = text.trim_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return false;
    }
    // Compared as values, not text: servers indent and order keys their own way.
    match serde_json::from_str::<Value>(text) {
        Ok(parsed) => &parsed == sc || Some(&parsed) == inner,
        Err(_) => false,
    }
}

struct Chosen {
    individual: Vec<usize>,
    joined: HashSet<usize>,
}

fn choose(parts: &[Part], cfg: &BoxConfig) -> Chosen {
    let mut individual: Vec<usize> = (0..parts.len())
        .filter(|&p| parts[p].kind == Kind::Binary && parts[p].size > cfg.binary_threshold)
        .collect();
    let texty: Vec<usize> = (0..parts.len())
        .filter(|&p| parts[p].kind != Kind::Binary)
        .collect();
    let mut remaining: usize = texty.iter().map(|&p| parts[p].size).sum();
    let mut joined = HashSet::new();
    if remaining > cfg.threshold_tokens {
        let mut by_size = texty.clone();
        by_size.sort_by_key(|&p| std::cmp::Reverse(parts[p].size));
        let keep_inline = cfg.threshold_tokens / 4;
        for p in by_size {
            if remaining <= keep_inline || parts[p].size < MIN_PART_TOKENS {
                break;
            }
            individual.push(p);
            remaining -= parts[p].size;
        }
        if remaining > cfg.threshold_tokens {
            joined = texty
                .iter()
                .filter(|&&p| parts[p].kind == Kind::Text && !individual.contains(&p))
                .filter_map(|&p| parts[p].block)
                .collect();
        }
    }
    Chosen { individual, joined }
}

/// The stored value of a block, its MIME type when binary, and how to name it.
fn block_payload(block: &Value, kind: Kind) -> (String, Option<String>, String) {
    let resource = block.get("resource");
    let field = |v: Option<&Value>, key: &str| {
        v.and_then(|v| v.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    match kind {
        Kind::Text => (
            field(Some(block), "text").unwrap_or_default(),
            None,
            "a text block".into(),
        ),
        Kind::ResourceText => (
            field(resource, "text").unwrap_or_default(),
            None,
            format!(
                "the embedded resource {}",
                field(resource, "uri").unwrap_or_default()
            ),
        ),
        _ => {
            let (data, mime, what) = match resource {
                Some(r) => (
                    field(Some(r), "blob"),
                    field(Some(r), "mimeType"),
                    format!(
                        "the binary embedded resource {} (base64)",
                        field(Some(r), "uri").unwrap_or_default()
                    ),
                ),
                None => (
                    field(Some(block), "data"),
                    field(Some(block), "mimeType"),
                    format!(
                        "{} {} data (base64)",
                        field(Some(block), "type").unwrap_or_default(),
                        field(Some(block), "mimeType").unwrap_or_default()
                    ),
                ),
            };
            (
                data.unwrap_or_default(),
                Some(mime.unwrap_or_else(|| "application/octet-stream".into())),
                what,
            )
        }
    }
}

/// Stores one value; returns its reference and the blocks that replace it.
fn boxed_blocks(
    tool: &str,
    value: &str,
    binary_mime: Option<&str>,
    what: &str,
    note: &str,
    cfg: &BoxConfig,
) -> Result<(String, Vec<Value>), Error> {
    let row = store::store_value(
        &cfg.seg,
        value,
        &BoxOptions {
            tool: tool.to_string(),
            session: cfg.session.clone(),
            threshold: Threshold::Tokens(cfg.threshold_tokens),
            lock_timeout: cfg.lock_timeout,
        },
    )?;
    let reference = format!("internal://{}", row.id);
    let name = |c: &str| cfg.exposed(c);
    let text = match binary_mime {
        Some(mime) => {
            if let Ok(mut blobs) = cfg.blobs.lock() {
                blobs.insert(row.id.clone(), mime.to_string());
            }
            format!(
                "[ctx relay] `{tool}` returned {what}: {} bytes of base64 {mime}, stored as {reference} (not shown, to save context). \
                 `resources/read` of {reference} returns it as a blob; pass \"{reference}\" as an argument to any tool of this server to hand it the exact base64.",
                row.bytes
            )
        }
        None => {
            let media = preview::media_type(value);
            let opts = PreviewOptions {
                max_tokens: 350,
                ..PreviewOptions::default()
            };
            let rendered = preview::preview(value, media, &opts).render();
            let query = if row.media == "json" {
                format!(
                    ", {} {{\"opaque_reference\": \"{reference}\", \"jq\": \"keys\"}}",
                    name("internal_resource_query")
                )
            } else {
                String::new()
            };
            format!(
                "[ctx relay] `{tool}` returned {what} too large for the context{note}; it is stored as {reference}.\n{rendered}\
                 Inspect it with {} {{\"opaque_reference\": \"{reference}\", \"start_line\": 0, \"line_count\": 100}}, \
                 {} {{\"opaque_reference\": \"{reference}\", \"pattern\": \"…\"}}{query}, {}, or {} {{\"query\": \"…\", \"scope\": \"relay\"}}. \
                 To give the full value to a tool, pass \"{reference}\" as the argument: ctx relay substitutes it.",
                name("internal_resource_read_lines"),
                name("internal_resource_grep"),
                name("internal_resource_read_slice"),
                name("ctx_search"),
            )
        }
    };
    let mime = binary_mime
        .map(str::to_string)
        .unwrap_or_else(|| preview::media_type(value).mime().to_string());
    let link = json!({
        "type": "resource_link",
        "uri": reference,
        "name": format!("{tool} result"),
        "mimeType": mime,
        "size": row.bytes,
        "description": format!("Full output of `{tool}` ({what}), stored by ctx relay; read with resources/read or the internal_resource_* tools."),
        "annotations": {"audience": ["assistant"]}
    });
    Ok((reference, vec![json!({"type": "text", "text": text}), link]))
}
