//! The tools `ctx relay` adds to the child's: the resolve tools over boxed values
//! (`internal_resource_*`) and `ctx_search`/`ctx_get` over the segment, so boxed
//! outputs and project docs are searchable together.
//!
//! Everything a tool is (definition and handler) sits behind [`local_tools`] and
//! [`call_local`], so the shared definitions of `ctx mcp` (issue 6) can replace
//! these in one place. Names and arguments follow issue 6. Handlers are blocking
//! (store, catalog, index); the proxy runs them on tokio's blocking pool.
//!
//! Every answer is capped at the relay threshold: a tool whose job is to keep large
//! values out of the context must not pour one back in. What was cut is stated,
//! with the call that continues.

use std::time::Duration;

use serde_json::{Value, json};

use crate::config::Settings;
use crate::error::Error;
use crate::pipeline::{self, BuildOptions};
use crate::relay::resolve::{self, GrepOptions, QueryOptions};
use crate::relay::store::{self, Access};
use crate::retrieve::{GetOptions, Mode, Retriever, Scope, SearchOptions};
use crate::segment::Segment;

/// What the local tools work on.
#[derive(Debug, Clone)]
pub struct LocalContext {
    /// The segment whose store and index are used.
    pub seg: Segment,
    /// Its settings (budget cap).
    pub settings: Settings,
    /// The proxy's session: references of other sessions are refused.
    pub session: String,
    /// Most estimated tokens one answer may carry.
    pub max_tokens: usize,
}

/// Canonical names of the added tools, in the order they are listed.
pub const LOCAL_TOOL_NAMES: [&str; 8] = [
    "internal_resource_read",
    "internal_resource_read_slice",
    "internal_resource_length",
    "internal_resource_read_lines",
    "internal_resource_grep",
    "internal_resource_query",
    "ctx_search",
    "ctx_get",
];

fn reference_property() -> Value {
    json!({"type": "string", "description": "An `internal://…` reference from a boxed tool result."})
}

fn tool(name: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    json!({
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": true, "openWorldHint": false}
    })
}

/// The added tools' definitions (MCP `Tool` objects), under their canonical names.
pub fn local_tools() -> Vec<Value> {
    let r = reference_property();
    vec![
        tool(
            "internal_resource_read",
            "Read a boxed tool output (`internal://…`) whole, up to the relay's size cap. Prefer read_lines, grep or query for large values. Example: {\"opaque_reference\": \"internal://k7qmz2xw4ra5tn3b\"}",
            json!({"opaque_reference": r}),
            &["opaque_reference"],
        ),
        tool(
            "internal_resource_read_slice",
            "Characters [start_index, start_index+length) of a boxed value; a negative start_index counts from the end. Example: {\"opaque_reference\": \"internal://…\", \"start_index\": -2000, \"length\": 2000}",
            json!({"opaque_reference": r, "start_index": {"type": "integer"}, "length": {"type": "integer", "minimum": 0}}),
            &["opaque_reference", "start_index", "length"],
        ),
        tool(
            "internal_resource_length",
            "Size of a boxed value in chars, bytes, lines and estimated tokens. Example: {\"opaque_reference\": \"internal://…\"}",
            json!({"opaque_reference": r}),
            &["opaque_reference"],
        ),
        tool(
            "internal_resource_read_lines",
            "Lines [start_line, start_line+line_count) of a boxed value, zero-based; a negative start_line counts from the end. Example: {\"opaque_reference\": \"internal://…\", \"start_line\": 0, \"line_count\": 100}",
            json!({"opaque_reference": r, "start_line": {"type": "integer"}, "line_count": {"type": "integer", "minimum": 0}}),
            &["opaque_reference", "start_line", "line_count"],
        ),
        tool(
            "internal_resource_grep",
            "Lines of a boxed value matching a regex (Rust syntax), with `window` lines of context (default 2). Example: {\"opaque_reference\": \"internal://…\", \"pattern\": \"error|warn\", \"window\": 1}",
            json!({"opaque_reference": r, "pattern": {"type": "string"}, "window": {"type": "integer", "minimum": 0}}),
            &["opaque_reference", "pattern"],
        ),
        tool(
            "internal_resource_query",
            "Run a jq program on a boxed JSON value. Example: {\"opaque_reference\": \"internal://…\", \"jq\": \".entities | length\"}",
            json!({"opaque_reference": r, "jq": {"type": "string"}}),
            &["opaque_reference", "jq"],
        ),
        tool(
            "ctx_search",
            "Search the project's docs and the boxed tool outputs of this session (BM25). Returns chunk IDs with previews; then read the best with ctx_get. Example: {\"query\": \"how to configure the build\", \"k\": 5}",
            json!({
                "query": {"type": "string", "description": "Natural-language question or keywords."},
                "k": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Number of hits (default 6)."},
                "doc": {"type": "string", "description": "Only documents whose path matches this glob, e.g. `docs/**`."},
                "scope": {"enum": ["docs", "relay", "all"], "description": "Project docs, boxed outputs, or both (default)."}
            }),
            &["query"],
        ),
        tool(
            "ctx_get",
            "Chunks by ID (from ctx_search) within a token budget. Example: {\"ids\": [\"guide:a8f3c1d2e4\"], \"mode\": \"excerpt\", \"query\": \"build\"}",
            json!({
                "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                "mode": {"enum": ["raw", "excerpt", "skeleton"], "description": "Whole chunks, trimmed around the query, or headings only (default raw)."},
                "budget": {"type": "integer", "minimum": 1, "description": "Token budget for all returned text (default 1200)."},
                "query": {"type": "string", "description": "Words to center excerpts on."}
            }),
            &["ids"],
        ),
    ]
}

