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
//!   Input that is not JSON is chunked as text with a note.
//!
//! HTML is chunked with [`chunk_text`] if the caller wants it indexed: nothing is
//! stripped, since ranges must tile the stored value. Packing adds up estimates and,
//! near the limit, measures the joined text (estimates are not additive across
//! joins).

use super::{Chunk, ChunkKind, ChunkNote, ChunkOptions, Chunked, id, line_of, line_range};
use crate::tokens;

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

/// Chunks a JSON value by members; not-JSON input is chunked as text with a note.
pub fn chunk_json(doc: &str, text: &str, title_root: &[String], opts: &ChunkOptions) -> Chunked {
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let mut chunked = chunk_text(doc, text, title_root, opts);
        if !text.trim().is_empty() {
            chunked.notes.push(ChunkNote {
                line: Some(error.line()),
                message: format!("not valid JSON ({error}); chunked as plain text"),
                kind: crate::error::WarningKind::NotJson,
            });
        }
        return chunked;
    }
    let value_start = text.len() - text.trim_start().len();
    let mut pieces = Vec::new();
    let max = opts.max_chunk_tokens.max(1);
    split_json(
        text,
        (0, text.len()),
        value_start,
        title_root,
        max,
        &mut pieces,
    );
    Chunked {
        chunks: build(doc, text, ChunkKind::Json, pieces.into_iter()),
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

/// One direct member of a JSON container.
struct Member {
    /// Where the member starts: its key's opening quote, or the item's first byte.
    start: usize,
    /// First byte of the member's value.
    value: usize,
    /// Object key (decoded) or array index as `[i]`.
    label: String,
}

/// Splits `region` (one value at `value_start`, plus the bytes around it that this
/// piece owns, like a key or a trailing comma) into pieces of at most `max` tokens.
fn split_json(
    text: &str,
    region: (usize, usize),
    value_start: usize,
    title: &[String],
    max: usize,
    out: &mut Vec<Piece>,
) {
    let (start, end) = region;
    if start == end {
        return;
    }
    if tokens::estimate(&text[start..end]) <= max {
        out.push(Piece {
            start,
            end,
            title_path: title.to_vec(),
            part: None,
        });
        return;
    }
    let opener = text.as_bytes().get(value_start).copied();
    let members = match opener {
        Some(b'{' | b'[') => members(text, value_start),
        _ => Vec::new(),
    };
    if members.is_empty() {
        let mut spans = Vec::new();
        split_text(text, start, end, max, &mut spans);
        let n = spans.len();
        out.extend(spans.into_iter().enumerate().map(|(i, (s, e))| Piece {
            start: s,
            end: e,
            title_path: title.to_vec(),
            part: (n > 1).then_some([i + 1, n]),
        }));
        return;
    }
    let is_array = opener == Some(b'[');
    // Member regions tile the container: the first also owns the opening bracket,
    // the last the closing one and whatever follows the value in `region`.
    let bounds: Vec<usize> = std::iter::once(start)
        .chain(members.iter().skip(1).map(|m| m.start))
        .chain(std::iter::once(end))
        .collect();
    let mut group: Vec<usize> = Vec::new();
    let mut tally = Tally::default();
    let flush = |group: &mut Vec<usize>, out: &mut Vec<Piece>| {
        let (Some(&first), Some(&last)) = (group.first(), group.last()) else {
            return;
        };
        let mut title_path = title.to_vec();
        title_path.push(if first == last {
            labelled(text, &members[first], is_array)
        } else if is_array {
            format!("[{first}..{}]", last + 1)
        } else {
            format!("{} … {}", members[first].label, members[last].label)
        });
        out.push(Piece {
            start: bounds[first],
            end: bounds[last + 1],
            title_path,
            part: None,
        });
        group.clear();
    };
    for (i, member) in members.iter().enumerate() {
        let member_tokens = tokens::estimate(&text[bounds[i]..bounds[i + 1]]);
        if member_tokens > max {
            flush(&mut group, out);
            tally = Tally::default();
            let mut inner = title.to_vec();
            inner.push(labelled(text, member, is_array));
            split_json(
                text,
                (bounds[i], bounds[i + 1]),
                member.value,
                &inner,
                max,
                out,
            );
            continue;
        }
        match group.first() {
            Some(&g0) => {
                let joined = || tokens::estimate(&text[bounds[g0]..bounds[i + 1]]);
                if !tally.fits(member_tokens, max, joined) {
                    flush(&mut group, out);
                    tally = Tally::starting(member_tokens);
                }
            }
            None => tally = Tally::starting(member_tokens),
        }
        group.push(i);
    }
    flush(&mut group, out);
}

/// Keys whose short string value names an object, most telling first.
const NAME_KEYS: &[&str] = &["name", "title", "id", "key", "path"];

/// Longest name a label shows.
const NAME_CHARS: usize = 60;

/// A member's label; an array item that is an object with a naming key
/// (`"name": "tantivy"`) shows its name after its index (`[281] tantivy`),
/// so a list of records reads, and is searched, by what each one is.
fn labelled(text: &str, member: &Member, is_array: bool) -> String {
    if !is_array || text.as_bytes().get(member.value) != Some(&b'{') {
        return member.label.clone();
    }
    let fields = members(text, member.value);
    let name = NAME_KEYS.iter().find_map(|key| {
        let field = fields.iter().find(|f| f.label == *key)?;
        let mut values =
            serde_json::Deserializer::from_str(&text[field.value..]).into_iter::<String>();
        let value = values.next()?.ok()?;
        let value = value.trim();
        (!value.is_empty() && value.chars().count() <= NAME_CHARS && !value.contains('\n'))
            .then(|| value.to_string())
    });
    match name {
        Some(name) => format!("{} {name}", member.label),
        None => member.label.clone(),
    }
}

/// The innermost named record a JSON chunk lies in: its title (`packages >
/// [281] tantivy` of `packages > [281] tantivy > dependencies`, the labels
/// [`labelled`] writes), which the chunks of one record share, and its name
/// (`tantivy`), by which a query can find it.
pub fn record_path(title_path: &[String]) -> Option<(&[String], &str)> {
    let (last, name) = title_path
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, label)| Some((i, record_name(label)?)))?;
    Some((&title_path[..=last], name))
}

