//! `ctx tools`: the tool definitions `ctx mcp` serves, for agents that take JSON
//! tool definitions directly (OpenAI, Anthropic, or MCP shape).

use std::path::PathBuf;
use std::process::ExitCode;

use super::{Cli, resolve_segment};
use crate::error::Error;
use crate::surface::mcp::tools::{self, Format, ToolName, ToolSet};
use crate::surface::output::Printer;

/// Arguments of `ctx tools`.
#[derive(Debug, clap::Args)]
pub struct ToolsArgs {
    /// One line per tool: its name and what it is for (what a router needs).
    #[arg(long, conflicts_with = "schema")]
    pub names: bool,
    /// Only this tool's definition (what an executor needs).
    #[arg(long, value_name = "NAME")]
    pub schema: Option<String>,
    /// Shape of the definitions.
    #[arg(long, value_enum, default_value_t = Format::Mcp)]
    pub format: Format,
    /// Include the relay tools even where the segment has no relay store yet.
    #[arg(long)]
    pub all: bool,
    /// Add the `segment` argument, as `ctx mcp --root DIR` does.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

pub(super) fn tools(cli: &Cli, p: &Printer, args: &ToolsArgs) -> anyhow::Result<ExitCode> {
    let seg = resolve_segment(cli.segment.as_deref())?;
    // The same rule as `ServeConfig::tool_set`, so this prints what the server lists.
    let set = ToolSet {
        relay: args.all || args.root.is_some() || seg.relay_dir().is_dir(),
        segments: args.root.is_some(),
        ..ToolSet::default()
    };
    if let Some(name) = &args.schema {
        let Some(tool) = ToolName::parse(name) else {
            let known: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
            return Err(Error::Invalid(format!(
                "unknown tool `{}`; ctx has {}",
                name.escape_debug(),
                known.join(", ")
            ))
            .into());
        };
        p.json(&tools::render(&tools::definition(tool, set), args.format));
        return Ok(ExitCode::SUCCESS);
    }
    let listed = tools::listed(set);
    if args.names {
        if p.json {
            let names: Vec<_> = listed
                .iter()
                .map(|t| serde_json::json!({"name": t.as_str(), "summary": t.summary()}))
                .collect();
            p.json(&names);
        } else {
            for t in &listed {
                p.text(&format!("{}\t{}\n", t.as_str(), t.summary()));
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let all: Vec<_> = tools::definitions(set)
        .iter()
        .map(|t| tools::render(t, args.format))
        .collect();
    p.json(&all);
    Ok(ExitCode::SUCCESS)
}
