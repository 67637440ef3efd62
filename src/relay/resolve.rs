//! Resolving a relayed value: length, read, slice, lines, grep and jq queries.
//!
//! Every operation takes the whole value as `&str` (the caller reads or maps the
//! stored file) and returns only the part asked for. Values can be hundreds of
//! megabytes, so nothing here copies the whole value: [`Part`] borrows its text,
//! positions are found with block-wise character counts and newline searches, and
//! [`grep`] lets the regex engine scan the value once instead of testing each line.
//! Only [`query`] materializes the value, because jq needs a parsed tree.
//!
//! Conventions shared by [`fn@slice`] and [`lines`]: positions are zero-based, a range
//! is half-open `[from, to)`, a negative start counts back from the end, and any
//! start or length out of range is clamped (an empty part, never an error), so an
//! agent that overshoots learns the real size from [`Part::describe`].

use std::time::Duration;

use serde::Serialize;

use crate::tokens;

mod grep;
mod query;

pub use grep::{GrepMatch, GrepOptions, GrepResult, GrepText, grep};
pub use query::{QueryOptions, QueryResult, query};

/// Why a resolve operation failed; each message says what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    /// The grep pattern is not a valid regular expression.
    #[error(
        "invalid regex `{pattern}`: {message}\nhint: the pattern uses Rust regex syntax; escape metacharacters such as `(`, `[`, `.` with `\\`"
    )]
    InvalidRegex {
        /// The pattern as given.
        pattern: String,
        /// The regex crate's explanation.
        message: String,
    },
    /// A jq query was run on a value that does not parse as JSON.
    #[error(
        "value is not JSON (media type {media}; {detail}); use grep or lines instead of a jq query"
    )]
    NotJson {
        /// Sniffed media type of the value (`text/plain`, …).
        media: &'static str,
        /// Where and why the JSON parse failed.
        detail: String,
    },
    /// A jq query was run on JSON that nests too deeply to read safely.
    #[error(
        "value nests arrays or objects more than {limit} levels deep, too deep for a jq query; use grep, lines or slice instead"
    )]
    NestedTooDeep {
        /// The deepest nesting a query reads.
        limit: usize,
    },
    /// The jq program does not parse or refers to undefined names.
    #[error(
        "invalid jq query `{query}`: {message}\nhint: examples of valid queries: `.items | length`, `.[] | select(.name == \"x\")`, `keys`"
    )]
    InvalidQuery {
        /// The query as given.
        query: String,
        /// Parse or compile errors.
        message: String,
    },
    /// The jq program failed while running.
    #[error(
        "jq query `{query}` failed after {outputs} output(s): {message}\nhint: check the value's shape with `keys`, `type` or `.[0]` first"
    )]
    QueryFailed {
        /// The query as given.
        query: String,
        /// The runtime error.
        message: String,
        /// How many outputs came before the error.
        outputs: usize,
    },
    /// The jq program ran longer than allowed.
    #[error(
        "jq query `{query}` ran longer than {} s ({outputs} output(s) so far) and was stopped; narrow it (e.g. `.items[:20]`, `first(...)`, `limit(10; ...)`)",
        limit.as_secs_f64()
    )]
    QueryTimedOut {
        /// The query as given.
        query: String,
        /// The time limit.
        limit: Duration,
        /// How many outputs came before the limit.
        outputs: usize,
    },
}

/// Sizes of a value in the units the operations use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Length {
    /// Unicode scalar values (what [`fn@slice`] counts).
    pub chars: usize,
    /// UTF-8 bytes.
    pub bytes: usize,
    /// Lines, as [`lines`] counts them (a final newline does not open a line).
    pub lines: usize,
    /// Estimated tokens (see [`crate::tokens`]).
    pub tokens: usize,
}

/// Measures a value.
pub fn length(value: &str) -> Length {
    Length {
        chars: value.chars().count(),
        bytes: value.len(),
        lines: count_lines(value),
        tokens: tokens::estimate(value),
    }
}

/// What a [`Part`]'s range counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Unicode scalar values (a combining mark counts on its own).
    Chars,
    /// Lines split at `\n`.
    Lines,
}

impl Unit {
    /// The name used in [`Part::describe`] and JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Lines => "lines",
        }
    }
}

/// A piece of a value plus a statement of which piece it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part<'a> {
    /// The text, borrowed from the value (lines keep their `\n`).
    pub text: &'a str,
    /// Half-open, zero-based `[from, to)` in `unit`s.
    pub range: [usize; 2],
    /// Size of the whole value in `unit`s.
    pub total: usize,
    /// What the range counts.
    pub unit: Unit,
    /// Where `text` starts in the value, in bytes.
    #[serde(skip)]
    pub byte_start: usize,
}

impl Part<'_> {
    /// One line saying which part this is, e.g. `chars 48000–48200 of 48213`.
    pub fn describe(&self) -> String {
        let [from, to] = self.range;
        let mut line = format!("{} {from}–{to} of {}", self.unit.as_str(), self.total);
        if from == to && self.total > 0 && from == self.total {
            line.push_str(" (empty: the start is at or past the end)");
        } else if self.total == 0 {
            line.push_str(" (the value is empty)");
        }
        line
    }
}

