//! `ctx search`, `ctx get`, `ctx evidence`.
//!
//! Flags become the MCP tools' parameter structs and go through their mapping
//! functions (`surface::mcp::tools`), so the CLI and the MCP server cannot drift.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use super::{Cli, open};
use crate::config::Settings;
use crate::error::Error;
use crate::pipeline::{self, BuildOptions};
use crate::relay::store::DEFAULT_SESSION;
use crate::rerank::Reranker;
use crate::retrieve::{DEFAULT_BUDGET, Omitted, Retriever};
use crate::segment::Segment;
use crate::surface::mcp::tools::{
    DEFAULT_K, DEFAULT_MAX_CHUNKS, EvidenceParams, GetParams, KindParam, MAX_K, ModeParam,
    ScopeParam, SearchParams,
};
use crate::surface::output::{Printer, sanitize, sanitize_name};

/// A hit or chunk count: 1 to [`MAX_K`], refused with the range otherwise.
fn count_1_to_max() -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(1..=MAX_K as u64)
}

/// Arguments of `ctx search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The question or keywords (natural language; punctuation is fine).
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Number of hits (1 to 100).
    #[arg(short, long, default_value_t = DEFAULT_K,
          value_parser = count_1_to_max())]
    pub k: usize,
    /// Only documents whose path matches this glob (e.g. `docs/**`).
    #[arg(long, value_name = "GLOB")]
    pub doc: Option<String>,
    /// Only code, only docs, or all.
    #[arg(long, value_enum, default_value_t = KindParam::All)]
    pub kind: KindParam,
    /// Project docs, boxed tool outputs, or both.
    #[arg(long, value_enum, default_value_t = ScopeParam::Docs)]
    pub scope: ScopeParam,
    /// Do not build or refresh the pack first.
    #[arg(long)]
    pub no_build: bool,
    #[command(flatten)]
    pub rerank: RerankArgs,
}

/// How search hits are re-ranked (`ctx search`, `evidence`, `eval`, and the
/// relay proxy's `ctx_search`).
#[derive(Debug, Clone, clap::Args)]
pub struct RerankArgs {
    /// Re-rank the top hits with the sentence encoder in DIR (e.g.
    /// all-MiniLM-L6-v2); overrides `rerank_model` in `_ctx/ctx.toml`.
    #[arg(long, value_name = "DIR", env = "CTX_RERANK_MODEL")]
    pub rerank_model: Option<std::path::PathBuf>,
    /// Lexical ranking only, even when a rerank model is configured.
    #[arg(long, conflicts_with = "rerank_model")]
    pub no_rerank: bool,
}

impl RerankArgs {
    /// `r` with the re-ranker these flags and `settings` ask for.
    pub fn apply(
        &self,
        r: Retriever,
        seg: &Segment,
        settings: &Settings,
    ) -> crate::error::Result<Retriever> {
        Ok(r.with_reranker(self.reranker(seg, settings)?))
    }

    /// The re-ranker these flags and `settings` ask for, if any.
    pub fn reranker(
        &self,
        seg: &Segment,
        settings: &Settings,
    ) -> crate::error::Result<Option<Arc<Reranker>>> {
        let dir = crate::rerank::model_dir(
            &seg.root,
            settings.rerank_model.as_deref(),
            self.rerank_model.as_deref(),
        );
        Ok(match dir {
            Some(dir) if !self.no_rerank => Some(Arc::new(Reranker::load(&dir)?)),
            _ => None,
        })
    }
}

/// Arguments of `ctx get`.
#[derive(Debug, clap::Args)]
pub struct GetArgs {
    /// Chunk IDs, as printed by `ctx search`, file paths (all of a file's chunks, in order), or
    /// `path:START-END` / `path:LINE` (the chunks holding those lines, as search prints a hit's place).
    #[arg(required = true, num_args = 1..)]
    pub ids: Vec<String>,
    /// raw: whole chunks; excerpt: trimmed around the query; skeleton: headings and first lines.
    #[arg(long, value_enum, default_value_t = ModeParam::Raw)]
    pub mode: ModeParam,
    /// Token budget for all returned text.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    pub budget: usize,
    /// Words to center excerpts on.
    #[arg(long)]
    pub query: Option<String>,
    /// Do not build or refresh the pack first.
    #[arg(long)]
    pub no_build: bool,
}

