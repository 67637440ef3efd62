//! A container over the budget shown as its outline: its header, then one
//! line per member in file order while the budget lasts. Members are the
//! symbols with chunks of their own (methods, nested types) and those it
//! declares in its own chunk (fields, variants, required methods,
//! prototypes): a struct of commented fields or an interface is all members
//! of the second kind, and its first screenful would name only a few.

use serde::Serialize;

use super::candidates::{Found, member_qualified};
use super::file_outline::{entry_cost, outline_line, skeleton, without_blank_start};
use super::window;
use crate::chunk::{Chunk, DeclaredMember};
use crate::tokens;

/// A member of a container shown as its outline.
#[derive(Debug, Clone, Serialize)]
pub struct Member {
    /// Chunk ID: its own, or for a declared member its container's part
    /// that holds it.
    pub id: String,
    /// Qualified name, for a `symbol` call.
    pub symbol: String,
    /// Its lines.
    pub lines: [usize; 2],
    /// Its signature, indented by its nesting.
    pub signature: String,
}

/// The members an outline left out.
#[derive(Debug, Clone, Serialize)]
pub struct MoreMembers {
    /// How many.
    pub count: usize,
    /// Where they are.
    pub lines: [usize; 2],
    /// The budget that shows them all.
    pub budget_needed: usize,
}

impl MoreMembers {
    /// "5 more members (lines 46-73) need BUDGET 104", with the way the
    /// caller names a budget (`--budget`, `"budget":`).
    pub fn describe(&self, budget: &str) -> String {
        format!(
            "{} (lines {}-{}) {} {budget} {}",
            super::counted(self.count, "more member", "more members"),
            self.lines[0],
            self.lines[1],
            super::needs(self.count),
            self.budget_needed
        )
    }
}

/// What an outline shows.
pub(super) struct Outline {
    /// The header's text.
    pub text: String,
    /// The header's lines.
    pub lines: [usize; 2],
    /// Token estimate of the header and the members shown.
    pub token_est: usize,
    /// The members shown.
    pub members: Vec<Member>,
    /// The members left out.
    pub more: Option<MoreMembers>,
}

/// A longer declared member's line is cut here: it stands for the member,
/// it is not the member.
const LONG_LINE: usize = 120;

/// The outline of the container `f` within `budget`, from `chunks` (its
/// document's) and `rows` (the document's lines, each with its newline).
/// `None` when `f` has no members (a long function), or when the outline
/// would name no more of them than the plain window, cut at line
/// `cut_last`, shows whole (a short trait's documented methods).
pub(super) fn outline(
    f: &Found,
    chunks: &[Chunk],
    rows: &[&str],
    budget: usize,
    cut_last: usize,
) -> Option<Outline> {
    let [from, to] = f.lines;
    let mut members = own_members(f, chunks);
    let declared = declared_members(f, chunks, rows, &members);
    let any_declared = !declared.is_empty();
    members.extend(declared);
    members.sort_by_key(|m| m.lines);
    let first = members.first()?.lines[0];
    // Each member is shown with its ID and lines, which count too.
    let costs: Vec<usize> = members
        .iter()
        .map(|m| entry_cost(&m.id, m.lines, &m.signature))
        .collect();
    let all_members: usize = costs.iter().sum();
    let end = first.saturating_sub(1).max(from);
    let (header, last) = match any_declared {
        true => header_before(f, rows, end, all_members, budget)?,
        false => (
            header_of_chunk(f, all_members, budget),
            end.min(f.whole.lines[1]).max(from),
        ),
    };
    let mut used = tokens::estimate(&header);
    let mut shown = Vec::new();
    let mut short = 0;
    for (m, est) in members.iter().zip(costs) {
        if short == 0 && used + est <= budget {
            used += est;
            shown.push(m.clone());
        } else {
            // Members are shown in file order: after the first that does
            // not fit, none is.
            short += est;
        }
    }
    let in_cut = members.iter().filter(|m| m.lines[1] <= cut_last).count();
    if shown.len() <= in_cut {
        return None;
    }
    Some(Outline {
        text: header,
        lines: [from, last],
        token_est: used,
        more: members.get(shown.len()).map(|m| MoreMembers {
            count: members.len() - shown.len(),
            lines: [m.lines[0], to],
            budget_needed: used + short,
        }),
        members: shown,
    })
}

/// The header of `f` when it declares members: its lines up to `end`
/// (the doc comment and the declaration's opening line; its own chunk holds
/// the members too, and its skeleton would show them twice), as written when
/// that fits beside every member, else their skeleton, else, for a long doc
/// comment (Go's `http.Transport`), cut to its first paragraph so that
/// members fit beside it. With the header's last line.
fn header_before(
    f: &Found,
    rows: &[&str],
    end: usize,
    all_members: usize,
    budget: usize,
) -> Option<(String, usize)> {
    let from = f.lines[0];
    let before = rows.get(from.saturating_sub(1)..end.min(rows.len()))?;
    let raw: String = before.concat();
    if tokens::estimate(&raw) + all_members <= budget {
        return Some((raw, end));
    }
    let mut head = f.whole.clone();
    head.text = raw;
    let sk = skeleton(&head);
    if tokens::estimate(&sk) <= budget / 2 {
        return Some((sk, end));
    }
    let cut = window::cut(before, from, from, budget / 2);
    Some((cut.text, cut.last.max(from)))
}

