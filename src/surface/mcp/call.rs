//! Running one tool call: resolve the segment, parse the arguments into the
//! shared parameter structs, call the library, and render the answer for a
//! model (a compact text block) and for programs (`structuredContent`).
//!
//! Everything here is synchronous; the server runs it on tokio's blocking pool.
//! Every failure the model can fix becomes an `isError` result whose text says
//! what to do, never a protocol error the client would hide.

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::pool::{Pool, Reuse};
use super::render::{
    render_choices, render_evidence, render_get, render_grep, render_refs, render_search,
    render_window,
};
use super::tools::{
    self, EvidenceParams, GetParams, GrepParams, LinesParams, QueryParams, RefParams, RefsParams,
    SearchParams, SliceParams, SymbolParams, ToolName, ToolSet,
};
use crate::config::Settings;
use crate::error::Error;
use crate::relay::preview;
use crate::relay::resolve::{self, Part};
use crate::relay::store::{self, Access, Opened};
use crate::retrieve::Retriever;
use crate::retrieve::symbol::SymbolAnswer;
use crate::segment::Segment;
use crate::surface::jq_worker;

/// `internal_resource_read` returns at most this many characters: about the
/// 25,000-token limit Claude Code puts on one MCP result.
pub const READ_MAX_CHARS: usize = 100_000;

/// What the server serves: fixed at start.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// The segment served by default.
    pub segment: Segment,
    /// `--root DIR` (canonical): other segments under it may be named per call.
    pub root: Option<PathBuf>,
    /// Session of the relay references this server may read.
    pub session: String,
    /// Open retrievers, shared by all calls.
    pool: Arc<Pool>,
}

impl ServeConfig {
    /// A configuration serving `segment` (and, with `root`, the segments under it).
    pub fn new(segment: Segment, root: Option<PathBuf>, session: String) -> ServeConfig {
        ServeConfig {
            segment,
            root,
            session,
            pool: Arc::default(),
        }
    }

    /// The tools to list now: the relay tools appear once a relay store exists.
    pub fn tool_set(&self) -> ToolSet {
        ToolSet {
            relay: self.root.is_some() || self.segment.relay_dir().is_dir(),
            segments: self.root.is_some(),
            ..ToolSet::default()
        }
    }

    /// The segment a call names, or the default one.
    pub fn segment_for(&self, arg: Option<Value>) -> Result<Segment, String> {
        let name = match arg {
            None | Some(Value::Null) => return Ok(self.segment.clone()),
            Some(Value::String(name)) => name,
            Some(other) => {
                return Err(format!(
                    "`segment` must be a string (a segment name), not {other}"
                ));
            }
        };
        let Some(root) = &self.root else {
            return Err(format!(
                "this server serves only segment `{}`; the `segment` argument needs the server started with `ctx mcp --root DIR`. Call again without `segment`",
                self.segment.name
            ));
        };
        let seg = Segment::resolve(Some(&name), root, Some(root)).map_err(|e| e.to_string())?;
        // A symlink under the root may point anywhere; the canonical path decides.
        if !seg.root.starts_with(root) {
            return Err(format!(
                "segment `{}` resolves outside the server's root; name a directory under it",
                name.escape_debug()
            ));
        }
        Ok(seg)
    }

    fn access(&self) -> Access {
        Access {
            session: self.session.clone(),
            any_session: false,
        }
    }
}

/// Runs `tool` with `args`; every failure is an `isError` result. Also says
/// whether the call reused an open retriever (`None`: it used none).
pub fn call(
    config: &ServeConfig,
    tool: ToolName,
    mut args: JsonObject,
) -> (CallToolResult, Option<Reuse>) {
    let mut reuse = None;
    let outcome = config
        .segment_for(args.remove("segment"))
        .and_then(|seg| run(config, &seg, tool, args, &mut reuse));
    let result = match outcome {
        Ok(result) => result,
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    };
    (result, reuse)
}

