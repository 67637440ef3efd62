//! `ctx box`, `ctx resolve`, `ctx unbox`, `ctx relay` (the MCP proxy) and `ctx relay gc`.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{Cli, open};
use crate::error::Error;
use crate::relay::preview;
use crate::relay::resolve::{self, GrepOptions};
use crate::relay::store::{self, Access, BoxOptions, Boxed, DEFAULT_SESSION, Threshold};
use crate::surface::jq_worker;
use crate::surface::mcp::tools::DEFAULT_WINDOW;
use crate::surface::output::{Printer, sanitize};

/// Session options shared by the relay commands.
#[derive(Debug, Args, Clone)]
pub struct SessionArgs {
    /// Session of the references (default: $CTX_SESSION, else `default`).
    // Global, so they may follow `resolve`'s operation too (`ctx resolve
    // length REF --any-session`), where the error that names them is read.
    #[arg(long, env = "CTX_SESSION", default_value = DEFAULT_SESSION, global = true)]
    pub session: String,
    /// Also resolve references of other sessions.
    #[arg(long, global = true)]
    pub any_session: bool,
}

impl SessionArgs {
    fn access(&self) -> anyhow::Result<Access> {
        Ok(Access {
            session: store::check_session(&self.session)?,
            any_session: self.any_session,
        })
    }
}

/// A library error, with the flag that reads another session's reference.
fn with_session_hint(e: Error) -> anyhow::Error {
    match e {
        Error::OtherSession { .. } => anyhow::anyhow!("{e}; pass --any-session to read it"),
        other => other.into(),
    }
}

/// Reference forms printed by `ctx box`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Boxing {
    /// `internal://<id>`.
    Opaque,
    /// `{"type":"resource_link","uri":"internal://<id>"}`.
    Json,
}

/// Arguments of `ctx box`.
#[derive(Debug, Args)]
pub struct BoxArgs {
    /// Name of the tool that produced the value.
    #[arg(long, default_value = "value")]
    pub tool: String,
    /// Form of the printed reference.
    #[arg(long, value_enum, default_value_t = Boxing::Opaque)]
    pub boxing: Boxing,
    /// Also print size, media type, first/last lines and JSON shape.
    #[arg(long)]
    pub preview: bool,
    /// Box values above this many estimated tokens (default: ctx.toml, else 10000).
    #[arg(long, conflicts_with = "threshold_chars")]
    pub threshold_tokens: Option<usize>,
    /// Box values above this many characters instead.
    #[arg(long)]
    pub threshold_chars: Option<usize>,
    #[command(flatten)]
    pub session: SessionArgs,
}

/// `ctx resolve` operations.
#[derive(Debug, Subcommand)]
pub enum ResolveCmd {
    /// Size in chars, bytes, lines and tokens.
    Length {
        /// `internal://<id>`.
        reference: String,
    },
    /// Characters `[start, start+length)`; a negative start counts from the end.
    Slice {
        /// `internal://<id>`.
        reference: String,
        /// First character (negative: from the end).
        #[arg(allow_negative_numbers = true)]
        start: i64,
        /// Number of characters.
        length: usize,
    },
    /// Lines `[start, start+count)`, zero-based; a negative start counts from the end.
    Lines {
        /// `internal://<id>`.
        reference: String,
        /// First line (negative: from the end).
        #[arg(allow_negative_numbers = true)]
        start: i64,
        /// Number of lines.
        count: usize,
    },
    /// Lines matching a regular expression, with context.
    Grep {
        /// `internal://<id>`.
        reference: String,
        /// Regex (Rust `regex` syntax).
        pattern: String,
        /// Context lines before and after each match (grep's `-C`).
        #[arg(long, short = 'C', visible_alias = "context", default_value_t = DEFAULT_WINDOW)]
        window: usize,
        /// Case-insensitive.
        #[arg(short = 'i', long)]
        ignore_case: bool,
        /// At most this many matches (grep's `-m`).
        #[arg(long, short = 'm', visible_alias = "max-count", default_value_t = 50)]
        max_results: usize,
    },
    /// A jq program over a JSON value.
    Query {
        /// `internal://<id>`.
        reference: String,
        /// The jq filter.
        jq: String,
        /// One line per output (no pretty printing).
        #[arg(long)]
        compact: bool,
        /// Strings without quotes.
        #[arg(short, long)]
        raw: bool,
        /// Stop after this many characters of output.
        #[arg(long, default_value_t = 20_000)]
        max_output_chars: usize,
        /// Give up after this many seconds.
        #[arg(long, default_value_t = 10)]
        timeout: u64,
    },
    /// The whole value (last resort: prefer slice, lines, grep or query).
    Read {
        /// `internal://<id>`.
        reference: String,
    },
}

