//! `ctx symbol`: the exact code node for a name, with context lines around it
//! (see [`crate::retrieve::symbol`]); several candidates print a list, exit 1.
//! `ctx refs`: where a name is used (see [`crate::retrieve::refs`]).

use std::process::ExitCode;

use super::{Cli, open};
use crate::retrieve::attached;
use crate::retrieve::symbol::{Choices, LONG_LIST, SymbolAnswer};
use crate::retrieve::{Duplicate, Retriever};
use crate::surface::mcp::tools::{RefsParams, SymbolParams};
use crate::surface::output::{Printer, sanitize, sanitize_name};

/// Arguments of `ctx symbol`.
#[derive(Debug, clap::Args)]
pub struct SymbolArgs {
    /// `name`, `Container::name` (`Container.name` works too; in Go also `package.Name`), a path to it (`my_crate::module::Type::method`, `pkg.module.Class`), `impl Type`, `impl Trait for Type`, or a chunk ID.
    pub name: String,
    /// Only symbols in this file or directory (path relative to the project, or its end), or in the workspace member a manifest names so.
    #[arg(long)]
    pub file: Option<String>,
    /// Lines of context before and after the symbol.
    #[arg(long, default_value_t = 0)]
    pub context_lines: usize,
    /// Token budget for the printed window.
    #[arg(long, default_value_t = crate::retrieve::DEFAULT_BUDGET)]
    pub budget: usize,
    /// Do not build or refresh the pack first.
    #[arg(long)]
    pub no_build: bool,
}

/// Arguments of `ctx refs`.
#[derive(Debug, clap::Args)]
pub struct RefsArgs {
    /// An identifier (`WalkBuilder`), or a qualified name whose last part is looked for (`Walk::new`).
    pub name: String,
    /// Only the uses of the definition in this file or directory (or package), by the imports of the files using the name.
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Markdown chunks too, not only code.
    #[arg(long)]
    pub all: bool,
    /// Token budget for the list.
    #[arg(long, default_value_t = crate::retrieve::DEFAULT_BUDGET)]
    pub budget: usize,
    /// Do not build or refresh the pack first.
    #[arg(long)]
    pub no_build: bool,
}

/// The segment's retriever and settings, once `budget` is known to be valid
/// (a bad budget is refused before any build) and the pack is refreshed
/// unless `no_build`.
fn retriever(
    cli: &Cli,
    p: &Printer,
    budget: usize,
    no_build: bool,
) -> anyhow::Result<(Retriever, crate::config::Settings)> {
    let (seg, settings) = open(cli)?;
    crate::retrieve::Budget::new(budget, settings.max_budget)?;
    let retriever = super::search::refreshed(&seg, &settings, no_build, p)?;
    Ok((retriever, settings))
}

pub(super) fn refs(cli: &Cli, p: &Printer, args: &RefsArgs) -> anyhow::Result<ExitCode> {
    let (r, settings) = retriever(cli, p, args.budget, args.no_build)?;
    let params = RefsParams {
        name: args.name.clone(),
        file: args.file.clone(),
        all: Some(args.all),
        budget: Some(args.budget),
    };
    let found = r.refs(&params.options(settings.max_budget))?;
    super::leave_to_exit(r);
    let status = if found.chunks == 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    if p.json {
        p.json(&found);
        return Ok(status);
    }
    if found.chunks == 0 {
        p.note(&found.none_note((!args.all).then_some("--all")));
        return Ok(status);
    }
    for r in &found.refs {
        p.text(&sanitize(&r.render()));
    }
    if let Some(note) = found.budget.clamp_note() {
        p.note(&note);
    }
    p.note(&found.summary("--budget", "--file"));
    Ok(status)
}