fn run(
    config: &ServeConfig,
    seg: &Segment,
    tool: ToolName,
    args: JsonObject,
    reuse: &mut Option<Reuse>,
) -> Result<CallToolResult, String> {
    match tool {
        ToolName::Search => {
            let p: SearchParams = parse(config, tool, args)?;
            let result = retrieve(config, seg, reuse, |r| r.search(&p.query, &p.options()))?;
            Ok(answer(render_search(&p.query, &result), &result))
        }
        ToolName::Get => {
            let p: GetParams = parse(config, tool, args)?;
            let cap = settings(seg)?.max_budget;
            let result = retrieve(config, seg, reuse, |r| r.get(&p.ids, &p.options(cap)))
                // The library's advice names the CLI command; the model has the tool.
                .map_err(|e| e.replace("`ctx search`", "ctx_search"))?;
            Ok(answer(render_get(&result), &result))
        }
        ToolName::Evidence => {
            let p: EvidenceParams = parse(config, tool, args)?;
            let cap = settings(seg)?.max_budget;
            let ev = retrieve(config, seg, reuse, |r| {
                r.evidence(&p.query, &p.options(cap))
            })?;
            Ok(answer(render_evidence(&ev), &ev))
        }
        ToolName::Symbol => {
            let p: SymbolParams = parse(config, tool, args)?;
            let cap = settings(seg)?.max_budget;
            let found =
                retrieve(config, seg, reuse, |r| r.symbol(&p.options(cap))).map_err(|e| {
                    // The library's advice is a CLI command; the model has the tool.
                    as_symbol_call(e.replace(
                        &format!("`ctx search \"{}\" --kind code`", p.name),
                        &format!(
                            "ctx_search {}",
                            serde_json::json!({"query": p.name, "kind": "code"})
                        ),
                    ))
                })?;
            Ok(match found {
                SymbolAnswer::Window(w) => answer(render_window(&w), &w),
                SymbolAnswer::Choices(c) => answer(render_choices(&p.name, &c), &c),
            })
        }
        ToolName::Refs => {
            let p: RefsParams = parse(config, tool, args)?;
            let cap = settings(seg)?.max_budget;
            let found = retrieve(config, seg, reuse, |r| r.refs(&p.options(cap)))?;
            Ok(answer(render_refs(&found, p.all.unwrap_or(false)), &found))
        }
        ToolName::Length => {
            let p: RefParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let d = preview::describe(&opened.value, &opened.row.media);
            Ok(answer(d.render().trim_end().to_string(), &d))
        }
        ToolName::Slice => {
            let p: SliceParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let slice = resolve::slice(&opened.value, p.start_index, p.length);
            Ok(at_most(&opened.value, slice, &p.opaque_reference))
        }
        ToolName::Lines => {
            let p: LinesParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let lines = resolve::lines(&opened.value, p.start_line, p.line_count);
            Ok(at_most(&opened.value, lines, &p.opaque_reference))
        }
        ToolName::Read => {
            let p: RefParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let whole = resolve::read(&opened.value);
            Ok(at_most(&opened.value, whole, &p.opaque_reference))
        }
        ToolName::Grep => {
            let p: GrepParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let mut r = resolve::grep(&opened.value, &p.pattern, &p.options())
                .map_err(|e| e.to_string())?;
            let (text, shown) = render_grep(&r, None, &p.opaque_reference, READ_MAX_CHARS);
            // The structured copy holds what the text shows, within the cap too.
            r.matches.truncate(shown);
            Ok(answer(text, &r))
        }
        ToolName::Query => {
            let request = query_request(config, seg, args)?;
            Ok(query_answer(&request, jq_worker::run_blocking(&request)))
        }
    }
}

/// Runs `internal_resource_query` with `args`; the worker stops when
/// `cancelled` completes first (the client cancelled the call).
pub async fn query(
    config: Arc<ServeConfig>,
    mut args: JsonObject,
    cancelled: impl Future<Output = ()>,
) -> CallToolResult {
    let prepared = tokio::task::spawn_blocking(move || {
        let seg = config.segment_for(args.remove("segment"))?;
        query_request(&config, &seg, args)
    })
    .await
    .unwrap_or_else(|e| Err(format!("the query failed to start: {e}")));
    let request = match prepared {
        Ok(request) => request,
        Err(message) => return CallToolResult::error(vec![ContentBlock::text(message)]),
    };
    tokio::select! {
        ran = jq_worker::run(&request) => query_answer(&request, ran),
        () = cancelled => CallToolResult::error(vec![ContentBlock::text(
            "the call was cancelled; its query was stopped",
        )]),
    }
}

/// The worker's request for a query call: the stored file (after the
/// session check) and the options.
fn query_request(
    config: &ServeConfig,
    seg: &Segment,
    args: JsonObject,
) -> Result<jq_worker::Request, String> {
    let p: QueryParams = parse(config, ToolName::Query, args)?;
    let (row, file) =
        store::locate(seg, &p.opaque_reference, &config.access()).map_err(for_a_model)?;
    let options = p.options();
    Ok(jq_worker::Request {
        file,
        jq: p.jq,
        compact: options.compact,
        raw: options.raw,
        max_output_chars: options.max_output_chars,
        timeout: options.timeout,
        memory_bytes: jq_worker::memory_limit(row.bytes),
    })
}

