//! `ctx mcp`: resolve the segment and the session, refresh the pack in the
//! background, then serve MCP on stdio until the client leaves.

use std::path::PathBuf;
use std::process::ExitCode;

use super::search::refresh;
use super::{Cli, open};
use crate::error::Error;
use crate::relay::store::{self, DEFAULT_SESSION};
use crate::surface::mcp::{self, ServeConfig};
use crate::surface::output::Printer;

/// Arguments of `ctx mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// Let tool calls name other segments under DIR (argument `segment`); without
    /// it the server reads only the segment it was started with.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Session whose relay references the tools may read (default: $CTX_SESSION, else `default`).
    #[arg(long, env = "CTX_SESSION", default_value = DEFAULT_SESSION)]
    pub session: String,
    /// Do not build or refresh the pack at start.
    #[arg(long)]
    pub no_build: bool,
}

pub(super) fn mcp(cli: &Cli, p: &Printer, args: &McpArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let session = store::check_session(&args.session)?;
    let root = match &args.root {
        None => None,
        Some(dir) => Some(dir.canonicalize().map_err(|e| {
            Error::Invalid(format!(
                "--root `{}` cannot be opened ({e}); pass an existing directory",
                dir.display()
            ))
        })?),
    };
    if !args.no_build {
        // The client expects the handshake within seconds; a first build of a big
        // project takes longer, so it runs beside the server. Calls made before it
        // commits get an error saying so; calls after it see the new pack.
        let (seg, quiet, verbose) = (seg.clone(), p.quiet, p.verbose);
        std::thread::spawn(move || {
            let printer = Printer {
                json: false,
                color: false,
                quiet,
                verbose,
            };
            if let Err(e) = refresh(&seg, &settings, false, &printer) {
                printer.warn(&format!(
                    "ctx mcp: cannot build the pack: {}",
                    super::error_text(&e)
                ));
            }
        });
    }
    if p.verbose > 0 {
        p.note(&format!(
            "ctx mcp: serving `{}` ({}), session `{session}`",
            seg.name,
            seg.root.display()
        ));
    }
    mcp::serve(ServeConfig::new(seg, root, session), p.verbose)?;
    Ok(ExitCode::SUCCESS)
}