/// Arguments of `ctx resolve`.
#[derive(Debug, Args)]
pub struct ResolveArgs {
    #[command(subcommand)]
    pub op: ResolveCmd,
    #[command(flatten)]
    pub session: SessionArgs,
}

/// Arguments of `ctx unbox`.
#[derive(Debug, Args)]
pub struct UnboxArgs {
    #[command(flatten)]
    pub session: SessionArgs,
}

/// `ctx relay` subcommands.
#[derive(Debug, Subcommand)]
pub enum RelayCmd {
    /// Remove boxed values older than a duration (files, rows, index entries).
    Gc {
        /// Age, e.g. `7d`, `12h`, `30m`, `45s`.
        #[arg(long, value_parser = parse_duration)]
        older_than: Duration,
    },
    /// Check a recorded transcript against a prompt case (YAML front matter).
    Check {
        /// The case file (`--glob` checks many instead).
        #[arg(required_unless_present = "glob")]
        case: Option<std::path::PathBuf>,
        /// The transcript (JSON lines written by `ctx relay --record`).
        #[arg(long, required_unless_present = "glob")]
        transcript: Option<std::path::PathBuf>,
        /// Check every case matching this glob, each against `<case stem><suffix>` beside it.
        #[arg(long, conflicts_with_all = ["case", "transcript"])]
        glob: Option<String>,
        /// Transcript name suffix used with `--glob`.
        #[arg(long, default_value = ".jsonl")]
        suffix: String,
    },
}

const PROXY_HELP: &str = "\
Proxy: `ctx relay [OPTIONS] -- <server command...>` starts the MCP server as a child and relays
stdio both ways. Results over --threshold are stored under _ctx/relay/<session>/ (searchable)
and replaced by a preview, an `internal://` reference and a `resource_link`; references passed
as tool arguments are replaced by the stored value; `resources/read` of a reference is answered.
Added tools: internal_resource_{read,read_slice,length,read_lines,grep,query}, ctx_search, ctx_get
(renamed `ctx_<name>` when the server has a tool of that name).
Choices: `outputSchema` is removed from the listed tools (clients reject boxed results without
schema-valid structuredContent); large structuredContent is boxed as JSON and removed, or dropped
when it only repeats a boxed text block; image/audio/blob data passes through below
--binary-threshold and is boxed as exact base64 above it. Examples:
  ctx relay --threshold 4000 -s ~/project -- npx -y @modelcontextprotocol/server-filesystem ~/data
  ctx relay gc --older-than 7d";

/// Arguments of `ctx relay`: the proxy, or a maintenance subcommand.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, after_long_help = PROXY_HELP)]
pub struct RelayArgs {
    /// Maintenance instead of the proxy.
    #[command(subcommand)]
    pub cmd: Option<RelayCmd>,
    #[command(flatten)]
    pub proxy: ProxyArgs,
    /// The MCP server to start, after `--`.
    #[arg(last = true, value_name = "SERVER_COMMAND")]
    pub command: Vec<String>,
}

