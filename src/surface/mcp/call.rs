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
use super::tools::{
    self, EvidenceParams, GetParams, GrepParams, LinesParams, QueryParams, RefParams, SearchParams,
    SliceParams, SymbolParams, ToolName, ToolSet,
};
use crate::config::Settings;
use crate::error::Error;
use crate::relay::preview;
use crate::relay::resolve::{self, Part};
use crate::relay::store::{self, Access, Opened};
use crate::retrieve::symbol::{Candidate, SymbolAnswer, Window};
use crate::retrieve::{Duplicate, Evidence, GetResult, Omitted, Retriever, SearchResult};
use crate::segment::Segment;

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
                    e.replace(
                        &format!("`ctx search \"{}\" --kind code`", p.name),
                        &format!(
                            "ctx_search {}",
                            serde_json::json!({"query": p.name, "kind": "code"})
                        ),
                    )
                })?;
            Ok(match found {
                SymbolAnswer::Window(w) => answer(render_window(&w), &w),
                SymbolAnswer::Choices(c) => answer(
                    render_choices(&p.name, &c),
                    &serde_json::json!({ "candidates": c }),
                ),
            })
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
            Ok(part(
                resolve::slice(&opened.value, p.start_index, p.length),
                None,
            ))
        }
        ToolName::Lines => {
            let p: LinesParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            Ok(part(
                resolve::lines(&opened.value, p.start_line, p.line_count),
                None,
            ))
        }
        ToolName::Read => {
            let p: RefParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let whole = resolve::read(&opened.value);
            if whole.total <= READ_MAX_CHARS {
                return Ok(part(whole, None));
            }
            let note = format!(
                "cut at {READ_MAX_CHARS} chars; read on with internal_resource_read_slice {{\"opaque_reference\":\"{}\",\"start_index\":{READ_MAX_CHARS},\"length\":{READ_MAX_CHARS}}}, or use grep/lines",
                p.opaque_reference
            );
            Ok(part(
                resolve::slice(&opened.value, 0, READ_MAX_CHARS),
                Some(note),
            ))
        }
        ToolName::Grep => {
            let p: GrepParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let r = resolve::grep(&opened.value, &p.pattern, &p.options())
                .map_err(|e| e.to_string())?;
            Ok(answer(render_grep(&r), &r))
        }
        ToolName::Query => {
            let p: QueryParams = parse(config, tool, args)?;
            let opened = open(config, seg, &p.opaque_reference)?;
            let options = p.options();
            let r = resolve::query(&opened.value, &p.jq, &options).map_err(|e| e.to_string())?;
            let mut text = r.outputs.join("\n");
            if r.truncated {
                text.push_str(&format!(
                    "\n[output cut at {} chars; narrow the filter, e.g. `.items[:20]`]",
                    options.max_output_chars
                ));
            }
            Ok(answer(text, &r))
        }
    }
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

fn settings(seg: &Segment) -> Result<Settings, String> {
    Settings::load(&seg.config_path()).map_err(|e| e.to_string())
}

