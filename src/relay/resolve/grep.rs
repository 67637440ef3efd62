//! grep over a stored value: matching lines with context, overlapping
//! contexts merged as `grep -C` merges them, rendered within a size cap.

use serde::Serialize;

use super::{ResolveError, count_newlines};

/// Options for [`grep`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrepOptions {
    /// Context lines before and after each matching line.
    pub window: usize,
    /// Match letters regardless of case.
    pub ignore_case: bool,
    /// Matching lines to return; the rest are only counted.
    pub max_results: usize,
    /// Lines longer than this many chars are cut (around the match for the matching
    /// line) so one minified 100 MB line cannot fill the answer.
    pub max_line_chars: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        GrepOptions {
            window: 2,
            ignore_case: false,
            max_results: 50,
            max_line_chars: 400,
        }
    }
}

/// One matching line with its context.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepMatch {
    /// Zero-based line number, the same numbering [`super::lines`] uses.
    pub line_no: usize,
    /// Up to `window` lines before, nearest last, leaving out those the
    /// previous match already shows.
    pub before: Vec<String>,
    /// The matching line without its newline.
    pub line: String,
    /// Up to `window` lines after, stopping before the next match's line.
    pub after: Vec<String>,
}

impl GrepMatch {
    /// The first line shown with this match.
    fn first_line(&self) -> usize {
        self.line_no - self.before.len()
    }

    /// The line after the last one shown with this match.
    fn end_line(&self) -> usize {
        self.line_no + 1 + self.after.len()
    }

    /// The match as text, grep-style: context lines `n- line`, the match
    /// `n: line`.
    fn render(&self) -> String {
        let mut out = String::new();
        for (i, l) in self.before.iter().enumerate() {
            out.push_str(&format!("{}- {}\n", self.first_line() + i, l.trim_end()));
        }
        out.push_str(&format!("{}: {}\n", self.line_no, self.line.trim_end()));
        for (i, l) in self.after.iter().enumerate() {
            out.push_str(&format!("{}- {}\n", self.line_no + 1 + i, l.trim_end()));
        }
        out
    }
}

/// Matching lines, in value order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GrepResult {
    /// The first `max_results` matching lines.
    pub matches: Vec<GrepMatch>,
    /// All matching lines in the value (a line matching twice counts once).
    pub total_matches: usize,
    /// True when `total_matches` > `matches.len()`.
    pub truncated: bool,
}

/// [`GrepResult::render`]'s text and how much of the result it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepText {
    /// The matches, grep-style.
    pub text: String,
    /// How many of the result's matches `text` shows (all but the last ones
    /// when the size cap cut it).
    pub shown: usize,
}

impl GrepResult {
    /// `N matching line(s)` plus `in {what}` and how many are shown when cut.
    pub fn header(&self, what: Option<&str>) -> String {
        format!(
            "{} matching line(s){}{}",
            self.total_matches,
            what.map(|w| format!(" in {w}")).unwrap_or_default(),
            if self.truncated {
                format!(", first {} shown", self.matches.len())
            } else {
                String::new()
            }
        )
    }

    /// The matches as `grep -C` prints them: context lines `n- line`,
    /// matching lines `n: line`, and `--` between groups of lines that do
    /// not touch. Matches are added while the text stays within
    /// `max_chars` (the first is always shown).
    pub fn render(&self, max_chars: usize) -> GrepText {
        let mut text = String::new();
        let mut shown = 0;
        let mut end: Option<usize> = None;
        for m in &self.matches {
            let mut block = String::new();
            if end.is_some_and(|end| m.first_line() > end) {
                block.push_str("--\n");
            }
            block.push_str(&m.render());
            if shown > 0 && text.len() + block.len() > max_chars {
                break;
            }
            text.push_str(&block);
            shown += 1;
            end = Some(m.end_line());
        }
        GrepText { text, shown }
    }
}

/// Finds the lines matching a regex (Rust `regex` syntax, `^`/`$` match at line ends).
///
/// A match belongs to the line it starts on (a pattern may span lines, e.g.
/// `a\nb`). Overlapping windows are merged as `grep -C` merges them: a line
/// is shown once, with the first match that reaches it, and a matching line
/// is never another match's context.
pub fn grep(value: &str, pattern: &str, opts: &GrepOptions) -> Result<GrepResult, ResolveError> {
    let regex = regex::RegexBuilder::new(pattern)
        .case_insensitive(opts.ignore_case)
        .multi_line(true)
        .crlf(true)
        .build()
        .map_err(|e| ResolveError::InvalidRegex {
            pattern: pattern.to_string(),
            message: e.to_string(),
        })?;
    let mut matches: Vec<GrepMatch> = Vec::new();
    let mut total_matches = 0;
    // Line number of byte `counted_to`, advanced only while results are collected.
    let (mut counted_to, mut line_no) = (0, 0);
    let mut at = 0;
    while at < value.len() {
        let Some(found) = regex.find_at(value, at) else {
            break;
        };
        let hit = found.start();
        let line_end = value[hit..].find('\n').map_or(value.len(), |i| hit + i);
        total_matches += 1;
        if matches.len() < opts.max_results {
            let line_start = value[..hit].rfind('\n').map_or(0, |i| i + 1);
            line_no += count_newlines(&value[counted_to..line_start]);
            counted_to = line_start;
            let mut window = opts.window;
            if let Some(previous) = matches.last_mut() {
                // Its context stops before this line, and this one's
                // starts after what it shows.
                previous.after.truncate(line_no - previous.line_no - 1);
                window = window.min(line_no - previous.end_line());
            }
            matches.push(GrepMatch {
                line_no,
                before: context_before(value, line_start, window, opts.max_line_chars),
                line: clip_line(
                    trim_cr(&value[line_start..line_end]),
                    hit - line_start,
                    opts.max_line_chars,
                ),
                after: context_after(value, line_end, opts.window, opts.max_line_chars),
            });
        }
        at = line_end + 1;
    }
    Ok(GrepResult {
        truncated: total_matches > matches.len(),
        matches,
        total_matches,
    })
}

fn trim_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

fn context_before(value: &str, line_start: usize, window: usize, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut end = line_start;
    while out.len() < window && end > 0 {
        let prev_end = end - 1; // the newline ending the previous line
        let start = value[..prev_end].rfind('\n').map_or(0, |i| i + 1);
        out.push(clip_line(trim_cr(&value[start..prev_end]), 0, max));
        end = start;
    }
    out.reverse();
    out
}

fn context_after(value: &str, line_end: usize, window: usize, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = line_end + 1;
    while out.len() < window && start < value.len() {
        let end = value[start..].find('\n').map_or(value.len(), |i| start + i);
        out.push(clip_line(trim_cr(&value[start..end]), 0, max));
        start = end + 1;
    }
    out
}

/// Cuts a line to about `max` chars, keeping the text around byte `focus` and
/// marking each cut with `…`; the work is bounded by `max`, not the line length.
fn clip_line(line: &str, focus: usize, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let lead = if focus == 0 { 0 } else { max / 4 };
    let start = line[..focus]
        .char_indices()
        .rev()
        .nth(lead.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    let start = if lead == 0 { focus } else { start };
    let rest = &line[start..];
    let end = rest.char_indices().nth(max).map_or(rest.len(), |(i, _)| i);
    let mut out = String::with_capacity(end + 8);
    if start > 0 {
        out.push('…');
    }
    out.push_str(&rest[..end]);
    if start + end < line.len() {
        out.push('…');
    }
    out
}
