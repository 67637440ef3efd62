//! Plain-text and JSON chunkers, used for relay values and files of unknown format.
//!
//! Both are pure and keep the chunk invariants exactly: the byte ranges of a
//! document's chunks tile `[0, len)` and every chunk's text is its source slice,
//! unchanged (no fence repair or front-matter skipping as in Markdown).
//!
//! - [`chunk_text`] packs paragraphs (a paragraph owns the blank lines after it)
//!   into chunks of at most `max_chunk_tokens`; a paragraph that alone is too big
//!   is packed line by line, and a line that alone is too big is cut at a char
//!   boundary, at the last whitespace when there is one in the second half.
//! - [`chunk_json`] splits a JSON container into its members: object keys
//!   (`title_root + [key]`) or array items (`title_root + ["[i]"]`). Small
//!   neighbours are grouped (`"first … last"` keys, `"[i..j]"` items, `j`
//!   exclusive as in Rust ranges and jq's `.[i:j]`); a member that alone is too
//!   big is split the same way one level down, and a too-big scalar falls back to
//!   the text splitter. Member boundaries come from a streaming byte scan that
//!   tracks strings, escapes and nesting, so a 100 MB array never becomes a tree;
//!   the JSON is validated first with `serde::de::IgnoredAny` (no tree either).
//!   Input that is not JSON is chunked as text with a note. An array item that
//!   is a named record (`"name"`, `"title"`…, or `metadata.name`) is labelled by
//!   its name (`[281] tantivy`) and, from a quarter of `max_chunk_tokens`, is
//!   never grouped; a group of records shows its first and last names.
//!
//! HTML is chunked with [`chunk_text`] if the caller wants it indexed: nothing is
//! stripped, since ranges must tile the stored value. Packing adds up estimates and,
//! near the limit, measures the joined text (estimates are not additive across
//! joins).

use super::{Chunk, ChunkKind, ChunkOptions, Chunked, id, line_of, line_range};
use crate::tokens;

mod json;

pub use json::{chunk_json, group_record_names, record_path};

/// Chunks plain text by paragraphs, then lines, then chars (see the module docs).
pub fn chunk_text(doc: &str, text: &str, title_root: &[String], opts: &ChunkOptions) -> Chunked {
    let mut pieces = Vec::new();
    split_text(
        text,
        0,
        text.len(),
        opts.max_chunk_tokens.max(1),
        &mut pieces,
    );
    let n = pieces.len();
    let pieces = pieces
        .into_iter()
        .enumerate()
        .map(|(i, (start, end))| Piece {
            start,
            end,
            title_path: title_root.to_vec(),
            part: (n > 1).then_some([i + 1, n]),
        });
    Chunked {
        chunks: build(doc, text, ChunkKind::Text, pieces),
        ..Chunked::default()
    }
}

/// Byte ranges `[start, end)` of pieces, in order.
pub(super) type Spans = Vec<(usize, usize)>;

/// A chunk before its text, lines and ID are filled in.
struct Piece {
    start: usize,
    end: usize,
    title_path: Vec<String>,
    part: Option<[usize; 2]>,
}

fn build(
    doc: &str,
    text: &str,
    kind: ChunkKind,
    pieces: impl Iterator<Item = Piece>,
) -> Vec<Chunk> {
    // Line numbers are counted from the previous chunk, not from the start of the
    // value, so a many-chunk value costs one pass instead of one per chunk.
    let (mut base, mut base_line) = (0, 1);
    let mut chunks: Vec<Chunk> = pieces
        .map(|piece| {
            let first = base_line + line_of(&text[base..], piece.start - base) - 1;
            (base, base_line) = (piece.start, first);
            let local = line_range(&text[piece.start..piece.end], 0, piece.end - piece.start);
            let chunk_text = text[piece.start..piece.end].to_string();
            Chunk {
                id: String::new(),
                doc: doc.to_string(),
                title_path: piece.title_path,
                token_est: tokens::estimate(&chunk_text),
                text_sha256: String::new(),
                text: chunk_text,
                bytes: [piece.start, piece.end],
                lines: [first, first + local[1] - 1],
                kind,
                part: piece.part,
                symbol: None,
                lang: None,
            }
        })
        .collect();
    id::assign(&mut chunks);
    chunks
}

/// Splits `[start, end)` into pieces that each fit `max` tokens, in order.
fn split_text(text: &str, start: usize, end: usize, max: usize, out: &mut Spans) {
    if start == end {
        return;
    }
    if tokens::estimate(&text[start..end]) <= max {
        out.push((start, end));
        return;
    }
    let paragraphs = paragraph_bounds(text, start, end);
    pack(text, &paragraphs, max, out, &mut |s, e, out| {
        let lines = line_bounds(text, s, e);
        pack(text, &lines, max, out, &mut |s, e, out| {
            cut_line(text, s, e, max, out)
        });
    });
}