/// The stored value behind `reference`, read with this server's session.
pub fn open(config: &ServeConfig, seg: &Segment, reference: &str) -> Result<Opened, String> {
    store::open(seg, reference, &config.access()).map_err(|e| {
        // The library's hint names a CLI flag a model cannot pass.
        e.to_string().replace(
            "pass --any-session to read it",
            "this server cannot read it: use a reference returned in this session",
        )
    })
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

/// Said when a search of the docs found nothing but boxed tool outputs match.
const RELAY_HINT: &str =
    "Boxed tool outputs match this query: call ctx_search with scope \"relay\" (or \"all\").";

/// The text a model reads for a search (shared with the relay proxy's `ctx_search`).
pub(crate) fn render_search(query: &str, r: &SearchResult) -> String {
    if r.no_evidence {
        let mut out = format!(
            "No evidence in indexed context for: {query}\nSay the indexed docs do not cover it rather than guessing."
        );
        for note in r.note.iter().cloned().chain(r.absent_note()) {
            out.push_str(&format!("\nNote: {note}."));
        }
        if !r.suggestions.is_empty() {
            out.push_str("\nNearest headings (not answers):");
            for s in &r.suggestions {
                out.push_str(&format!(
                    "\n  {}  {} ({})",
                    s.id,
                    s.title_path.join(" > "),
                    s.doc
                ));
            }
        }
        if r.relay_matches > 0 {
            out.push('\n');
            out.push_str(RELAY_HINT);
        }
        return out;
    }
    let mut out = r
        .absent_note()
        .map(|n| format!("Note: {n}.\n"))
        .unwrap_or_default();
    for (i, h) in r.hits.iter().enumerate() {
        // A hit inside a boxed tool output names its reference, so the model
        // can resolve or pass it on.
        let boxed = h
            .boxed
            .as_ref()
            .map(|b| {
                format!(
                    ", boxed output {} start_line {} line_count {}",
                    b.reference, b.start_line, b.line_count
                )
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "{}. {}  {} ({}:{}-{}, ~{} tokens{boxed})\n   {}\n",
            i + 1,
            h.id,
            h.title_path.join(" > "),
            h.doc,
            h.lines[0],
            h.lines[1],
            h.token_est,
            h.preview
        ));
        if !h.duplicates.is_empty() {
            out.push_str(&format!("   also in {}\n", Duplicate::list(&h.duplicates)));
        }
    }
    out
}

/// The text a model reads for fetched chunks (shared with the relay proxy).
pub(crate) fn render_get(r: &GetResult) -> String {
    let mut out = String::new();
    let mut previous = None;
    for c in &r.chunks {
        if c.outline {
            out.push_str(&c.outline_text(previous));
            previous = Some(c);
            continue;
        }
        previous = Some(c);
        if let Some(old) = &c.replaces {
            out.push_str(&format!(
                "(`{old}` is stale: its section changed; this is the chunk now at the same heading)\n"
            ));
        }
        out.push_str(&format!(
            "[{}] {} ({}:{}-{}, ~{} tokens{})\n{}\n\n",
            c.id,
            c.title_path.join(" > "),
            c.doc,
            c.lines[0],
            c.lines[1],
            c.token_est,
            if c.trimmed { ", trimmed" } else { "" },
            c.text.trim_end()
        ));
    }
    for line in Omitted::lines(&r.omitted) {
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(h) = &r.hint {
        // The library's hint speaks CLI (`--budget`, `--mode`); say it in arguments.
        out.push_str(&format!(
            "hint: {}\n",
            h.replace("--budget", "budget").replace("--mode", "mode")
        ));
    }
    out.trim_end().to_string()
}

fn render_window(w: &Window) -> String {
    if !w.members.is_empty() {
        return render_members(w);
    }
    let mut out = format!(
        "[{}] {} {} ({}:{}-{})\n{}",
        w.id,
        w.kind,
        w.symbol,
        w.doc,
        w.lines[0],
        w.lines[1],
        w.text.trim_end()
    );
    if !w.duplicates.is_empty() {
        out.push_str(&format!(
            "\nThe same code is also in {}.",
            Duplicate::list(&w.duplicates)
        ));
    }
    if let Some(h) = &w.hint {
        out.push_str(&format!("\nhint: {h}"));
    }
    if w.truncated {
        out.push_str(&format!(
            "\n[cut at line {} of {} by the budget of {} tokens{}; the file's outline: ctx_get {}]",
            w.lines[1],
            w.wanted_to,
            w.budget.applied,
            if w.budget.clamped {
                " (the cap)"
            } else {
                "; pass a larger budget for the rest"
            },
            serde_json::json!({"ids": [w.doc], "mode": "skeleton"})
        ));
    }
    out
}

/// A container over the budget: its header, then one signature per member.
fn render_members(w: &Window) -> String {
    let mut out = format!(
        "[{}] {} {} ({}:{}-{}, outline)\n{}",
        w.id,
        w.kind,
        w.symbol,
        w.doc,
        w.symbol_lines[0],
        w.symbol_lines[1],
        w.text.trim_end()
    );
    for m in &w.members {
        out.push_str(&format!(
            "\n[{}] {}-{}  {}",
            m.id, m.lines[0], m.lines[1], m.signature
        ));
    }
    if let Some(h) = &w.hint {
        out.push_str(&format!("\nhint: {h}"));
    }
    out.push_str(&format!(
        "\n[the whole {} is ~{} tokens, over the budget of {}: its header and members' signatures are shown; see a member with ctx_symbol {}{}]",
        w.kind,
        w.full_token_est,
        w.budget.applied,
        serde_json::json!({"name": w.members[0].symbol, "file": w.doc}),
        if w.budget.clamped {
            String::new()
        } else {
            format!(", or pass \"budget\": {}", w.full_token_est)
        }
    ));
    if let Some(more) = &w.more_members {
        out.push_str(&format!("\n[{}]", more.describe("\"budget\":")));
    }
    out
}

fn render_choices(name: &str, found: &[Candidate]) -> String {
    let mut out = format!(
        "{} symbols match `{name}`; call ctx_symbol again with \"file\", a qualified name or its ID as \"name\":",
        found.len()
    );
    for c in found.iter().take(20) {
        out.push_str(&format!(
            "\n  {} {}  {}:{}-{}  {}",
            c.kind, c.symbol, c.doc, c.lines[0], c.lines[1], c.id
        ));
        if !c.duplicates.is_empty() {
            out.push_str(&format!(" (also in {})", Duplicate::list(&c.duplicates)));
        }
    }
    if found.len() > 20 {
        out.push_str(&format!("\n  … and {} more", found.len() - 20));
    }
    out
}

fn render_evidence(ev: &Evidence) -> String {
    let mut out = ev.render();
    if let Some(h) = &ev.hint {
        out.push_str(&format!("hint: {h}\n"));
    }
    if ev.no_evidence {
        out.push_str("Say the indexed docs do not cover it rather than guessing.\n");
        if let Some(s) = &ev.search {
            for sug in &s.suggestions {
                out.push_str(&format!(
                    "  nearest heading: {}  {}\n",
                    sug.id,
                    sug.title_path.join(" > ")
                ));
            }
            if s.relay_matches > 0 {
                out.push_str(RELAY_HINT);
                out.push('\n');
            }
        }
    }
    out.trim_end().to_string()
}

fn render_grep(r: &resolve::GrepResult) -> String {
    let mut out = format!("{}\n", r.header(None));
    for m in &r.matches {
        out.push_str(&m.render());
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_evidence_points_to_matching_boxed_outputs() {
        let mut r = SearchResult {
            hits: Vec::new(),
            no_evidence: true,
            coverage: 0.1,
            suggestions: Vec::new(),
            relay_matches: 0,
            note: None,
            absent: Vec::new(),
        };
        assert!(!render_search("q", &r).contains("scope \"relay\""));
        r.relay_matches = 2;
        let text = render_search("q", &r);
        assert!(
            text.ends_with("call ctx_search with scope \"relay\" (or \"all\")."),
            "{text}"
        );
    }

    #[test]
    fn absent_words_are_named_with_or_without_hits() {
        let r = SearchResult {
            hits: Vec::new(),
            no_evidence: true,
            coverage: 0.4,
            suggestions: Vec::new(),
            relay_matches: 0,
            note: None,
            absent: vec!["jemalloc".into(), "PGO".into()],
        };
        let text = render_search("q", &r);
        assert!(
            text.contains("\nNote: no indexed text contains \"jemalloc\" or \"PGO\"."),
            "{text}"
        );
        let r = SearchResult {
            no_evidence: false,
            ..r
        };
        assert!(
            render_search("q", &r).starts_with("Note: no indexed text contains"),
            "{}",
            render_search("q", &r)
        );
    }
}