/// The header of a container whose members all have chunks: its own chunk
/// as written (fields, attributes) when it fits with every member; its
/// skeleton otherwise, so that the budget named for the members left out is
/// the one that shows them.
fn header_of_chunk(f: &Found, all_members: usize, budget: usize) -> String {
    let raw = without_blank_start(f.whole.text.trim_end()).to_string() + "\n";
    if tokens::estimate(&raw) + all_members <= budget {
        raw
    } else {
        skeleton(&f.whole)
    }
}

/// The symbols with chunks of their own inside `f`, with their own lines
/// (a chunk starts with the gap before it).
fn own_members(f: &Found, chunks: &[Chunk]) -> Vec<Member> {
    let [from, to] = f.lines;
    chunks
        .iter()
        .filter(|c| c.id != f.whole.id && !c.is_later_part())
        .filter_map(|c| {
            let sym = c.symbol.as_ref()?;
            let [a, b] = sym.lines.unwrap_or(c.lines);
            (a > from && b <= to).then(|| Member {
                id: c.id.clone(),
                symbol: sym.qualified.clone(),
                lines: [a, b],
                signature: outline_line(c),
            })
        })
        .collect()
}

/// The members `f` declares in its own chunk, each as its declaration's
/// first line; not those inside a member shown already (a Python
/// attribute set in `__init__`).
fn declared_members(f: &Found, chunks: &[Chunk], rows: &[&str], own: &[Member]) -> Vec<Member> {
    let Some(sym) = &f.whole.symbol else {
        return Vec::new();
    };
    let depth = f.whole.title_path.len().saturating_sub(1);
    sym.declared
        .iter()
        .filter(|m| {
            !own.iter()
                .any(|o| o.lines[0] <= m.lines[0] && m.lines[1] <= o.lines[1])
        })
        .map(|m| Member {
            // The part of a split container that holds the member.
            id: part_holding(chunks, m.lines[0])
                .map_or(&f.whole.id, |c| &c.id)
                .clone(),
            symbol: member_qualified(&f.whole, sym, m),
            lines: m.lines,
            signature: format!("{}{}", "    ".repeat(depth), declaration_line(m, rows)),
        })
        .collect()
}

/// The chunk among `chunks` (a document's, in order) holding `line`: the
/// part of a split container a declared member is in.
pub(super) fn part_holding(chunks: &[Chunk], line: usize) -> Option<&Chunk> {
    chunks
        .iter()
        .find(|c| c.lines[0] <= line && line <= c.lines[1])
}

/// The first line of a declared member that is code (not its doc comment
/// or an attribute), whitespace collapsed, cut when long; its kind and name
/// when no line is.
fn declaration_line(m: &DeclaredMember, rows: &[&str]) -> String {
    let [a, b] = m.lines;
    let line = rows
        .get(a.saturating_sub(1)..b.min(rows.len()))
        .unwrap_or_default()
        .iter()
        .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
        .find(|r| !r.is_empty() && !is_comment_or_attribute(r));
    match line {
        Some(line) if line.chars().count() > LONG_LINE => {
            let cut: String = line.chars().take(LONG_LINE).collect();
            format!("{}…", cut.trim_end())
        }
        Some(line) => line,
        None => format!("{} {}", m.kind, m.name),
    }
}

/// Whether a trimmed line is a comment or an attribute, annotation or
/// decorator in one of the languages ctx reads.
fn is_comment_or_attribute(line: &str) -> bool {
    ["//", "/*", "*", "#", "@", "\"\"\"", "'''"]
        .iter()
        .any(|p| line.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_declared_member_is_shown_by_its_first_line_of_code() {
        let rows = [
            "    /// How long to wait.\n",
            "    #[serde(default)]\n",
            "    pub   timeout:  Duration,\n",
            "    // Deadline is the absolute point in time.\n",
            "    Deadline time.Time\n",
            "    /** only a comment */\n",
        ];
        let member = |lines, name: &str| DeclaredMember {
            name: name.into(),
            kind: "field".into(),
            lines,
        };
        assert_eq!(
            declaration_line(&member([1, 3], "timeout"), &rows),
            "pub timeout: Duration,"
        );
        assert_eq!(
            declaration_line(&member([4, 5], "Deadline"), &rows),
            "Deadline time.Time"
        );
        assert_eq!(declaration_line(&member([6, 6], "odd"), &rows), "field odd");
        // Lines outside the file are no lines.
        assert_eq!(
            declaration_line(&member([9, 12], "gone"), &rows),
            "field gone"
        );
        let long = format!("    pub table: [u8; 4] = [{}];\n", "0, ".repeat(60));
        let shown = declaration_line(&member([1, 1], "table"), &[long.as_str()]);
        assert!(
            shown.ends_with('…') && shown.chars().count() == LONG_LINE + 1,
            "{shown}"
        );
    }
}
