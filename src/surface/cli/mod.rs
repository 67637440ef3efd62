//! The `ctx` command line: clap derive definitions and dispatch.
//!
//! Exit codes: 0 success; 1 a negative answer (validation problems, no evidence),
//! like grep; 2 an error (bad input, I/O), with a message naming the input.

mod autopilot;
mod build;
mod call;
mod eval;
mod history;
mod mcp;
mod relay;
mod relay_check;
mod search;
mod symbol;
mod tools;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use super::output::{ColorChoice, Printer};
use crate::config::Settings;
use crate::error::Error;
use crate::segment::Segment;

/// ctx: the right context for LLM agents, not all of it.
#[derive(Debug, Parser)]
#[command(name = "ctx", version, about, max_term_width = 100)]
pub struct Cli {
    /// Project directory (or, with $CTX_ROOT set, a segment name under it).
    /// Default: the nearest ancestor of the working directory with `_ctx/`.
    #[arg(short = 's', long, global = true, value_name = "DIR|NAME")]
    pub segment: Option<String>,
    /// Print JSON instead of human output.
    #[arg(long, global = true)]
    pub json: bool,
    /// When to use colour (`NO_COLOR` is honoured in `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only results and errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Print more detail.
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build or refresh the context pack (incremental).
    Build(build::BuildArgs),
    /// Check every invariant of the pack; exit 1 with the list when any fails.
    Validate,
    /// Ranked sections for a natural-language query.
    Search(search::SearchArgs),
    /// Chunks by ID within a token budget.
    Get(search::GetArgs),
    /// Search and get in one call: a read-only evidence block within a budget.
    Evidence(search::EvidenceArgs),
    /// Files, chunks, tokens, index and catalog size, last build.
    Stats,
    /// A code symbol's exact source, with context lines around it.
    Symbol(symbol::SymbolArgs),
    /// Where a name is used: the code lines that have it, by the symbol they are in.
    Refs(symbol::RefsArgs),
    /// Retrieval quality on a labelled JSON-lines query set.
    Eval(eval::EvalArgs),
    /// Store a large value from stdin out of band; print a reference (or the value, when small).
    #[command(name = "box")]
    Box(relay::BoxArgs),
    /// Inspect a boxed value: length, slice, lines, grep, query (jq), read.
    Resolve(relay::ResolveArgs),
    /// Replace references in a JSON document on stdin with their values.
    Unbox(relay::UnboxArgs),
    /// Tool-history compaction for agent transcripts.
    History {
        /// What to do.
        #[command(subcommand)]
        cmd: history::HistoryCmd,
    },
    /// Serve the pack and the relay store as MCP tools over stdio (logs on stderr).
    Mcp(mcp::McpArgs),
    /// Run (or check) a tool call written as text by a model: extract, repair, validate.
    Call(call::CallArgs),
    /// Print the MCP tools as JSON definitions (MCP, OpenAI or Anthropic shape).
    Tools(tools::ToolsArgs),
    /// MCP proxy that boxes large results (`ctx relay -- <server command>`), or relay maintenance.
    Relay(relay::RelayArgs),
    /// Watch the segment and keep its pack fresh, as `session.md` configures.
    Autopilot(autopilot::AutopilotArgs),
}

/// Runs the CLI with `args` (including the program name). The process is
/// meant to exit with the code returned: a search's open snapshot is left to
/// the exit to release (see `leave_to_exit`), so a caller that goes on leaks it.
pub fn run(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let args: Vec<OsString> = args.into_iter().collect();
    if args
        .get(1)
        .is_some_and(|a| a == super::jq_worker::WORKER_ARG)
    {
        return super::jq_worker::worker_main();
    }
    let parsed = Cli::try_parse_from(&args).or_else(|e| match reference_first(&args) {
        Some(Ok(swapped)) => Cli::try_parse_from(swapped),
        Some(Err(message)) => Err(clap::Error::raw(
            clap::error::ErrorKind::InvalidSubcommand,
            format!("{message}\n"),
        )),
        None => Err(e),
    });
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let printer = Printer::new(cli.json, cli.color, cli.quiet, cli.verbose);
    match dispatch(&cli, &printer) {
        Ok(code) => code,
        // A closed pipe (`ctx … | head`) is the reader's choice, not a failure.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", super::output::sanitize(&error_text(&e)));
            ExitCode::from(2)
        }
    }
}