/// Arguments of `ctx evidence`.
#[derive(Debug, clap::Args)]
pub struct EvidenceArgs {
    /// The question.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Token budget of the block.
    #[arg(long, default_value_t = DEFAULT_BUDGET)]
    pub budget: usize,
    /// At most this many chunks (1 to 100).
    #[arg(long, default_value_t = DEFAULT_MAX_CHUNKS,
          value_parser = count_1_to_max())]
    pub max_chunks: usize,
    /// Only documents whose path matches this glob.
    #[arg(long, value_name = "GLOB")]
    pub doc: Option<String>,
    /// Only code, only docs, or all.
    #[arg(long, value_enum, default_value_t = KindParam::All)]
    pub kind: KindParam,
    /// Do not build or refresh the pack first.
    #[arg(long)]
    pub no_build: bool,
    #[command(flatten)]
    pub rerank: RerankArgs,
}

/// Refreshes the pack quietly unless told not to. A build already running is not
/// waited for: the search reads the last committed state instead.
pub fn refresh(
    seg: &Segment,
    settings: &Settings,
    no_build: bool,
    p: &Printer,
) -> anyhow::Result<()> {
    refresh_and_open(seg, settings, no_build, p).map(drop)
}

/// [`refresh`], then the committed state opened for reading; the index the
/// refresh opened is reused, not opened again.
///
/// A first refresh that finds no file to read was run in the wrong
/// directory: the `_ctx/` it made is removed before the error, or it would
/// make this directory the project of every directory below it.
pub fn refreshed(
    seg: &Segment,
    settings: &Settings,
    no_build: bool,
    p: &Printer,
) -> anyhow::Result<Retriever> {
    let first = !no_build && !seg.ctx_dir().exists();
    let retriever = match refresh_and_open(seg, settings, no_build, p)? {
        Some((report, opened)) if first && report.files == 0 && report.warnings.is_empty() => {
            drop(opened);
            // Best effort: left behind, it only costs the hijack above.
            let _ = std::fs::remove_dir_all(seg.ctx_dir());
            return Err(Error::NothingIndexed {
                root: seg.root.clone(),
                boxed: false,
                skipped: Vec::new(),
            }
            .into());
        }
        Some((_, opened)) => Retriever::with_open(seg, &opened.index, opened.catalog)?,
        None => Retriever::open(seg)?,
    };
    Ok(retriever)
}

