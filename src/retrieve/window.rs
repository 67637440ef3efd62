//! Cutting a symbol's source window to a budget. Whole lines are kept in
//! order; when the definition opens with a long doc comment, its first
//! paragraph stands in for the rest, so a budget that cannot hold everything
//! still shows the code that was asked for instead of only its documentation.

use serde::Serialize;

use crate::chunk::code::comment::comment_text;
use crate::tokens::{self, Running};

/// Lines of a doc comment's first paragraph kept when the rest is left out.
const SUMMARY_LINES: usize = 4;

/// Fewer doc lines than this are never left out: the marker line and the note
/// would cost about as much.
const MIN_ELIDED: usize = 3;

/// Doc comment lines a window left out so that the code fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Elided {
    /// The lines left out (1-based, inclusive).
    pub lines: [usize; 2],
    /// Their token estimate.
    pub token_est: usize,
}

impl Elided {
    /// "doc comment lines 5-18 (~120 tokens) left out to show the code", the
    /// wording the CLI and MCP share.
    pub fn describe(&self) -> String {
        format!(
            "doc comment lines {}-{} (~{} tokens) left out to show the code",
            self.lines[0], self.lines[1], self.token_est
        )
    }
}

/// What of a window fits a budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cut {
    /// The text shown (a `[…]` marker line where doc lines were left out).
    pub text: String,
    /// The last source line shown (one before the first when none is).
    pub last: usize,
    /// Token estimate of `text`.
    pub token_est: usize,
    /// The doc comment lines left out, when any were.
    pub elided: Option<Elided>,
}

/// Cuts `rows` (source lines, each with its newline; the first is line
/// `first`) to `budget` tokens. The definition starts at line `start`; when a
/// doc comment opens it and the rows do not all fit, the comment's first
/// paragraph is kept and the rest replaced by one marker line, provided that
/// shows code the plain cut would not.
pub(super) fn cut(rows: &[&str], first: usize, start: usize, budget: usize) -> Cut {
    let plain = keep(rows.iter().copied(), first, budget);
    if plain.last + 1 >= first + rows.len() {
        return plain;
    }
    let Some(comment_from) = start.checked_sub(first) else {
        return plain;
    };
    let comment_to = rows
        .iter()
        .skip(comment_from)
        .take_while(|r| comment_text(r).is_some())
        .count()
        + comment_from;
    let from = summary_end(rows, comment_from, comment_to);
    let mut to = comment_to;
    // A block comment's closing line stays, so the code after it is not
    // read as still inside the comment.
    if to > from && rows[to - 1].trim_end().ends_with("*/") {
        to -= 1;
    }
    if to < from + MIN_ELIDED {
        return plain;
    }
    let marker = marker_line(rows[from]);
    let with_marker = |from: usize| {
        let shown = rows[..from]
            .iter()
            .copied()
            .chain(std::iter::once(marker.as_str()))
            .chain(rows[to..].iter().copied());
        keep(shown, first, budget)
    };
    // Rows kept after the marker (`keep` numbers the rows it kept from
    // `first`), when the cut keeps the marker at all.
    let after = |c: &Cut, from: usize| (c.last + 1 - first).checked_sub(from + 1);
    let mut elided = with_marker(from);
    let Some(mut kept_after) = after(&elided, from) else {
        return plain;
    };
    if first + to + kept_after <= plain.last + 1 {
        return plain;
    }
    // Budget left after the whole code goes back to the doc comment, a
    // paragraph at a time (never into a fenced example), from its summary on.
    let mut from = from;
    if to + kept_after == rows.len() {
        let ends = paragraph_ends(rows, from, to);
        let fits = |at: usize| after(&with_marker(at), at) == Some(rows.len() - to);
        let more = ends.partition_point(|&at| fits(at));
        if let Some(&at) = more.checked_sub(1).and_then(|i| ends.get(i)) {
            from = at;
            elided = with_marker(from);
            kept_after = rows.len() - to;
        }
    }
    elided.last = first + to + kept_after - 1;
    elided.elided = Some(Elided {
        lines: [first + from, first + to - 1],
        token_est: tokens::estimate(&rows[from..to].concat()),
    });
    elided
}

/// The rows of `rows` that fit `budget`, in order, stopping at the first
/// that does not.
fn keep<'a>(rows: impl Iterator<Item = &'a str>, first: usize, budget: usize) -> Cut {
    let mut count = Running::default();
    let mut text = String::new();
    let mut shown = 0;
    for row in rows {
        let mut longer = count;
        longer.push(row);
        if longer.value() > budget {
            break;
        }
        count = longer;
        text.push_str(row);
        shown += 1;
    }
    Cut {
        text,
        last: first + shown - 1,
        token_est: count.value(),
        elided: None,
    }
}

/// The end (exclusive) of the first paragraph of the comment in
/// `rows[from..to]`, at most [`SUMMARY_LINES`] lines of text after any
/// opening line without text (`/**`).
fn summary_end(rows: &[&str], from: usize, to: usize) -> usize {
    let mut end = from;
    let mut text_lines = 0;
    while end < to && text_lines < SUMMARY_LINES {
        let words = comment_text(rows[end]).unwrap_or("").trim();
        if words.is_empty() || words == "*" {
            if text_lines > 0 {
                break;
            }
        } else {
            text_lines += 1;
        }
        end += 1;
    }
    end
}