pub(super) fn symbol(cli: &Cli, p: &Printer, args: &SymbolArgs) -> anyhow::Result<ExitCode> {
    let (r, settings) = retriever(cli, p, args.budget, args.no_build)?;
    let params = SymbolParams {
        name: args.name.clone(),
        file: args.file.clone(),
        context_lines: Some(args.context_lines),
        budget: Some(args.budget),
    };
    let answer = r.symbol(&params.options(settings.max_budget))?;
    super::leave_to_exit(r);
    let w = match answer {
        SymbolAnswer::Choices(found) => {
            choices(p, &args.name, &found);
            return Ok(ExitCode::from(1));
        }
        SymbolAnswer::Window(w) => w,
    };
    if p.json {
        p.json(&w);
        return Ok(ExitCode::SUCCESS);
    }
    // A container over the budget is shown as its outline: its header, then
    // one signature per member.
    let outline = !w.members.is_empty();
    let (lines, tag, text) = if outline {
        (
            w.symbol_lines,
            ", outline",
            format!("{}\n", w.text.trim_end()),
        )
    } else {
        (w.lines, "", w.text.clone())
    };
    p.text(&format!(
        "{} {} ({}:{}-{}{tag})\n{}",
        p.accent(&format!("[{}]", w.id)),
        sanitize_name(&w.label()),
        sanitize_name(&w.doc),
        lines[0],
        lines[1],
        sanitize(&text)
    ));
    for m in &w.members {
        entry_line(
            p,
            &m.id,
            &format!("{}-{}", m.lines[0], m.lines[1]),
            &m.signature,
        );
    }
    if !w.attached.is_empty() {
        p.text(&attached::heading(&w.symbol, &w.attached));
        for a in &w.attached {
            entry_line(p, &a.id, &a.place(&w.doc), &a.line);
        }
    }
    if let Some(more) = &w.more_attached {
        p.note(&more.describe(&w.symbol, "--budget"));
    }
    if !w.duplicates.is_empty() {
        p.note(&format!(
            "the same code is also in {}",
            Duplicate::list(&w.duplicates)
        ));
    }
    if !w.declarations.is_empty() {
        p.note(&format!("declared in {}", Duplicate::list(&w.declarations)));
    }
    if let Some(note) = &w.hint {
        p.note(&format!("hint: {note}"));
    }
    // Past the cap, a larger --budget changes nothing: no hint names one.
    let raise = if w.budget.clamped || w.full_token_est > w.budget.cap {
        "raise max_budget in _ctx/ctx.toml".to_string()
    } else if outline {
        format!("raise --budget to {}", w.full_token_est)
    } else {
        "raise --budget".to_string()
    };
    if outline {
        p.note(&format!(
            "the whole {} is ~{} tokens, over the budget of {}: its header and members' signatures are shown; see a member with ctx symbol {} --file {}, or {raise}",
            w.kind, w.full_token_est, w.budget.applied, w.members[0].symbol, w.doc
        ));
        if let Some(more) = &w.more_members {
            p.note(&more.describe("--budget"));
        }
    } else {
        if let Some(e) = &w.elided {
            let all = if w.full_token_est > w.budget.cap {
                "raise max_budget in _ctx/ctx.toml to see them".to_string()
            } else {
                format!("--budget {} shows everything", w.full_token_est)
            };
            p.note(&format!("{}; {all}", e.describe()));
        }
        if w.truncated {
            p.note(&format!(
            "window cut at line {} of {} by the budget of {} tokens; {raise}, or see the file's outline: ctx get {} --mode skeleton",
            w.lines[1], w.wanted_to, w.budget.applied, w.doc
        ));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `[ID] place  text` (`a-b`, or `doc:a-b` in another file): a member or an
/// attached block, with what shows it.
fn entry_line(p: &Printer, id: &str, place: &str, text: &str) {
    p.text(&format!(
        "{} {}  {}\n",
        p.accent(&format!("[{id}]")),
        sanitize_name(place),
        sanitize(text)
    ));
}

/// The list to choose from when several symbols match.
fn choices(p: &Printer, name: &str, answer: &Choices) {
    if p.json {
        p.json(answer);
        return;
    }
    let found = &answer.candidates;
    let copies: usize = found.iter().map(|f| f.duplicates.len()).sum();
    p.text(&format!(
        "{} symbols match `{}`{}; pick one with --file, a qualified name or its ID:\n",
        found.len(),
        name,
        match copies {
            0 => String::new(),
            1 => " (and 1 copy of them, named under each)".to_string(),
            n => format!(" (and {n} copies of them, named under each)"),
        }
    ));
    for f in found.iter().take(LONG_LIST) {
        p.text(&format!(
            "  {:<10} {}  {}:{}-{}  {}{}\n",
            f.kind,
            sanitize_name(&f.symbol),
            sanitize_name(&f.doc),
            f.lines[0],
            f.lines[1],
            p.accent(&f.id),
            f.declared_in
                .as_ref()
                .map(|c| format!(" (declared in {})", sanitize_name(c)))
                .unwrap_or_default()
        ));
        if !f.duplicates.is_empty() {
            p.text(&format!(
                "  {:<10} also in {}\n",
                "",
                sanitize(&Duplicate::list(&f.duplicates))
            ));
        }
        if !f.declarations.is_empty() {
            p.text(&format!(
                "  {:<10} declared in {}\n",
                "",
                sanitize(&Duplicate::list(&f.declarations))
            ));
        }
    }
    if found.len() > LONG_LIST {
        p.text(&format!("  … and {} more\n", found.len() - LONG_LIST));
    }
    if let Some(example) = &answer.for_example {
        p.note(&format!(
            "name the one you want by its place, as `ctx symbol {}` does, or pass --file DIR",
            sanitize_name(example)
        ));
    }
}