/// Options of the proxy.
#[derive(Debug, Args)]
pub struct ProxyArgs {
    /// Box results over this many estimated tokens (default: ctx.toml `relay.threshold_tokens`, else 10000).
    #[arg(long, value_name = "TOKENS")]
    pub threshold: Option<usize>,
    /// Box image, audio and blob payloads over this many bytes of base64.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    pub binary_threshold: usize,
    /// Session of the references (default: $CTX_SESSION, else a new `proxy-<random>` per run); reuse a name to keep references across restarts.
    #[arg(long, env = "CTX_SESSION")]
    pub session: Option<String>,
    /// Do not check tool arguments against the tool's inputSchema.
    #[arg(long)]
    pub no_validate: bool,
    /// Answer a tool call the server has not answered after this many seconds with an error.
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    pub call_timeout: f64,
    /// Append each tool call and result, as the client saw them, to this file (JSON lines).
    #[arg(long, value_name = "FILE")]
    pub record: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub rerank: super::search::RerankArgs,
}

/// Parses `7d`, `12h`, `30m`, `45s`, `2w`. A bare number is refused: `7`
/// read as seconds made `gc --older-than 7` delete everything but the last
/// seven seconds' boxes, where days were meant.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let (num, unit) = s.split_at(s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len()));
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{s}` is not a duration; use e.g. 7d, 12h, 30m or 45s"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 604_800,
        "" => {
            return Err(format!(
                "`{s}` has no unit; give the age with one of s, m, h, d, w (e.g. `{s}d` for {s} days)"
            ));
        }
        _ => {
            return Err(format!(
                "unknown unit `{unit}` in `{s}`; use s, m, h, d or w"
            ));
        }
    };
    n.checked_mul(seconds)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("`{s}` is too long a duration"))
}

fn read_stdin() -> anyhow::Result<String> {
    let mut buf = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut buf)
        .map_err(|e| Error::io("cannot read", "<stdin>", e))?;
    String::from_utf8(buf).map_err(|e| {
        Error::Invalid(format!(
            "stdin is not UTF-8 (invalid byte at offset {}); ctx boxes text values only",
            e.utf8_error().valid_up_to()
        ))
        .into()
    })
}

pub(super) fn box_cmd(cli: &Cli, p: &Printer, args: &BoxArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let value = read_stdin()?;
    let threshold = match (
        args.threshold_chars,
        args.threshold_tokens,
        settings.relay.threshold_chars,
    ) {
        (Some(c), _, _) => Threshold::Chars(c),
        (None, Some(t), _) => Threshold::Tokens(t),
        (None, None, Some(c)) => Threshold::Chars(c),
        (None, None, None) => Threshold::Tokens(settings.relay.threshold_tokens),
    };
    let opts = BoxOptions {
        tool: args.tool.clone(),
        session: store::check_session(&args.session.session)?,
        threshold,
        lock_timeout: Duration::from_secs(60),
    };
    let (row, reused) = match store::box_value(&seg, &value, &opts)? {
        Boxed::PassThrough => {
            if p.json {
                p.json(&serde_json::json!({"boxed": false, "value": value}));
            } else {
                // Byte-identical: no newline added.
                let mut out = std::io::stdout().lock();
                out.write_all(value.as_bytes())?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        Boxed::Stored(row) => (row, false),
        Boxed::Reused(row) => (row, true),
    };
    let uri = format!("internal://{}", row.id);
    if p.json {
        p.json(&serde_json::json!({
            "boxed": true,
            "reused": reused,
            "reference": uri,
            "resource_link": {"type": "resource_link", "uri": uri},
            "box": row,
            "preview": args.preview.then(|| store::describe(&row, &value)),
        }));
    } else {
        match args.boxing {
            Boxing::Opaque => p.text(&format!("{uri}\n")),
            Boxing::Json => p.text(&format!(
                "{}\n",
                serde_json::json!({"type": "resource_link", "uri": uri})
            )),
        }
        if args.preview {
            p.text(&sanitize(&store::describe(&row, &value)));
            p.text("\n");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The reference and the pattern (or jq filter) of `grep`/`query`, also when
/// written in grep's own order (`grep PATTERN internal://ID`): a reference in
/// the second place and none in the first can only mean that.
fn in_order<'a>(reference: &'a str, operand: &'a str) -> (&'a str, &'a str) {
    if !reference.starts_with(crate::relay::reference::SCHEME)
        && operand.starts_with(crate::relay::reference::SCHEME)
    {
        (operand, reference)
    } else {
        (reference, operand)
    }
}