/// The rows in `rows[from..to]` after which a paragraph of the comment ends
/// outside a fenced example (each a blank comment line), in order.
fn paragraph_ends(rows: &[&str], from: usize, to: usize) -> Vec<usize> {
    let mut fenced = false;
    let mut ends = Vec::new();
    let mut heading = false;
    for (i, row) in rows.iter().enumerate().take(to).skip(from + 1) {
        let words = comment_text(row).unwrap_or("").trim();
        if words.starts_with("```") || words.starts_with("~~~") {
            fenced = !fenced;
        } else if !fenced && (words.is_empty() || words == "*") {
            // A heading alone (`# Examples`) would only announce what was cut.
            if !heading {
                ends.push(i);
            }
            continue;
        }
        heading = !fenced && words.starts_with('#');
    }
    ends
}

/// A comment line standing for the left-out lines, written like `row` (its
/// indentation and marker) so the window still reads as the language.
fn marker_line(row: &str) -> String {
    let indent = &row[..row.len() - row.trim_start().len()];
    let t = row.trim_start();
    let marker = ["///", "//!", "//", "#"]
        .into_iter()
        .find(|m| t.starts_with(m))
        .unwrap_or(if t.starts_with('*') || t.starts_with("/*") {
            " *"
        } else {
            "//"
        });
    let indent = if marker == " *" {
        indent.strip_suffix(' ').unwrap_or(indent)
    } else {
        indent
    };
    let eol = if row.ends_with("\r\n") { "\r\n" } else { "\n" };
    format!("{indent}{marker} […]{eol}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }

    const RUST: &str = "\
/// Builds the walker.
///
/// # Examples
///
/// ```
/// let w = WalkBuilder::new(\".\").build();
/// for entry in w { println!(\"{entry:?}\"); }
/// ```
pub fn build(&self) -> Walk {
    Walk::new(self)
}
";

    #[test]
    fn a_window_that_fits_is_whole() {
        let r = rows(RUST);
        let c = cut(&r, 10, 10, 1000);
        assert_eq!(c.text, RUST);
        assert_eq!(c.last, 20);
        assert_eq!(c.elided, None);
    }

    #[test]
    fn a_long_doc_comment_gives_way_to_the_code() {
        let r = rows(RUST);
        let code = "pub fn build(&self) -> Walk {\n    Walk::new(self)\n}\n";
        let budget = tokens::estimate(&format!("/// Builds the walker.\n/// […]\n{code}"));
        let c = cut(&r, 10, 10, budget);
        assert_eq!(c.text, format!("/// Builds the walker.\n/// […]\n{code}"));
        assert_eq!(c.last, 20);
        assert_eq!(c.token_est, budget);
        let e = c.elided.expect("doc lines left out");
        assert_eq!(e.lines, [11, 17]);
        assert_eq!(e.token_est, tokens::estimate(&r[1..8].concat()));
        // The plain cut would have shown no code at all.
        let plain = keep(r.iter().copied(), 10, budget);
        assert!(!plain.text.contains("pub fn"));
    }

    #[test]
    fn budget_left_after_the_code_shows_whole_paragraphs_of_the_doc() {
        let text = "\
/// Sums the ledger.
///
/// Refunds are negative entries.
///
/// # Examples
///
/// ```
/// let total = ledger.total();
///
/// assert_eq!(total, 3);
/// ```
fn total(&self) -> i64 {
    self.entries.iter().sum()
}
";
        let r = rows(text);
        let code = "fn total(&self) -> i64 {\n    self.entries.iter().sum()\n}\n";
        let two = format!(
            "/// Sums the ledger.\n///\n/// Refunds are negative entries.\n/// […]\n{code}"
        );
        // Enough for the second paragraph but not for the example: the
        // heading alone and the inside of the fence are not paragraph ends.
        let c = cut(&r, 1, 1, tokens::estimate(&two) + 12);
        assert_eq!(c.text, two);
        assert_eq!(c.elided.map(|e| e.lines), Some([4, 11]));
        assert_eq!(c.last, 14);
    }

    #[test]
    fn context_above_is_kept_and_block_comments_stay_closed() {
        let text = "\
}

/**
 * Sums the ledger.
 *
 * Every entry counts once; refunds are negative
 * entries and reversed charges are dropped
 * before the sum.
 */
public long total() {
    return entries.stream().mapToLong(e -> e.amount).sum();
}
";
        let r = rows(text);
        let want = "}\n\n/**\n * Sums the ledger.\n * […]\n */\npublic long total() {\n";
        let c = cut(&r, 1, 3, tokens::estimate(want));
        assert_eq!(c.text, want);
        assert_eq!(c.last, 10);
        assert_eq!(c.elided.map(|e| e.lines), Some([5, 8]));
    }

    #[test]
    fn the_marker_line_ends_like_the_file_s_lines() {
        assert_eq!(marker_line("    /// More.\r\n"), "    /// […]\r\n");
        assert_eq!(marker_line("   * More.\n"), "   * […]\n");
        assert_eq!(marker_line("# More.\n"), "# […]\n");
    }

    #[test]
    fn short_doc_comments_and_docstrings_are_cut_plainly() {
        let short = rows("/// One.\n///\n/// Two.\nfn f() {\n    body();\n}\n");
        let c = cut(&short, 1, 1, 8);
        assert_eq!(c.elided, None);
        assert_eq!(c, keep(short.iter().copied(), 1, 8));
        let python = rows(
            "def total(self):\n    \"\"\"Sums the ledger.\n\n    Refunds are negative.\n    \"\"\"\n    return sum(self.entries)\n",
        );
        let c = cut(&python, 1, 1, 10);
        assert_eq!(c.elided, None);
        assert!(c.text.starts_with("def total(self):\n"));
    }
}
