//! The tools `ctx relay` adds to the child's: the resolve tools over boxed values
//! (`internal_resource_*`) and `ctx_search`/`ctx_get` over the segment, so boxed
//! outputs and project docs are searchable together.
//!
//! The tools are `ctx mcp`'s ([`crate::surface::mcp::tools`]): the same
//! definitions and argument structs, listed with [`PROXY_SET`], so a tool is
//! defined once. What differs is the handlers here: they cap answers at the relay
//! threshold and report in text only. Handlers are blocking (store, catalog,
//! index); the proxy runs them on tokio's blocking pool.
//!
//! Every answer is capped at the relay threshold: a tool whose job is to keep large
//! values out of the context must not pour one back in. What was cut is stated,
//! with the call that continues.

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::config::Settings;
use crate::error::Error;
use crate::pipeline::{self, BuildOptions};
use crate::relay::preview;
use crate::relay::resolve;
use crate::relay::store::{self, Access, Opened};
use crate::rerank::Reranker;
use crate::retrieve::Retriever;
use crate::segment::Segment;
use crate::surface::jq_worker;
use crate::surface::mcp::call::for_a_model;
use crate::surface::mcp::render::render_grep;
use crate::surface::mcp::tools::{
    self, Format, GetParams, GrepParams, LinesParams, QueryParams, RefParams, ScopeParam,
    SearchParams, SliceParams, ToolName, ToolSet,
};

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
    /// Sentence encoder that re-orders `ctx_search`'s hits, when configured.
    pub reranker: Option<Arc<Reranker>>,
}

/// The tools the proxy adds, as `ctx mcp` with a relay store lists them; `ctx_search`
/// covers docs and boxed outputs unless told otherwise, which is the proxy's point.
pub const PROXY_SET: ToolSet = ToolSet {
    relay: true,
    segments: false,
    search_scope: ScopeParam::All,
};

/// The added tools, in the order they are listed. `ctx_evidence`,
/// `ctx_symbol` and `ctx_refs` stay `ctx mcp`'s alone: the proxy adds what reads relayed
/// outputs (and the search that finds them), not a code browser.
pub fn local_tool_names() -> Vec<ToolName> {
    tools::listed(PROXY_SET)
        .into_iter()
        .filter(|t| !matches!(t, ToolName::Evidence | ToolName::Symbol | ToolName::Refs))
        .collect()
}

/// The added tools' definitions (MCP `Tool` objects), under their canonical names.
pub fn local_tools() -> Vec<Value> {
    local_tool_names()
        .into_iter()
        .map(|t| tools::render(&tools::definition(t, PROXY_SET), Format::Mcp))
        .collect()
}

/// The schema the proxy checks a call to `tool` against: the listed one, refusing
/// unknown fields as the argument structs do, so the repair message names them.
pub fn checked_schema(tool: ToolName) -> Value {
    let mut schema = Value::Object((*tools::definition(tool, PROXY_SET).input_schema).clone());
    schema["additionalProperties"] = Value::Bool(false);
    schema
}

