//! `ctx call`: a tool call from untrusted model text (router → executor pattern
//! for small models). Extract, repair, validate against the tool's schema, then
//! run it (ctx's own tools) or print the normalized call; on failure print a
//! repair prompt and exit 2.

use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};

use super::{Cli, resolve_segment};
use crate::error::Error;
use crate::relay::store::DEFAULT_SESSION;
use crate::relay::toolcall::{self, Extracted};
use crate::surface::mcp::ServeConfig;
use crate::surface::mcp::tools::{self, ToolName, ToolSet};
use crate::surface::output::{Printer, sanitize};

/// Arguments of `ctx call`.
#[derive(Debug, clap::Args)]
pub struct CallArgs {
    /// File with the model's raw output (default: stdin).
    #[arg(long, value_name = "RAW")]
    pub text_file: Option<PathBuf>,
    /// The tool meant, when the text does not name it (or to override it).
    #[arg(long)]
    pub tool: Option<String>,
    /// A JSON Schema (or an MCP tool object) for a tool that is not ctx's own;
    /// the call is then validated and printed, not run.
    #[arg(long, value_name = "FILE")]
    pub schema_file: Option<PathBuf>,
    /// Print the normalized call instead of running ctx's tool.
    #[arg(long)]
    pub print: bool,
    /// Session of relay references the call may read.
    #[arg(long, env = "CTX_SESSION", default_value = DEFAULT_SESSION)]
    pub session: String,
}

/// The outcome of `ctx call`, as `--json` prints it.
fn outcome(
    kind: &str,
    call: Option<&Extracted>,
    name: Option<&str>,
    prompt: Option<&str>,
) -> Value {
    json!({
        "outcome": kind,
        "name": name,
        "arguments": call.map(|c| &c.arguments),
        "slips": call.map(|c| &c.slips),
        "repair_prompt": prompt,
    })
}

fn fail(
    p: &Printer,
    kind: &str,
    call: Option<&Extracted>,
    name: Option<&str>,
    prompt: &str,
) -> ExitCode {
    if p.json {
        p.json(&outcome(kind, call, name, Some(prompt)));
    } else {
        p.text(prompt);
    }
    ExitCode::from(2)
}

pub(super) fn call(cli: &Cli, p: &Printer, args: &CallArgs) -> anyhow::Result<ExitCode> {
    let text = match &args.text_file {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| Error::io("cannot read", path, e))?
        }
        None => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| Error::io("cannot read", "<stdin>", e))?;
            s
        }
    };
    let known: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
    let extracted = match toolcall::extract(&text) {
        Ok(e) => e,
        Err(no) => {
            let prompt = format!(
                "No tool call found in your output ({}).\nOutput only one JSON object, no prose and no code fences: {{\"name\": \"<tool>\", \"arguments\": {{…}}}}. Tools: {}.\n",
                no.0,
                args.tool
                    .as_deref()
                    .map(str::to_string)
                    .unwrap_or_else(|| known.join(", "))
            );
            return Ok(fail(p, "rejected", None, None, &prompt));
        }
    };
    let name = args.tool.clone().or_else(|| extracted.name.clone());
    let (schema, own) = match (&args.schema_file, name.as_deref().and_then(ToolName::parse)) {
        (Some(path), _) => {
            let raw: Value = serde_json::from_str(
                &std::fs::read_to_string(path).map_err(|e| Error::io("cannot read", path, e))?,
            )
            .map_err(|e| Error::Invalid(format!("{}: not JSON ({e})", path.display())))?;
            let schema = raw
                .get("inputSchema")
                .or_else(|| raw.get("input_schema"))
                .cloned()
                .unwrap_or(raw);
            (schema, None)
        }
        (None, Some(tool)) => {
            let def = tools::definition(
                tool,
                ToolSet {
                    relay: true,
                    segments: false,
                    ..ToolSet::default()
                },
            );
            let mut schema = Value::Object((*def.input_schema).clone());
            // The server refuses unknown fields too; say so before the call runs.
            schema["additionalProperties"] = Value::Bool(false);
            (schema, Some(tool))
        }
        (None, None) => {
            let prompt = format!(
                "Your output {} but ctx has no such tool. Output only JSON {{\"name\": \"<tool>\", \"arguments\": {{…}}}} with one of: {}.\n",
                match &name {
                    Some(n) => format!("calls `{}`", n.escape_debug()),
                    None => "names no tool".to_string(),
                },
                known.join(", ")
            );
            return Ok(fail(
                p,
                "repair_prompt",
                Some(&extracted),
                name.as_deref(),
                &prompt,
            ));
        }
    };
    let tool_name = name.clone().unwrap_or_default();
    let mut extracted = extracted;
    if toolcall::drop_null_optionals(&mut extracted.arguments, &schema) {
        extracted.slips.push(toolcall::Slip::NullOptional);
    }
    let problems = toolcall::validate(&schema, &extracted.arguments).map_err(Error::Invalid)?;
    if !problems.is_empty() {
        let prompt = toolcall::repair_prompt(&tool_name, &schema, &problems);
        return Ok(fail(
            p,
            "repair_prompt",
            Some(&extracted),
            Some(&tool_name),
            &prompt,
        ));
    }
    let kind = if extracted.slips.is_empty() {
        "parsed"
    } else {
        "repaired"
    };
    let Some(tool) = own.filter(|_| !args.print) else {
        if p.json {
            p.json(&outcome(kind, Some(&extracted), Some(&tool_name), None));
        } else {
            p.json(&json!({"name": tool_name, "arguments": extracted.arguments}));
        }
        return Ok(ExitCode::SUCCESS);
    };
    let seg = resolve_segment(cli.segment.as_deref())?;
    let config = ServeConfig::new(seg, None, args.session.clone());
    let Value::Object(arguments) = extracted.arguments.clone() else {
        return Ok(fail(
            p,
            "repair_prompt",
            Some(&extracted),
            Some(&tool_name),
            "arguments must be a JSON object\n",
        ));
    };
    let (result, _) = crate::surface::mcp::call::call(&config, tool, arguments);
    let is_error = result.is_error.unwrap_or(false);
    let texts: Vec<String> = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    if p.json {
        let mut o = outcome(kind, Some(&extracted), Some(&tool_name), None);
        o["result"] =
            json!({"is_error": is_error, "text": texts, "structured": result.structured_content});
        p.json(&o);
    } else {
        for t in &texts {
            p.text(&format!("{}\n", sanitize(t.trim_end())));
        }
    }
    Ok(if is_error {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
