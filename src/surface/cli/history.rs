//! `ctx history compact`: compact an agent transcript's tool history.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::{Cli, open};
use crate::error::Error;
use crate::relay::history::{self, CompactOptions, Format, Strategy};
use crate::relay::store::{self, BoxOptions, Threshold};
use crate::surface::output::Printer;

/// `ctx history` subcommands.
#[derive(Debug, Subcommand)]
pub enum HistoryCmd {
    /// Keep the last N tool pairs, box large results, summarize older pairs.
    Compact(CompactArgs),
}

/// `--strategy` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// Tool calls omitted; results as user messages `Context (tool result):`.
    TextEmbed,
    /// Native tool-call items of the output format.
    Native,
}

/// `--format` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatArg {
    /// OpenAI Chat Completions messages.
    Chat,
    /// OpenAI Responses input items.
    Responses,
    /// Anthropic Messages.
    Anthropic,
}

/// Arguments of `ctx history compact`.
#[derive(Debug, Args)]
pub struct CompactArgs {
    /// Most recent tool pairs kept verbatim.
    #[arg(long, default_value_t = 6)]
    pub keep: usize,
    /// Kept results above this many estimated tokens are boxed.
    #[arg(long, default_value_t = 10_000)]
    pub threshold: usize,
    /// How kept pairs are rendered.
    #[arg(long, value_enum, default_value_t = StrategyArg::Native)]
    pub strategy: StrategyArg,
    /// Output format (default: the input's).
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Session of the stored results.
    #[arg(long, env = "CTX_SESSION", default_value = store::DEFAULT_SESSION)]
    pub session: String,
}

pub(super) fn history_cmd(cli: &Cli, p: &Printer, cmd: &HistoryCmd) -> anyhow::Result<ExitCode> {
    let HistoryCmd::Compact(args) = cmd;
    let (seg, _) = open(cli)?;
    let session = store::check_session(&args.session)?;
    let mut input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut input)
        .map_err(|e| Error::io("cannot read", "<stdin>", e))?;
    let transcript: serde_json::Value = serde_json::from_str(&input)
        .map_err(|e| Error::Invalid(format!("stdin is not a JSON transcript ({e})")))?;
    let mut store_fn = |tool: &str, value: &str| -> crate::error::Result<String> {
        let row = store::store_value(
            &seg,
            value,
            &BoxOptions {
                tool: tool.to_string(),
                session: session.clone(),
                threshold: Threshold::Tokens(0),
                lock_timeout: Duration::from_secs(60),
            },
        )?;
        Ok(format!("internal://{}", row.id))
    };
    let (out, report) = history::compact(
        &transcript,
        &CompactOptions {
            keep: args.keep,
            threshold: args.threshold,
            strategy: match args.strategy {
                StrategyArg::TextEmbed => Strategy::TextEmbed,
                StrategyArg::Native => Strategy::Native,
            },
            output: args.format.map(|f| match f {
                FormatArg::Chat => Format::Chat,
                FormatArg::Responses => Format::Responses,
                FormatArg::Anthropic => Format::Anthropic,
            }),
        },
        &mut store_fn,
    )?;
    p.json(&out);
    for c in &report.orphan_calls {
        p.warn(&format!("tool call without a result kept as text: {c}"));
    }
    for r in &report.orphan_results {
        p.warn(&format!("tool result without a call kept as text: {r}"));
    }
    if let Some(to) = report.output {
        for d in &report.dropped {
            p.warn(&format!(
                "{d} has no equivalent in `{}`; dropped",
                to.name()
            ));
        }
    }
    p.note(&format!(
        "history: {} pairs, {} kept, {} summarized, {} boxed; ~{} → ~{} tokens",
        report.pairs,
        report.kept,
        report.summarized,
        report.boxed,
        report.tokens_before,
        report.tokens_after
    ));
    Ok(ExitCode::SUCCESS)
}