/// Runs the added tool `name` (canonical) with `args`; `None` when `name` is not
/// one of them. The answer is an MCP `CallToolResult` without era fields.
pub fn call_local(name: &str, args: &Value, cx: &LocalContext) -> Option<Value> {
    if !LOCAL_TOOL_NAMES.contains(&name) {
        return None;
    }
    Some(match run(name, args, cx) {
        Ok(blocks) => json!({"content": blocks, "isError": false}),
        Err(message) => error_result(&message),
    })
}

/// A `CallToolResult` with `isError: true` and one text block.
pub fn error_result(message: &str) -> Value {
    json!({"content": [text(message)], "isError": true})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn run(name: &str, args: &Value, cx: &LocalContext) -> Result<Vec<Value>, String> {
    match name {
        "ctx_search" => return search(args, cx),
        "ctx_get" => return get(args, cx),
        _ => {}
    }
    let reference = string_arg(args, "opaque_reference")?;
    let access = Access {
        session: cx.session.clone(),
        any_session: false,
    };
    let opened = store::open(&cx.seg, &reference, &access).map_err(|e| e.to_string())?;
    let value = opened.value.as_str();
    let max_chars = cx.max_tokens.saturating_mul(4).max(1000);
    match name {
        "internal_resource_length" => {
            let l = resolve::length(value);
            Ok(vec![text(&format!(
                "{reference}: {} chars, {} bytes, {} lines, ~{} tokens ({})",
                l.chars, l.bytes, l.lines, l.tokens, opened.row.media
            ))])
        }
        "internal_resource_read" => {
            let part = resolve::slice(value, 0, max_chars);
            let mut blocks = Vec::new();
            if part.range[1] < part.total {
                blocks.push(text(&format!(
                    "[{}; cut at the relay's cap of ~{} tokens. Continue with internal_resource_read_slice {{\"opaque_reference\": \"{reference}\", \"start_index\": {}, \"length\": {max_chars}}}, or use grep/query]",
                    part.describe(),
                    cx.max_tokens,
                    part.range[1]
                )));
            }
            blocks.push(text(part.text));
            Ok(blocks)
        }
        "internal_resource_read_slice" => {
            let start = int_arg(args, "start_index")?;
            let length = usize_arg(args, "length")?;
            let part = resolve::slice(value, start, length.min(max_chars));
            Ok(part_blocks(&part, length > max_chars, cx.max_tokens))
        }
        "internal_resource_read_lines" => {
            let start = int_arg(args, "start_line")?;
            let count = usize_arg(args, "line_count")?;
            let part = resolve::lines(value, start, count);
            if part.text.len() > max_chars {
                // Too many lines for one answer: hand back a char slice of the
                // same start instead, so the caller can continue by characters.
                let cut = resolve::slice(part.text, 0, max_chars);
                let mut blocks = vec![text(&format!(
                    "[{}; cut to the first {} chars by the relay's cap of ~{} tokens; ask for fewer lines]",
                    part.describe(),
                    cut.range[1],
                    cx.max_tokens
                ))];
                blocks.push(text(cut.text));
                return Ok(blocks);
            }
            Ok(part_blocks(&part, false, cx.max_tokens))
        }
        "internal_resource_grep" => {
            let pattern = string_arg(args, "pattern")?;
            let window = match args.get("window") {
                None | Some(Value::Null) => 2,
                Some(_) => usize_arg(args, "window")?,
            };
            let r = resolve::grep(
                value,
                &pattern,
                &GrepOptions {
                    window: window.min(20),
                    ..GrepOptions::default()
                },
            )
            .map_err(|e| e.to_string())?;
            let mut out = format!("{}\n", r.header(Some(&reference)));
            for m in &r.matches {
                out.push_str(&m.render());
                if out.len() > max_chars {
                    out.push_str("[cut at the relay's cap; narrow the pattern]\n");
                    break;
                }
            }
            Ok(vec![text(&out)])
        }
        "internal_resource_query" => {
            let jq = string_arg(args, "jq")?;
            let r = resolve::query(
                value,
                &jq,
                &QueryOptions {
                    max_output_chars: max_chars.min(QueryOptions::default().max_output_chars),
                    timeout: Duration::from_secs(10),
                    ..QueryOptions::default()
                },
            )
            .map_err(|e| e.to_string())?;
            let mut out = r.outputs.join("\n");
            if r.truncated {
                out.push_str("\n[output cut at the relay's cap; narrow the query]");
            }
            Ok(vec![text(&out)])
        }
        _ => Err(format!("`{name}` is not a ctx relay tool")),
    }
}

fn part_blocks(part: &resolve::Part<'_>, capped: bool, max_tokens: usize) -> Vec<Value> {
    let mut header = format!("[{}", part.describe());
    if capped {
        header.push_str(&format!(
            "; length cut by the relay's cap of ~{max_tokens} tokens"
        ));
    }
    header.push(']');
    // The text is its own block, so it stays exactly the stored characters.
    vec![text(&header), text(part.text)]
}

fn search(args: &Value, cx: &LocalContext) -> Result<Vec<Value>, String> {
    let query = string_arg(args, "query")?;
    let k = match args.get("k") {
        None | Some(Value::Null) => 6,
        Some(_) => usize_arg(args, "k")?.clamp(1, 50),
    };
    let scope = match args.get("scope").and_then(Value::as_str) {
        None | Some("all") => Scope::All,
        Some("docs") => Scope::Docs,
        Some("relay") => Scope::Relay,
        Some(other) => return Err(format!("unknown scope `{other}`; use docs, relay or all")),
    };
    refresh(cx);
    let r = open_retriever(cx)?;
    let opts = SearchOptions {
        k,
        doc_glob: args.get("doc").and_then(Value::as_str).map(str::to_string),
        scope,
        ..SearchOptions::default()
    };
    let result = r.search(&query, &opts).map_err(|e| e.to_string())?;
    let mut out = crate::surface::mcp::call::render_search(&query, &result);
    if !result.hits.is_empty() {
        out.push_str("Read chunks with ctx_get {\"ids\": [\"…\"], \"mode\": \"excerpt\"}.\n");
    }
    Ok(vec![text(&out)])
}

fn get(args: &Value, cx: &LocalContext) -> Result<Vec<Value>, String> {
    let ids: Vec<String> = match args.get("ids") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or("`ids` must be an array of strings")?,
        Some(Value::String(s)) => vec![s.clone()],
        _ => return Err("`ids` is required: an array of chunk IDs from ctx_search".into()),
    };
    let mode = match args.get("mode").and_then(Value::as_str) {
        None | Some("raw") => Mode::Raw,
        Some("excerpt") => Mode::Excerpt,
        Some("skeleton") => Mode::Skeleton,
        Some(other) => {
            return Err(format!(
                "unknown mode `{other}`; use raw, excerpt or skeleton"
            ));
        }
    };
    let budget = match args.get("budget") {
        None | Some(Value::Null) => crate::retrieve::DEFAULT_BUDGET,
        Some(_) => usize_arg(args, "budget")?,
    };
    let r = open_retriever(cx)?;
    let result = r
        .get(
            &ids,
            &GetOptions {
                mode,
                budget: budget.min(cx.max_tokens.max(1)),
                cap: cx.settings.max_budget,
                query: args
                    .get("query")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
        )
        .map_err(|e| e.to_string())?;
    let out = crate::surface::mcp::call::render_get(&result);
    Ok(vec![text(&out)])
}

/// Brings the docs index up to date when the segment has a pack; a build already
/// running is not waited for (the search reads the last committed state).
fn refresh(cx: &LocalContext) {
    if !cx.seg.pack_path().exists() {
        return;
    }
    let opts = BuildOptions {
        lock_timeout: Duration::ZERO,
        refresh_only: true,
        ..BuildOptions::default()
    };
    // A failed refresh leaves the last committed state, which is still worth
    // searching; the build's own errors surface on `ctx build`.
    let _ = pipeline::build(&cx.seg, &cx.settings, &opts);
}

fn open_retriever(cx: &LocalContext) -> Result<Retriever, String> {
    Retriever::open(&cx.seg).map_err(|e| match e {
        Error::NoPack { .. } => format!(
            "nothing is indexed in `{}` yet: no project docs were built (`ctx build`) and no tool output was boxed",
            cx.seg.root.display()
        ),
        other => other.to_string(),
    })
}

fn string_arg(args: &Value, key: &str) -> Result<String, String> {
    match args.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(format!(
            "`{key}` must be a string, received {}",
            super::schema_check::json_type(other)
        )),
        None => Err(format!("`{key}` is required")),
    }
}

fn int_arg(args: &Value, key: &str) -> Result<i64, String> {
    args.get(key)
        .and_then(Value::as_i64)
        .ok_or_else(|| format!("`{key}` is required and must be an integer"))
}

fn usize_arg(args: &Value, key: &str) -> Result<usize, String> {
    args.get(key)
        .and_then(Value::as_u64)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
        .ok_or_else(|| format!("`{key}` must be a non-negative integer"))
}