/// The whole value as one part.
pub fn read(value: &str) -> Part<'_> {
    let total = value.chars().count();
    Part {
        text: value,
        range: [0, total],
        total,
        unit: Unit::Chars,
        byte_start: 0,
    }
}

/// `length` characters from `start` (negative: from the end); never splits UTF-8.
pub fn slice(value: &str, start: i64, length: usize) -> Part<'_> {
    let total = value.chars().count();
    let from = clamp_start(start, total);
    let to = from.saturating_add(length).min(total);
    let byte_from = if from > total / 2 {
        // Near the end (the usual "what is at the end" case): walk back from the
        // end instead of across the whole value.
        byte_of_char_from_end(value, total - from)
    } else {
        byte_of_char(value, from)
    };
    let byte_to = byte_from + byte_of_char(&value[byte_from..], to - from);
    Part {
        text: &value[byte_from..byte_to],
        range: [from, to],
        total,
        unit: Unit::Chars,
        byte_start: byte_from,
    }
}

/// `line_count` lines from zero-based `start_line` (negative: from the end).
pub fn lines(value: &str, start_line: i64, line_count: usize) -> Part<'_> {
    let total = count_lines(value);
    let from = clamp_start(start_line, total);
    let to = from.saturating_add(line_count).min(total);
    let byte_from = if from > total / 2 {
        byte_of_line_from_end(value, total - from)
    } else {
        byte_of_line(value, 0, from)
    };
    let byte_to = byte_of_line(value, byte_from, to - from);
    Part {
        text: &value[byte_from..byte_to],
        range: [from, to],
        total,
        unit: Unit::Lines,
        byte_start: byte_from,
    }
}

/// `part` of `value` cut to its first `max_chars` characters, as a character
/// slice, when it holds more; `None` when it fits. Lines are no unit of size:
/// one line of a minified JSON value can be all of its megabytes, so a read
/// of "50 lines" is capped like any other, and the caller continues by
/// characters from the cut's end.
pub fn capped<'a>(value: &'a str, part: &Part<'a>, max_chars: usize) -> Option<Part<'a>> {
    // Bytes are at least characters: most parts are told apart without
    // counting, and a character part knows its length.
    let chars = || match part.unit {
        Unit::Chars => part.range[1] - part.range[0],
        Unit::Lines => part.text.chars().count(),
    };
    if part.text.len() <= max_chars || chars() <= max_chars {
        return None;
    }
    let start = value[..part.byte_start].chars().count();
    Some(slice(
        value,
        i64::try_from(start).unwrap_or(i64::MAX),
        max_chars,
    ))
}

fn clamp_start(start: i64, total: usize) -> usize {
    if start < 0 {
        let back = usize::try_from(start.unsigned_abs()).unwrap_or(usize::MAX);
        total.saturating_sub(back)
    } else {
        usize::try_from(start).unwrap_or(usize::MAX).min(total)
    }
}

/// Number of lines: `\n` count, plus one for a last line without a newline.
fn count_lines(value: &str) -> usize {
    let newlines = count_newlines(value);
    if value.is_empty() || value.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// Counts `\n` with `str::matches`, which finds them with core's `memchr`, so the
/// count stays fast even in unoptimized builds.
fn count_newlines(text: &str) -> usize {
    text.matches('\n').count()
}

/// Block size for character counting: large enough that core's vectorized
/// `chars().count()` dominates, small enough that the final walk is short.
const BLOCK: usize = 1 << 16;

/// Byte offset of the `n`-th character of `text` (`text.len()` when past the end).
fn byte_of_char(text: &str, n: usize) -> usize {
    let mut pos = 0;
    let mut remaining = n;
    while pos < text.len() {
        let mut end = (pos + BLOCK).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let block = &text[pos..end];
        let count = block.chars().count();
        if count > remaining {
            return pos + block.char_indices().nth(remaining).map_or(0, |(i, _)| i);
        }
        remaining -= count;
        pos = end;
    }
    text.len()
}

/// Byte offset of the character `n` characters before the end of `text`.
fn byte_of_char_from_end(text: &str, n: usize) -> usize {
    let mut end = text.len();
    let mut remaining = n;
    while end > 0 && remaining > 0 {
        let mut start = end.saturating_sub(BLOCK);
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let block = &text[start..end];
        let count = block.chars().count();
        if count >= remaining {
            return start
                + block
                    .char_indices()
                    .nth(count - remaining)
                    .map_or(0, |(i, _)| i);
        }
        remaining -= count;
        end = start;
    }
    end
}

/// Byte offset `n` lines after `from` (which is a line start); `text.len()` past the end.
fn byte_of_line(text: &str, from: usize, n: usize) -> usize {
    let mut pos = from;
    for _ in 0..n {
        match text[pos..].find('\n') {
            Some(i) => pos += i + 1,
            None => return text.len(),
        }
    }
    pos
}

/// Byte offset of the start of the line `n` lines before the end.
fn byte_of_line_from_end(text: &str, n: usize) -> usize {
    if n == 0 {
        return text.len();
    }
    // The last line's own newline does not open another line, so skip it.
    let mut end = text.strip_suffix('\n').map_or(text.len(), str::len);
    for _ in 0..n {
        match text[..end].rfind('\n') {
            Some(i) => end = i,
            None => return 0,
        }
    }
    end + 1
}

#[cfg(test)]
mod tests;