/// [`refresh`], returning the build's report and the index and catalog the
/// refresh committed to, or `None` when there was none (`no_build`, a build
/// running, sources gone).
fn refresh_and_open(
    seg: &Segment,
    settings: &Settings,
    no_build: bool,
    p: &Printer,
) -> anyhow::Result<Option<(pipeline::BuildReport, pipeline::Opened)>> {
    if no_build {
        return Ok(None);
    }
    let opts = BuildOptions {
        lock_timeout: Duration::ZERO,
        refresh_only: true,
        ..BuildOptions::default()
    };
    match pipeline::build_and_open(seg, settings, &opts) {
        Ok((r, opened)) => {
            if p.verbose > 0 && !r.noop {
                p.note(&format!(
                    "refreshed pack: {} changed, {} removed",
                    r.changed, r.removed
                ));
            }
            Ok(Some((r, opened)))
        }
        Err(Error::LockTimeout { .. }) if seg.index_dir().join("meta.json").exists() => Ok(None),
        Err(e @ Error::SourcesGone { .. }) => {
            p.warn(&e.to_string());
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

fn search_options(args: &SearchArgs) -> crate::retrieve::SearchOptions {
    let params = SearchParams {
        query: args.query.join(" "),
        k: Some(args.k),
        doc: args.doc.clone(),
        scope: Some(args.scope),
        kind: Some(args.kind),
    };
    params.options()
}

pub(super) fn search(cli: &Cli, p: &Printer, args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let r = refreshed(&seg, &settings, args.no_build, p)?;
    let r = args.rerank.apply(r, &seg, &settings)?;
    let query = args.query.join(" ");
    let result = r.search(&query, &search_options(args))?;
    if !p.json {
        for note in result.query_notes() {
            p.note(&format!("note: {}", sanitize(&note)));
        }
    }
    if p.json {
        p.json(&result);
    } else if result.no_evidence {
        p.text("No evidence in indexed context.\n");
        if let Some(note) = &result.note {
            p.note(&format!("note: {note}"));
        }
        if !result.suggestions.is_empty() {
            p.text("Nearest headings:\n");
            for s in &result.suggestions {
                p.text(&format!(
                    "  {}  {} ({})\n",
                    s.id,
                    sanitize_name(&s.title_path.join(" > ")),
                    sanitize_name(&s.doc)
                ));
            }
        }
        if result.relay_matches > 0 {
            p.text("Boxed tool outputs match this query: add `--scope relay` (or `all`) to search them.\n");
        }
    } else {
        // A boxed value of another session needs its session named to resolve.
        let mine = std::env::var("CTX_SESSION").unwrap_or_else(|_| DEFAULT_SESSION.into());
        for (i, h) in result.hits.iter().enumerate() {
            p.text(&format!(
                "{}. {}  {}\n   {}:{}-{}  ~{} tokens{}  score {:.2}\n   {}\n",
                i + 1,
                p.accent(&h.id),
                sanitize_name(&h.title_path.join(" > ")),
                sanitize_name(&h.doc),
                h.lines[0],
                h.lines[1],
                h.token_est,
                h.part_label(),
                h.score,
                p.dim(&sanitize(&h.preview)),
            ));
            // Hits number lines from one; `resolve lines` from zero. A piece
            // of a long line is read as a character slice.
            if let Some(b) = &h.boxed {
                let flag = if b.session == mine {
                    String::new()
                } else {
                    format!(" --session {}", b.session)
                };
                let call = b.read_call();
                let [(_, from), (_, count)] = call.args;
                p.text(&format!(
                    "   ctx resolve{flag} {} {} {from} {count}\n",
                    call.op, b.reference
                ));
            }
            for line in h.elsewhere() {
                p.text(&format!("   {}\n", sanitize(&line)));
            }
        }
    }
    super::leave_to_exit(r);
    Ok(if result.no_evidence {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub(super) fn get(cli: &Cli, p: &Printer, args: &GetArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let r = refreshed(&seg, &settings, args.no_build, p)?;
    let params = GetParams {
        ids: args.ids.clone(),
        mode: Some(args.mode),
        budget: Some(args.budget),
        query: args.query.clone(),
    };
    let result = r.get(&params.ids, &params.options(settings.max_budget))?;
    if p.json {
        p.json(&result);
    } else {
        let mut previous = None;
        for c in &result.chunks {
            if c.outline {
                p.text(&sanitize(&c.outline_text(previous)));
                previous = Some(c);
                continue;
            }
            previous = Some(c);
            if let Some(old) = &c.replaces {
                p.note(&format!(
                    "note: `{old}` is stale (its section changed); showing `{}`, now at the same heading",
                    c.id
                ));
            }
            p.text(&format!(
                "{} {}\n{}\n",
                p.accent(&format!("[{}]", c.id)),
                sanitize_name(&c.label()),
                sanitize(c.text.trim_end())
            ));
            if let Some(note) = c.part_note() {
                p.text(&format!("{note}\n"));
            }
        }
        for line in Omitted::lines(&result.omitted) {
            p.text(&format!("{}\n", sanitize(&line)));
        }
        if let Some(h) = &result.hint {
            p.note(&format!("hint: {h}"));
        }
    }
    super::leave_to_exit(r);
    Ok(ExitCode::SUCCESS)
}

pub(super) fn evidence(cli: &Cli, p: &Printer, args: &EvidenceArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let r = refreshed(&seg, &settings, args.no_build, p)?;
    let r = args.rerank.apply(r, &seg, &settings)?;
    let params = EvidenceParams {
        query: args.query.join(" "),
        budget: Some(args.budget),
        kind: Some(args.kind),
    };
    let mut options = params.options(settings.max_budget);
    options.max_chunks = args.max_chunks;
    options.search.doc_glob = args.doc.clone();
    let ev = r.evidence(&params.query, &options)?;
    if p.json {
        p.json(&ev);
    } else {
        p.text(&sanitize(&ev.render()));
        if ev.no_evidence
            && let Some(s) = &ev.search
        {
            for sug in &s.suggestions {
                p.text(&format!(
                    "  nearest: {}  {}\n",
                    sug.id,
                    sanitize_name(&sug.title_path.join(" > "))
                ));
            }
            if s.relay_matches > 0 {
                p.text(
                    "Boxed tool outputs match this query: `ctx search --scope relay` finds them.\n",
                );
            }
        }
        if let Some(h) = &ev.hint {
            p.note(&format!("hint: {h}"));
        }
    }
    super::leave_to_exit(r);
    Ok(if ev.no_evidence {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