/// Greedily groups consecutive `[bounds[i], bounds[i+1])` units into pieces of at
/// most `max` tokens; a unit that alone is too big goes to `oversized`.
fn pack(
    text: &str,
    bounds: &[usize],
    max: usize,
    out: &mut Spans,
    oversized: &mut dyn FnMut(usize, usize, &mut Spans),
) {
    let (Some(&first), Some(&last)) = (bounds.first(), bounds.last()) else {
        return;
    };
    let mut group_start = first;
    let mut tally = Tally::default();
    for unit in bounds.windows(2) {
        let (a, b) = (unit[0], unit[1]);
        let unit_tokens = tokens::estimate(&text[a..b]);
        if unit_tokens > max {
            if group_start < a {
                out.push((group_start, a));
            }
            oversized(a, b, out);
            group_start = b;
            tally = Tally::default();
            continue;
        }
        if group_start < a
            && !tally.fits(unit_tokens, max, || tokens::estimate(&text[group_start..b]))
        {
            out.push((group_start, a));
            group_start = a;
            tally = Tally::starting(unit_tokens);
        } else if group_start == a {
            tally = Tally::starting(unit_tokens);
        }
    }
    if group_start < last {
        out.push((group_start, last));
    }
}

/// Token count of a growing piece without re-estimating it at every step.
///
/// Estimates are not additive: joining two texts can cost a little more or less
/// than the parts (a space merging into the next word, a split punctuation run).
/// The tally keeps the exact estimate of the piece as last measured plus the sum
/// of the units added since, and allows [`JOIN_SLACK`] tokens per join; only when
/// that bound could pass the budget is the joined text measured again.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    exact: usize,
    since: usize,
    joins: usize,
}

/// Most tokens one join can add beyond the sum of its parts.
const JOIN_SLACK: usize = 2;

impl Tally {
    fn starting(tokens: usize) -> Tally {
        Tally {
            exact: tokens,
            since: 0,
            joins: 0,
        }
    }

    /// Adds a unit if the piece stays within `max`; `measure` estimates the piece
    /// with the unit joined.
    fn fits(&mut self, unit: usize, max: usize, measure: impl FnOnce() -> usize) -> bool {
        let bound = self.exact + self.since + unit + (self.joins + 1) * JOIN_SLACK;
        if bound <= max {
            self.since += unit;
            self.joins += 1;
            return true;
        }
        let joined = measure();
        if joined > max {
            return false;
        }
        *self = Tally::starting(joined);
        true
    }
}

/// Paragraph starts: a non-blank line that follows a blank line opens one.
fn paragraph_bounds(text: &str, start: usize, end: usize) -> Vec<usize> {
    let mut bounds = vec![start];
    let mut previous_blank = false;
    let mut at = start;
    while at < end {
        let line_end = text[at..end].find('\n').map_or(end, |i| at + i + 1);
        let blank = text[at..line_end].trim().is_empty();
        if previous_blank && !blank && at > start {
            bounds.push(at);
        }
        previous_blank = blank;
        at = line_end;
    }
    bounds.push(end);
    bounds
}

/// Line starts within `[start, end)`, plus `end`.
fn line_bounds(text: &str, start: usize, end: usize) -> Vec<usize> {
    let mut bounds = vec![start];
    bounds.extend(
        text[start..end]
            .match_indices('\n')
            .map(|(i, _)| start + i + 1)
            .filter(|&b| b < end),
    );
    bounds.push(end);
    bounds
}

/// Cuts one overlong line into pieces of at most `max` tokens at char boundaries.
pub(super) fn cut_line(text: &str, start: usize, end: usize, max: usize, out: &mut Spans) {
    let mut at = start;
    while at < end {
        let rest = &text[at..end];
        // One pass over the piece and the char after it: the cost is
        // proportional to the piece, never to the rest of a huge line.
        let mut len = tokens::longest_prefix_within(rest, max);
        if len == rest.len() {
            out.push((at, end));
            return;
        }
        if len == 0 {
            // One char over budget on its own (max < its estimate): take it anyway
            // rather than loop forever.
            len = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        if let Some(space) = rest[..len].rfind(char::is_whitespace)
            && space >= len / 2
        {
            len = space + rest[space..].chars().next().map_or(1, char::len_utf8);
        }
        out.push((at, at + len));
        at += len;
    }
}

#[cfg(test)]
mod tests;