pub(super) fn resolve_cmd(cli: &Cli, p: &Printer, args: &ResolveArgs) -> anyhow::Result<ExitCode> {
    let (seg, _) = open(cli)?;
    let access = args.session.access()?;
    let (reference, operand) = match &args.op {
        ResolveCmd::Length { reference }
        | ResolveCmd::Slice { reference, .. }
        | ResolveCmd::Lines { reference, .. }
        | ResolveCmd::Read { reference } => (reference.as_str(), ""),
        ResolveCmd::Grep {
            reference,
            pattern: operand,
            ..
        }
        | ResolveCmd::Query {
            reference,
            jq: operand,
            ..
        } => in_order(reference, operand),
    };
    if let ResolveCmd::Query {
        compact,
        raw,
        max_output_chars,
        timeout,
        ..
    } = &args.op
    {
        let (row, file) = store::locate(&seg, reference, &access).map_err(with_session_hint)?;
        let request = jq_worker::Request {
            file,
            jq: operand.to_string(),
            compact: *compact,
            raw: *raw,
            max_output_chars: *max_output_chars,
            timeout: Duration::from_secs(*timeout),
            memory_bytes: jq_worker::memory_limit(row.bytes),
        };
        let r = jq_worker::run_blocking(&request)?;
        if p.json {
            p.json(&r);
        } else {
            for o in &r.outputs {
                p.text(&format!("{}\n", sanitize(o)));
            }
            if r.truncated {
                p.note(&format!(
                    "output cut at {max_output_chars} characters; narrow the query"
                ));
            }
            if let Some(note) = &r.note {
                p.note(&sanitize(note));
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let opened = store::open(&seg, reference, &access).map_err(with_session_hint)?;
    let v = opened.value.as_str();
    match &args.op {
        ResolveCmd::Length { .. } => {
            let d = preview::describe(v, &opened.row.media);
            if p.json {
                p.json(&d);
            } else {
                p.text(&sanitize(&d.render()));
            }
        }
        ResolveCmd::Slice { start, length, .. } => {
            print_part(p, resolve::slice(v, *start, *length))
        }
        ResolveCmd::Lines { start, count, .. } => print_part(p, resolve::lines(v, *start, *count)),
        ResolveCmd::Read { .. } => print_part(p, resolve::read(v)),
        ResolveCmd::Grep {
            window,
            ignore_case,
            max_results,
            ..
        } => {
            let options = GrepOptions {
                window: *window,
                ignore_case: *ignore_case,
                max_results: *max_results,
                ..GrepOptions::default()
            };
            let r = resolve::grep(v, operand, &options)?;
            if p.json {
                p.json(&r);
            } else {
                p.text(&format!("{}\n", r.header(None)));
                p.text(&sanitize(&r.render(usize::MAX).text));
            }
            if r.total_matches == 0 {
                // No match is a negative answer: exit 1, as grep does.
                return Ok(ExitCode::from(1));
            }
        }
        // Answered above, by a worker process.
        ResolveCmd::Query { .. } => {}
    }
    Ok(ExitCode::SUCCESS)
}

fn print_part(p: &Printer, part: resolve::Part<'_>) {
    if p.json {
        p.json(&serde_json::json!({
            "text": part.text, "range": part.range, "total": part.total,
            "unit": part.unit.as_str(), "describe": part.describe(),
        }));
    } else {
        p.note(&format!("[{}]", part.describe()));
        p.text(&sanitize(part.text));
        if !part.text.ends_with('\n') {
            p.text("\n");
        }
    }
}

pub(super) fn unbox_cmd(cli: &Cli, _p: &Printer, args: &UnboxArgs) -> anyhow::Result<ExitCode> {
    let (seg, _) = open(cli)?;
    let input = read_stdin()?;
    let mut value: serde_json::Value = serde_json::from_str(&input).map_err(|e| {
        Error::Invalid(format!(
            "stdin is not JSON ({e}); `ctx unbox` takes a JSON document"
        ))
    })?;
    store::unbox(&seg, &mut value, &args.session.access()?).map_err(with_session_hint)?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &value)?;
    writeln!(out)?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn relay_cmd(cli: &Cli, p: &Printer, args: &RelayArgs) -> anyhow::Result<ExitCode> {
    match (&args.cmd, args.command.is_empty()) {
        (Some(cmd), true) => relay_maintenance(cli, p, cmd),
        (Some(_), false) => Err(Error::Invalid(
            "give `ctx relay` either a subcommand or a server command after `--`, not both".into(),
        )
        .into()),
        (None, false) => proxy(cli, args),
        (None, true) => Err(Error::Invalid(
            "`ctx relay` needs a server command after `--`, e.g. `ctx relay -- npx -y @modelcontextprotocol/server-filesystem ~/data`, or a subcommand, e.g. `ctx relay gc --older-than 7d`".into(),
        )
        .into()),
    }
}

fn proxy(cli: &Cli, args: &RelayArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let opts = &args.proxy;
    let threshold_tokens = opts
        .threshold
        .unwrap_or(match settings.relay.threshold_chars {
            Some(chars) => chars.div_ceil(4),
            None => settings.relay.threshold_tokens,
        });
    let session = match &opts.session {
        Some(s) => store::check_session(s)?,
        None => {
            let id =
                crate::relay::reference::new_id().map_err(|e| Error::Invalid(e.to_string()))?;
            format!("proxy-{}", id.as_str())
        }
    };
    if !(opts.call_timeout.is_finite() && opts.call_timeout > 0.0) {
        return Err(Error::Invalid(format!(
            "--call-timeout {} is not a positive number of seconds",
            opts.call_timeout
        ))
        .into());
    }
    // A model that cannot be opened is refused before the server starts.
    let reranker = opts.rerank.reranker(&seg, &settings)?;
    crate::surface::proxy::run(crate::surface::proxy::ProxyOptions {
        command: args.command.clone(),
        reranker,
        seg,
        settings,
        session,
        threshold_tokens: threshold_tokens.max(1),
        binary_threshold: opts.binary_threshold,
        validate: !opts.no_validate,
        call_timeout: Duration::from_secs_f64(opts.call_timeout),
        record: opts.record.clone(),
        verbose: cli.verbose > 0,
    })
}

fn relay_maintenance(cli: &Cli, p: &Printer, cmd: &RelayCmd) -> anyhow::Result<ExitCode> {
    if let RelayCmd::Check {
        case,
        transcript,
        glob,
        suffix,
    } = cmd
    {
        return super::relay_check::check_cmd(
            p,
            case.as_deref(),
            transcript.as_deref(),
            glob.as_deref(),
            suffix,
        );
    }
    let (seg, _) = open(cli)?;
    match cmd {
        RelayCmd::Check { .. } => {}
        RelayCmd::Gc { older_than } => {
            let r = store::gc(&seg, *older_than, Duration::from_secs(60))?;
            if p.json {
                p.json(&r);
            } else {
                let strays = match r.stray_files {
                    0 => String::new(),
                    n => format!(" and {n} stray file(s) no box named"),
                };
                p.text(&format!(
                    "removed {} boxed value(s){strays}, {} bytes\n",
                    r.removed, r.bytes
                ));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
