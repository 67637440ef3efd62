//! The text a model reads for each tool's answer: compact blocks that say
//! what was left out and the call that shows it. Programs read the same
//! answers as `structuredContent`.

use crate::relay::resolve;
use crate::retrieve::attached;
use crate::retrieve::refs::Refs;
use crate::retrieve::symbol::{Choices, LONG_LIST, Window};
use crate::retrieve::{Duplicate, Evidence, GetResult, Omitted, SearchResult};

/// Said when a search of the docs found nothing but boxed tool outputs match.
const RELAY_HINT: &str =
    "Boxed tool outputs match this query: call ctx_search with scope \"relay\" (or \"all\").";

/// The text a model reads for a search (shared with the relay proxy's `ctx_search`).
pub(crate) fn render_search(query: &str, r: &SearchResult) -> String {
    if r.no_evidence {
        let mut out = format!(
            "No evidence in indexed context for: {query}\nSay the indexed docs do not cover it rather than guessing."
        );
        for note in r.note.iter().cloned().chain(r.query_notes()) {
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
    let mut out: String = r
        .query_notes()
        .iter()
        .map(|n| format!("Note: {n}.\n"))
        .collect();
    for (i, h) in r.hits.iter().enumerate() {
        // A hit inside a boxed tool output names its reference, so the model
        // can resolve or pass it on.
        let boxed = h
            .boxed
            .as_ref()
            .map(|b| {
                // The arguments of the tool that reads exactly the hit: a
                // piece of a long line (minified JSON) is a slice, since its
                // lines would be the whole value.
                let [(from_arg, from), (count_arg, count)] = b.read_call().args;
                format!(
                    ", boxed output {} {from_arg} {from} {count_arg} {count}",
                    b.reference
                )
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "{}. {}  {} ({}:{}-{}, ~{} tokens{}{boxed})\n   {}\n",
            i + 1,
            h.id,
            h.title_path.join(" > "),
            h.doc,
            h.lines[0],
            h.lines[1],
            h.token_est,
            h.part_label(),
            h.preview
        ));
        for line in h.elsewhere() {
            out.push_str(&format!("   {line}\n"));
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
        let part = c.part_note().map(|n| format!("\n{n}")).unwrap_or_default();
        out.push_str(&format!(
            "[{}] {}\n{}{part}\n\n",
            c.id,
            c.label(),
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

pub(super) fn render_window(w: &Window) -> String {
    if !w.members.is_empty() {
        return render_members(w);
    }
    let mut out = format!(
        "[{}] {} ({}:{}-{})\n{}",
        w.id,
        w.label(),
        w.doc,
        w.lines[0],
        w.lines[1],
        w.text.trim_end()
    );
    out.push_str(&render_attached(w));
    out.push_str(&elsewhere(w));
    if let Some(h) = &w.hint {
        out.push_str(&format!("\nhint: {h}"));
    }
    if let Some(e) = &w.elided {
        out.push_str(&format!(
            "\n[{}; {}]",
            e.describe(),
            // A budget past the cap would only be clamped again.
            if w.full_token_est > w.budget.cap {
                "showing everything needs more than the cap (max_budget in _ctx/ctx.toml)"
                    .to_string()
            } else {
                format!("budget {} shows everything", w.full_token_est)
            }
        ));
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

/// Where else the symbol is: its copies and its declarations.
fn elsewhere(w: &Window) -> String {
    let mut out = String::new();
    if !w.duplicates.is_empty() {
        out.push_str(&format!(
            "\nThe same code is also in {}.",
            Duplicate::list(&w.duplicates)
        ));
    }
    if !w.declarations.is_empty() {
        out.push_str(&format!(
            "\nDeclared in {}.",
            Duplicate::list(&w.declarations)
        ));
    }
    out
}

/// A container over the budget: its header, then one signature per member.
pub(super) fn render_members(w: &Window) -> String {
    let mut out = format!(
        "[{}] {} ({}:{}-{}, outline)\n{}",
        w.id,
        w.label(),
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
    out.push_str(&elsewhere(w));
    if let Some(h) = &w.hint {
        out.push_str(&format!("\nhint: {h}"));
    }
    out.push_str(&format!(
        "\n[the whole {} is ~{} tokens, over the budget of {}: its header and members' signatures are shown; see a member with ctx_symbol {}{}]",
        w.kind,
        w.full_token_est,
        w.budget.applied,
        serde_json::json!({"name": w.members[0].symbol, "file": w.doc}),
        if w.full_token_est > w.budget.cap {
            String::new()
        } else {
            format!(", or pass \"budget\": {}", w.full_token_est)
        }
    ));
    if let Some(more) = &w.more_members {
        out.push_str(&format!("\n[{}]", more.describe("\"budget\":")));
    }
    out.push_str(&render_attached(w));
    out
}

/// A type's impl blocks and methods defined outside it, and the types that
/// extend it, when it has any.
fn render_attached(w: &Window) -> String {
    let mut out = String::new();
    if !w.attached.is_empty() {
        out.push('\n');
        out.push_str(attached::heading(&w.symbol, &w.attached).trim_end());
        for a in &w.attached {
            out.push('\n');
            out.push_str(a.entry(&w.doc).trim_end());
        }
    }
    if let Some(more) = &w.more_attached {
        out.push_str(&format!("\n[{}]", more.describe(&w.symbol, "\"budget\":")));
    }
    out
}

pub(super) fn render_choices(name: &str, answer: &Choices) -> String {
    let found = &answer.candidates;
    let mut out = format!(
        "{} symbols match `{name}`; call ctx_symbol again with \"file\", a qualified name or its ID as \"name\":",
        found.len()
    );
    for c in found.iter().take(LONG_LIST) {
        out.push_str(&format!(
            "\n  {} {}  {}:{}-{}  {}",
            c.kind, c.symbol, c.doc, c.lines[0], c.lines[1], c.id
        ));
        if !c.duplicates.is_empty() {
            out.push_str(&format!(" (also in {})", Duplicate::list(&c.duplicates)));
        }
        if !c.declarations.is_empty() {
            out.push_str(&format!(
                " (declared in {})",
                Duplicate::list(&c.declarations)
            ));
        }
        if let Some(container) = &c.declared_in {
            out.push_str(&format!(" (declared in {container})"));
        }
    }
    if found.len() > LONG_LIST {
        out.push_str(&format!("\n  … and {} more", found.len() - LONG_LIST));
    }
    if let Some(example) = &answer.for_example {
        out.push_str(&format!(
            "\n[name the one you want by its place, as ctx_symbol {} does, or pass \"file\"]",
            serde_json::json!({ "name": example })
        ));
    }
    out
}

/// The lines that use a name, then what the budget left out, as the CLI
/// prints them.
pub(super) fn render_refs(found: &Refs, all: bool) -> String {
    if found.chunks == 0 {
        return format!("[{}]", found.none_note((!all).then_some("\"all\": true")));
    }
    let mut out: String = found.refs.iter().map(|r| r.render()).collect();
    if let Some(note) = found.budget.clamp_note() {
        out.push_str(&format!("[{note}]\n"));
    }
    out.push_str(&format!("[{}]", found.summary("\"budget\":", "\"file\"")));
    out
}

pub(super) fn render_evidence(ev: &Evidence) -> String {
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

/// A grep answer within `max_chars`: the header, the matches, and when the
/// cap cut them, what was left out and the call that reads on from there;
/// with how many matches it shows.
pub fn render_grep(
    r: &resolve::GrepResult,
    what: Option<&str>,
    reference: &str,
    max_chars: usize,
) -> (String, usize) {
    let header = r.header(what);
    // The header and the note (under 400 chars) come on top of the matches.
    let shown = r.render(max_chars.saturating_sub(header.len() + 400));
    let mut out = format!("{header}\n{}", shown.text);
    if let Some(next) = r.matches.get(shown.shown) {
        let start = next.line_no.saturating_sub(next.before.len());
        out.push_str(&format!(
            "[cut at {max_chars} chars: {} of the {} matches collected are shown; the next is line {}. Read on with internal_resource_read_lines {{\"opaque_reference\":\"{reference}\",\"start_line\":{start},\"line_count\":100}}, or narrow the pattern or the window]",
            shown.shown,
            r.matches.len(),
            next.line_no
        ));
    }
    (out.trim_end().to_string(), shown.shown)
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
            packages: Vec::new(),
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
            packages: Vec::new(),
        };
        let text = render_search("q", &r);
        assert!(
            text.contains("\nNote: no searched text contains \"jemalloc\" or \"PGO\"."),
            "{text}"
        );
        let r = SearchResult {
            no_evidence: false,
            ..r
        };
        assert!(
            render_search("q", &r).starts_with("Note: no searched text contains"),
            "{}",
            render_search("q", &r)
        );
    }

    #[test]
    fn a_named_package_is_noted_with_or_without_hits() {
        let r = SearchResult {
            hits: Vec::new(),
            no_evidence: true,
            coverage: 0.2,
            suggestions: Vec::new(),
            relay_matches: 0,
            note: None,
            absent: Vec::new(),
            packages: vec!["crates/notify/".into()],
        };
        let note =
            "Note: the query names the package `crates/notify/`; hits outside it rank lower.";
        let text = render_search("notify: debounce", &r);
        assert!(text.contains(&format!("\n{note}")), "{text}");
        let r = SearchResult {
            no_evidence: false,
            packages: vec!["crates/a/".into(), "crates/b/".into()],
            ..r
        };
        assert!(
            render_search("q", &r).starts_with(
                "Note: the query names the packages `crates/a/`, `crates/b/`; hits outside them rank lower.\n"
            ),
            "{}",
            render_search("q", &r)
        );
    }

    /// A part of a split block ends with the parts next to it that the
    /// answer lacks, before the blank line that ends the chunk.
    #[test]
    fn a_part_names_its_neighbours() {
        use crate::retrieve::get::{Fetched, PartOf};
        let chunk = Fetched {
            id: "notes:0123456789".into(),
            doc: "notes.md".into(),
            title_path: vec!["Feeding".into()],
            lines: [3, 20],
            text: "```rust\nlet a = 1;\n```\n".into(),
            token_est: 9,
            full_token_est: 9,
            trimmed: false,
            replaces: None,
            outline: false,
            part: Some(PartOf {
                index: [1, 3],
                previous: None,
                next: Some("notes:abcdef0123".into()),
            }),
        };
        let r = GetResult {
            chunks: vec![chunk],
            omitted: Vec::new(),
            budget: crate::retrieve::Budget {
                requested: 100,
                applied: 100,
                clamped: false,
                cap: 16_000,
            },
            used: 9,
            hint: None,
            whole: 9,
        };
        assert_eq!(
            render_get(&r),
            "[notes:0123456789] Feeding (notes.md:3-20, ~9 tokens)\n```rust\nlet a = 1;\n```\n[part 1 of 3; next part: notes:abcdef0123]"
        );
    }
}