/// For a command line clap refused: `ctx resolve internal://ID OP …`, the
/// order agents often write, as `ctx resolve OP internal://ID …`, or for a
/// reference with no operation after it an error listing the operations
/// (instead of clap's "unrecognized subcommand"). `None` when the line is not
/// of that shape.
fn reference_first(args: &[OsString]) -> Option<Result<Vec<OsString>, String>> {
    let at = args.iter().position(|a| a == "resolve")?;
    let reference = args.get(at + 1)?.to_str()?;
    if !reference.starts_with(crate::relay::reference::SCHEME) {
        return None;
    }
    let command = Cli::command();
    let ops: Vec<&str> = command
        .find_subcommand("resolve")?
        .get_subcommands()
        .map(|c| c.get_name())
        .collect();
    Some(match args.get(at + 2).and_then(|a| a.to_str()) {
        Some(op) if ops.contains(&op) => {
            let mut swapped = args.to_vec();
            swapped.swap(at + 1, at + 2);
            Ok(swapped)
        }
        other => Err(format!(
            "`ctx resolve` takes the operation first, then the reference: `ctx resolve {} {reference} …`{}",
            ops.join("|"),
            other
                .map(|o| format!(" (`{o}` is not an operation)"))
                .unwrap_or_default()
        )),
    })
}

/// `e` and its causes, `: `-joined, leaving out a cause its error already
/// quotes (ctx's I/O errors name the OS error in their own message).
pub(crate) fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let part = cause.to_string();
        if text.is_empty() {
            text = part;
        } else if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
    }
    text
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(std::io::ErrorKind::BrokenPipe))
    })
}

/// The segment named by `-s`, `$CTX_ROOT` or the working directory.
pub fn resolve_segment(arg: Option<&str>) -> Result<Segment, Error> {
    let cwd = std::env::current_dir().map_err(|e| Error::io("cannot read", ".", e))?;
    let root = std::env::var_os("CTX_ROOT").map(PathBuf::from);
    Segment::resolve(arg, &cwd, root.as_deref())
}

/// Segment plus its settings.
pub fn open(cli: &Cli) -> anyhow::Result<(Segment, Settings)> {
    let seg = resolve_segment(cli.segment.as_deref())?;
    let settings = Settings::load(&seg.config_path())?;
    Ok((seg, settings))
}

fn dispatch(cli: &Cli, p: &Printer) -> anyhow::Result<ExitCode> {
    match &cli.command {
        Command::Build(args) => build::build(cli, p, args),
        Command::Validate => build::validate(cli, p),
        Command::Search(args) => search::search(cli, p, args),
        Command::Get(args) => search::get(cli, p, args),
        Command::Evidence(args) => search::evidence(cli, p, args),
        Command::Stats => build::stats(cli, p),
        Command::Symbol(args) => symbol::symbol(cli, p, args),
        Command::Refs(args) => symbol::refs(cli, p, args),
        Command::Eval(args) => eval::eval(cli, p, args),
        Command::Box(args) => relay::box_cmd(cli, p, args),
        Command::Resolve(args) => relay::resolve_cmd(cli, p, args),
        Command::Unbox(args) => relay::unbox_cmd(cli, p, args),
        Command::Relay(args) => relay::relay_cmd(cli, p, args),
        Command::History { cmd } => history::history_cmd(cli, p, cmd),
        Command::Mcp(args) => mcp::mcp(cli, p, args),
        Command::Call(args) => call::call(cli, p, args),
        Command::Tools(args) => tools::tools(cli, p, args),
        Command::Autopilot(args) => autopilot::autopilot(cli, p, args),
    }
}

/// Leaves `value` to the operating system at the process's exit, which the
/// command is about to reach: unmapping a snapshot's index files and closing
/// its catalog by hand was 5 % of a whole search process. Only for values
/// whose drop has nothing to flush or release that exit does not.
pub(super) fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}