/// Runs the added tool `name` (canonical) with `args`; `None` when `name` is not
/// one of them. The answer is an MCP `CallToolResult` without era fields.
pub fn call_local(name: &str, args: &Value, cx: &LocalContext) -> Option<Value> {
    let tool = ToolName::parse(name).filter(|t| local_tool_names().contains(t))?;
    Some(match run(tool, args, cx) {
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

/// The arguments of a call to `tool`, parsed as `ctx mcp` parses them.
fn parse<T: DeserializeOwned>(tool: ToolName, args: &Value) -> Result<T, String> {
    tools::parse_args(tool, PROXY_SET, args.clone())
}

fn run(tool: ToolName, args: &Value, cx: &LocalContext) -> Result<Vec<Value>, String> {
    let max_chars = cap_chars(cx.max_tokens);
    match tool {
        ToolName::Search => search(parse(tool, args)?, cx),
        ToolName::Get => get(parse(tool, args)?, cx),
        ToolName::Length => {
            let RefParams { opaque_reference } = parse(tool, args)?;
            let opened = open(cx, &opaque_reference)?;
            let d = preview::describe(&opened.value, &opened.row.media);
            Ok(vec![text(&format!(
                "{opaque_reference}: {}",
                d.render().trim_end()
            ))])
        }
        ToolName::Read => {
            let RefParams { opaque_reference } = parse(tool, args)?;
            let opened = open(cx, &opaque_reference)?;
            let whole = resolve::read(&opened.value);
            Ok(at_most(
                &opened.value,
                whole,
                &opaque_reference,
                cx.max_tokens,
            ))
        }
        ToolName::Slice => {
            let p: SliceParams = parse(tool, args)?;
            let opened = open(cx, &p.opaque_reference)?;
            let slice = resolve::slice(&opened.value, p.start_index, p.length);
            Ok(at_most(
                &opened.value,
                slice,
                &p.opaque_reference,
                cx.max_tokens,
            ))
        }
        ToolName::Lines => {
            let p: LinesParams = parse(tool, args)?;
            let opened = open(cx, &p.opaque_reference)?;
            let lines = resolve::lines(&opened.value, p.start_line, p.line_count);
            Ok(at_most(
                &opened.value,
                lines,
                &p.opaque_reference,
                cx.max_tokens,
            ))
        }
        ToolName::Grep => {
            let p: GrepParams = parse(tool, args)?;
            let opened = open(cx, &p.opaque_reference)?;
            let r = resolve::grep(&opened.value, &p.pattern, &p.options())
                .map_err(|e| e.to_string())?;
            let (out, _) = render_grep(
                &r,
                Some(&p.opaque_reference),
                &p.opaque_reference,
                max_chars,
            );
            Ok(vec![text(&out)])
        }
        ToolName::Query => {
            let request = query_request(args, cx)?;
            query_answer(jq_worker::run_blocking(&request))
        }
        ToolName::Evidence | ToolName::Symbol | ToolName::Refs => {
            Err(format!("`{}` is not a ctx relay tool", tool.as_str()))
        }
    }
}

/// Runs the added `internal_resource_query` with `args` in a worker process,
/// which is killed when `stopped` completes first (the client cancelled).
pub async fn query(args: Value, cx: LocalContext, stopped: impl Future<Output = ()>) -> Value {
    let prepared = tokio::task::spawn_blocking(move || query_request(&args, &cx))
        .await
        .unwrap_or_else(|e| Err(format!("the query failed to start: {e}")));
    let ran = match prepared {
        Ok(request) => tokio::select! {
            ran = jq_worker::run(&request) => query_answer(ran),
            () = stopped => Err("the call was cancelled; its query was stopped".to_string()),
        },
        Err(message) => Err(message),
    };
    match ran {
        Ok(blocks) => json!({"content": blocks, "isError": false}),
        Err(message) => error_result(&message),
    }
}

/// The worker's request for a query call, its output capped at the relay's cap.
fn query_request(args: &Value, cx: &LocalContext) -> Result<jq_worker::Request, String> {
    let p: QueryParams = parse(ToolName::Query, args)?;
    let (row, file) =
        store::locate(&cx.seg, &p.opaque_reference, &access(cx)).map_err(for_a_model)?;
    let defaults = p.options();
    Ok(jq_worker::Request {
        file,
        jq: p.jq,
        compact: defaults.compact,
        raw: defaults.raw,
        max_output_chars: cap_chars(cx.max_tokens).min(defaults.max_output_chars),
        timeout: defaults.timeout,
        memory_bytes: jq_worker::memory_limit(row.bytes),
    })
}

/// A query's outputs as one text block.
fn query_answer(
    ran: Result<resolve::QueryResult, jq_worker::RunError>,
) -> Result<Vec<Value>, String> {
    let r = ran.map_err(|e| e.to_string())?;
    let mut out = r.outputs.join("\n");
    if r.truncated {
        out.push_str("\n[output cut at the relay's cap; narrow the query]");
    }
    if let Some(note) = &r.note {
        out.push_str(&format!("\n[{note}]"));
    }
    Ok(vec![text(&out)])
}

/// The boxed value behind `reference`, if this session may read it.
fn open(cx: &LocalContext, reference: &str) -> Result<Opened, String> {
    store::open(&cx.seg, reference, &access(cx)).map_err(for_a_model)
}

fn access(cx: &LocalContext) -> Access {
    Access {
        session: cx.session.clone(),
        any_session: false,
    }
}

/// The relay's cap of `max_tokens` tokens, in characters.
fn cap_chars(max_tokens: usize) -> usize {
    max_tokens.saturating_mul(4).max(1000)
}

/// `part` of `value` as a header block and a text block, the text cut to the
/// relay's cap (a whole value, many lines, or one line of a minified JSON
/// value) with the call that reads on.
fn at_most(value: &str, part: resolve::Part<'_>, reference: &str, max_tokens: usize) -> Vec<Value> {
    let max_chars = cap_chars(max_tokens);
    let (shown, note) = match resolve::capped(value, &part, max_chars) {
        None => (part, String::new()),
        Some(cut) => {
            let note = format!(
                "; {} asked, cut by the relay's cap of ~{max_tokens} tokens. Continue with internal_resource_read_slice {{\"opaque_reference\": \"{reference}\", \"start_index\": {}, \"length\": {max_chars}}}, or use grep/query",
                part.describe(),
                cut.range[1]
            );
            (cut, note)
        }
    };
    // The text is its own block, so it stays exactly the stored characters.
    vec![
        text(&format!("[{}{note}]", shown.describe())),
        text(shown.text),
    ]
}

fn search(p: SearchParams, cx: &LocalContext) -> Result<Vec<Value>, String> {
    refresh(cx);
    let r = open_retriever(cx)?.with_reranker(cx.reranker.clone());
    let result = r
        .search(&p.query, &p.options_in(PROXY_SET))
        .map_err(|e| e.to_string())?;
    let mut out = crate::surface::mcp::render::render_search(&p.query, &result);
    if !result.hits.is_empty() {
        out.push_str("Read chunks with ctx_get {\"ids\": [\"…\"], \"mode\": \"excerpt\"}.\n");
    }
    Ok(vec![text(&out)])
}

fn get(p: GetParams, cx: &LocalContext) -> Result<Vec<Value>, String> {
    let r = open_retriever(cx)?;
    let mut options = p.options(cx.settings.max_budget);
    // The answer must fit under the relay threshold too.
    options.budget = options.budget.min(cx.max_tokens.max(1));
    let result = r.get(&p.ids, &options).map_err(|e| e.to_string())?;
    let out = crate::surface::mcp::render::render_get(&result);
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
