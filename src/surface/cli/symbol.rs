//! `ctx symbol`: the exact code node for a name, with context lines around it
//! (get_symbol / get_window). Several candidates give a list, never a guess;
//! copies of one symbol at other places (compiled `cjs`/`esm` trees) count as
//! one candidate and are named with it.

use std::process::ExitCode;

use super::{Cli, open};
use crate::catalog::Catalog;
use crate::chunk::Chunk;
use crate::error::Error;
use crate::retrieve::Duplicate;
use crate::retrieve::fold::near_duplicate;
use crate::surface::output::{Printer, sanitize};
use crate::tokens;

/// Arguments of `ctx symbol`.
#[derive(Debug, clap::Args)]
pub struct SymbolArgs {
    /// `name`, or `Container::name` (`Container.name` works too).
    pub name: String,
    /// Only symbols in this file (path relative to the project, or its end).
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

/// One symbol: its chunks (several when it was split into parts).
struct Found {
    qualified: String,
    kind: String,
    /// Lines of all its parts.
    lines: [usize; 2],
    /// Its first chunk (ID, document), holding the text of all its parts.
    whole: Chunk,
    /// The same code at other places (a package's `dist/cjs` and `dist/esm`).
    copies: Vec<Duplicate>,
}

/// Folds each candidate that copies an earlier one into it (search's rule
/// for copies, on whole texts: a split symbol's two copies can be cut at
/// different lines): copies are one answer, not a choice to make.
fn fold_copies(found: Vec<Found>) -> Vec<Found> {
    let mut kept: Vec<Found> = Vec::new();
    for f in found {
        match kept.iter_mut().find(|k| near_duplicate(&k.whole, &f.whole)) {
            Some(k) => k.copies.push(Duplicate {
                id: f.whole.id,
                doc: f.whole.doc,
                lines: f.lines,
            }),
            None => kept.push(f),
        }
    }
    kept
}

fn canon(s: &str) -> String {
    s.replace("::", ".")
}

fn candidates(chunks: Vec<Chunk>, name: &str, file: Option<&str>, fold: bool) -> Vec<Found> {
    let want = canon(name);
    let eq = |a: &str| {
        if fold {
            a.eq_ignore_ascii_case(&want)
        } else {
            a == want
        }
    };
    let mut found: Vec<Found> = Vec::new();
    for c in chunks {
        let Some(sym) = c.symbol.clone() else {
            continue;
        };
        let q = canon(&sym.qualified);
        if !(eq(&q) || eq(&sym.name)) {
            continue;
        }
        if let Some(f) = file
            && !(c.doc == f || c.doc.ends_with(&format!("/{f}")))
        {
            continue;
        }
        // Only the parts of one split symbol are joined: a type and its
        // `impl` blocks share a name but are separate nodes, with other code
        // between them.
        match found.iter_mut().find(|x| {
            x.whole.doc == c.doc
                && x.qualified == sym.qualified
                && x.kind == sym.kind
                && x.whole.part.is_some()
                && c.part.is_some()
                && c.lines[0] <= x.lines[1] + 1
        }) {
            Some(x) => {
                x.lines[0] = x.lines[0].min(c.lines[0]);
                x.lines[1] = x.lines[1].max(c.lines[1]);
                x.whole.text.push_str(&c.text);
            }
            None => found.push(Found {
                qualified: sym.qualified.clone(),
                kind: sym.kind.clone(),
                lines: c.lines,
                whole: c,
                copies: Vec::new(),
            }),
        }
    }
    // `ctx symbol Walk` means the type, not an `impl Walk {` header, whose
    // methods are symbols of their own; impl blocks answer only when no
    // definition of the name is indexed.
    if found.iter().any(|f| f.kind != "impl") {
        found.retain(|f| f.kind != "impl");
    }
    for f in &mut found {
        // The node's own lines when the pack has them (a container's whole
        // body, a last member without its container's `}`); packs built
        // before they were stored fall back to the chunk's.
        f.lines = match f.whole.symbol.as_ref().and_then(|s| s.lines) {
            Some(lines) => lines,
            None => without_blank_ends(f.lines, &f.whole.text),
        };
    }
    fold_copies(found)
}

/// `lines` of a chunk holding `text`, less the blank lines at its ends:
/// chunks tile the file, so a symbol's chunk starts with the gap before it.
fn without_blank_ends(lines: [usize; 2], text: &str) -> [usize; 2] {
    let rows: Vec<&str> = text.split_inclusive('\n').collect();
    let lead = rows.iter().take_while(|l| l.trim().is_empty()).count();
    if lead == rows.len() {
        return lines;
    }
    let trail = rows
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    [
        lines[0] + lead,
        lines[1].saturating_sub(trail).max(lines[0] + lead),
    ]
}

pub(super) fn symbol(cli: &Cli, p: &Printer, args: &SymbolArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let asked = crate::retrieve::Budget::new(args.budget, settings.max_budget)?;
    let budget = asked.applied;
    super::search::refresh(&seg, &settings, args.no_build, p)?;
    let catalog = Catalog::open_read(&seg.db_path())?;
    let last = canon(&args.name)
        .rsplit('.')
        .next()
        .unwrap_or("")
        .to_string();
    if last.is_empty() {
        return Err(Error::Invalid(
            "give a symbol name, e.g. `build` or `WalkBuilder::build`".into(),
        )
        .into());
    }
    let pool = catalog.code_chunks_mentioning(&last)?;
    let mut found = candidates(pool.clone(), &args.name, args.file.as_deref(), false);
    if found.is_empty() {
        found = candidates(pool, &args.name, args.file.as_deref(), true);
    }
    if found.is_empty() {
        return Err(Error::Invalid(format!(
            "no symbol `{}`{} in this pack; try `ctx search \"{}\" --kind code`",
            args.name,
            args.file
                .as_deref()
                .map(|f| format!(" in `{f}`"))
                .unwrap_or_default(),
            args.name
        ))
        .into());
    }
    if found.len() > 1 {
        if p.json {
            let list: Vec<_> = found
                .iter()
                .map(|f| serde_json::json!({"id": f.whole.id, "symbol": f.qualified, "kind": f.kind, "doc": f.whole.doc, "lines": f.lines, "duplicates": f.copies}))
                .collect();
            p.json(&serde_json::json!({"candidates": list}));
        } else {
            let copies: usize = found.iter().map(|f| f.copies.len()).sum();
            p.text(&format!(
                "{} symbols match `{}`{}; pick one with --file or a qualified name:\n",
                found.len(),
                args.name,
                match copies {
                    0 => String::new(),
                    1 => " (and 1 copy of them, named under each)".to_string(),
                    n => format!(" (and {n} copies of them, named under each)"),
                }
            ));
            for f in found.iter().take(20) {
                p.text(&format!(
                    "  {:<10} {}  {}:{}-{}\n",
                    f.kind,
                    sanitize(&f.qualified),
                    sanitize(&f.whole.doc),
                    f.lines[0],
                    f.lines[1]
                ));
                if !f.copies.is_empty() {
                    p.text(&format!(
                        "  {:<10} also in {}\n",
                        "",
                        sanitize(&Duplicate::list(&f.copies))
                    ));
                }
            }
        }
        return Ok(ExitCode::from(1));
    }
    let f = &found[0];
    let path = seg.root.join(&f.whole.doc);
    let source = std::fs::read_to_string(&path).map_err(|e| Error::io("cannot read", &path, e))?;
    let lines: Vec<&str> = source.split_inclusive('\n').collect();
    let first = f.lines[0].saturating_sub(args.context_lines).max(1);
    let last_line = (f.lines[1] + args.context_lines).min(lines.len());
    let mut text = String::new();
    let mut shown_to = first.saturating_sub(1);
    for (n, line) in lines.iter().enumerate().take(last_line).skip(first - 1) {
        if tokens::estimate(&text) + tokens::estimate(line) > budget {
            break;
        }
        text.push_str(line);
        shown_to = n + 1;
    }
    let cut = shown_to < last_line;
    if p.json {
        let mut out = serde_json::json!({
            "id": f.whole.id, "symbol": f.qualified, "kind": f.kind, "doc": f.whole.doc,
            "symbol_lines": f.lines, "lines": [first, shown_to], "text": text,
            "token_est": tokens::estimate(&text), "truncated": cut,
            "duplicates": f.copies, "budget": asked,
        });
        // Like `get` and `evidence`: the key is there only when there is a hint.
        if let (Some(note), Some(map)) = (asked.clamp_note(), out.as_object_mut()) {
            map.insert("hint".into(), note.into());
        }
        p.json(&out);
    } else {
        p.text(&format!(
            "{} {} {} ({}:{}-{})\n{}",
            p.accent(&format!("[{}]", f.whole.id)),
            f.kind,
            sanitize(&f.qualified),
            sanitize(&f.whole.doc),
            first,
            shown_to,
            sanitize(&text)
        ));
        if !f.copies.is_empty() {
            p.note(&format!(
                "the same code is also in {}",
                Duplicate::list(&f.copies)
            ));
        }
        if let Some(note) = asked.clamp_note() {
            p.note(&format!("hint: {note}"));
        }
        if cut {
            // Past the cap, a larger --budget changes nothing.
            let raise = if asked.clamped {
                "raise max_budget in _ctx/ctx.toml"
            } else {
                "raise --budget"
            };
            p.note(&format!(
                "window cut at line {shown_to} of {last_line} by the budget of {budget} tokens; {raise}"
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}