/// A query's outputs as the model reads them, or its error.
fn query_answer(
    request: &jq_worker::Request,
    ran: Result<resolve::QueryResult, jq_worker::RunError>,
) -> CallToolResult {
    let r = match ran {
        Ok(r) => r,
        Err(e) => return CallToolResult::error(vec![ContentBlock::text(e.to_string())]),
    };
    let mut text = r.outputs.join("\n");
    if r.truncated {
        text.push_str(&format!(
            "\n[output cut at {} chars; narrow the filter, e.g. `.items[:20]`]",
            request.max_output_chars
        ));
    }
    if let Some(note) = &r.note {
        text.push_str(&format!("\n[{note}]"));
    }
    answer(text, &r)
}

/// Parses `args` into `T`, or a repair message naming the expected arguments.
fn parse<T: DeserializeOwned>(
    config: &ServeConfig,
    tool: ToolName,
    args: JsonObject,
) -> Result<T, String> {
    tools::parse_args(tool, config.tool_set(), Value::Object(args))
}

/// Runs `f` on the segment's last committed state. Before the first build has
/// written its pack, the catalog and index may be missing or half-made; any
/// failure then is reported as "no pack yet", which is the fix.
fn retrieve<T>(
    config: &ServeConfig,
    seg: &Segment,
    reuse: &mut Option<Reuse>,
    f: impl FnOnce(&Retriever) -> crate::error::Result<T>,
) -> Result<T, String> {
    let (out, how) = config.pool.with(seg, f).map_err(|e| {
        if matches!(e, Error::NoPack { .. }) || !seg.pack_path().exists() {
            format!(
                "segment `{}` has no context pack yet: run `ctx build -s {}` (ctx mcp builds it at start, so a first build may still be running; retry in a few seconds)",
                seg.name,
                seg.root.display()
            )
        } else {
            e.to_string()
        }
    })?;
    *reuse = Some(how);
    Ok(out)
}

/// The library's advice to run `ctx symbol NAME`, as the tool call that
/// does it.
fn as_symbol_call(message: String) -> String {
    const COMMAND: &str = "`ctx symbol ";
    let Some(at) = message.find(COMMAND) else {
        return message;
    };
    let rest = &message[at + COMMAND.len()..];
    let Some(end) = rest.find('`') else {
        return message;
    };
    let call = serde_json::json!({"name": &rest[..end]});
    format!("{}ctx_symbol {call}{}", &message[..at], &rest[end + 1..])
}

fn settings(seg: &Segment) -> Result<Settings, String> {
    Settings::load(&seg.config_path()).map_err(|e| e.to_string())
}

/// The stored value behind `reference`, read with this server's session.
pub fn open(config: &ServeConfig, seg: &Segment, reference: &str) -> Result<Opened, String> {
    store::open(seg, reference, &config.access()).map_err(for_a_model)
}

/// A library error as advice a model can follow (the command line's way to
/// read another session's reference is a flag a model cannot pass).
pub(crate) fn for_a_model(e: Error) -> String {
    match e {
        Error::OtherSession { .. } => {
            format!("{e}; this server cannot read it: use a reference returned in this session")
        }
        other => other.to_string(),
    }
}

fn answer<T: Serialize>(text: String, structured: &T) -> CallToolResult {
    with_structured(
        CallToolResult::success(vec![ContentBlock::text(text)]),
        serde_json::to_value(structured).unwrap_or(Value::Null),
    )
}

fn with_structured(mut result: CallToolResult, structured: Value) -> CallToolResult {
    result.structured_content = Some(structured);
    result
}

/// `p` of `value`, or its first [`READ_MAX_CHARS`] characters with the call
/// that reads on when it holds more (a whole value, many lines, or one line of
/// a minified JSON value): a tool answer must fit the host's cap.
fn at_most(value: &str, p: Part<'_>, reference: &str) -> CallToolResult {
    match resolve::capped(value, &p, READ_MAX_CHARS) {
        None => part(p, None),
        Some(cut) => {
            let note = format!(
                "{} asked, cut at {READ_MAX_CHARS} chars; read on with internal_resource_read_slice {{\"opaque_reference\":\"{reference}\",\"start_index\":{},\"length\":{READ_MAX_CHARS}}}, or use grep/query",
                p.describe(),
                cut.range[1]
            );
            part(cut, Some(note))
        }
    }
}

/// A piece of a value: a line saying which piece, then the text itself. The
/// structured copy leaves the text out (it can be 100,000 chars).
fn part(p: Part<'_>, note: Option<String>) -> CallToolResult {
    let mut header = format!("[{}", p.describe());
    if let Some(note) = &note {
        header.push_str("; ");
        header.push_str(note);
    }
    header.push(']');
    let mut structured = serde_json::json!({
        "range": p.range, "total": p.total, "unit": p.unit.as_str(),
    });
    if let Some(note) = note {
        structured["note"] = Value::from(note);
    }
    with_structured(
        CallToolResult::success(vec![ContentBlock::text(header), ContentBlock::text(p.text)]),
        structured,
    )
}