fn record_name(label: &str) -> Option<&str> {
    let (index, name) = label.strip_prefix('[')?.split_once("] ")?;
    (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty())
        .then_some(name)
}

/// The direct members of the valid JSON container opening at `open`, found with a
/// byte scan that tracks string, escape and nesting state (no tree is built).
fn members(text: &str, open: usize) -> Vec<Member> {
    let bytes = text.as_bytes();
    let is_object = bytes[open] == b'{';
    let mut members: Vec<Member> = Vec::new();
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut expect_member, mut expect_value) = (true, false);
    let mut key_start = None;
    let mut at = open + 1;
    while at < bytes.len() {
        let byte = bytes[at];
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
                if let Some(key) = key_start.take()
                    && let Some(member) = members.last_mut()
                {
                    let raw = &text[key..=at];
                    member.label = serde_json::from_str(raw).unwrap_or_else(|_| raw.to_string());
                }
            }
            at += 1;
            continue;
        }
        if depth == 0 && !byte.is_ascii_whitespace() {
            match byte {
                b'}' | b']' => break,
                b',' => expect_member = true,
                b':' => expect_value = true,
                _ if expect_member => {
                    let index = members.len();
                    members.push(Member {
                        start: at,
                        value: at,
                        label: format!("[{index}]"),
                    });
                    if is_object {
                        key_start = Some(at);
                    }
                    expect_member = false;
                }
                _ if expect_value => {
                    if let Some(member) = members.last_mut() {
                        member.value = at;
                    }
                    expect_value = false;
                }
                _ => {}
            }
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    members
}

#[cfg(test)]
mod tests;
