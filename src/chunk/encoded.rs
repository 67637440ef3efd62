//! Encoded payloads are elided from chunk text: the payload of an inline
//! `data:` URI (an embedded image, font or SVG) and a long run of base64 (a
//! certificate, a file's content in a JSON API response, a blob in a string
//! literal). A 300 KB screenshot pasted into a README is ~160k tokens that no
//! query matches and no reader wants, and it would otherwise become hundreds
//! of parts that crowd the index, every budget and every preview.
//!
//! A payload is replaced by a short marker naming its size, `…(325KB-elided)`,
//! with no space, quote, bracket or line break, so the text around it (an
//! image, an HTML attribute, a JSON string) keeps its structure. Base64
//! wrapped over lines (MIME, PEM) or over escaped line breaks (`\n` inside a
//! JSON string) is one payload, and one marker. A chunker runs on the elided
//! text ([`chunk_elided`]) and its byte ranges and line numbers are mapped
//! back, so ranges still tile the source and citations point at the payload's
//! lines. Only chunk text is elided: a relayed value is stored and resolved as
//! it came.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::{Chunk, Chunked};

/// A payload shorter than this (an inline icon, a 1×1 pixel, a hash) stays as
/// written.
pub const MIN_ELIDED_BYTES: usize = 256;

/// Where a data URI may start: a literal the regex crate finds with SIMD, so
/// the scan costs little on the many files that hold no `data:` at all.
static START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new("(?i)data:").expect("the data URI start is valid"));

/// A data URI at the start of the text: `data:`, a media type with
/// parameters, `,`, and the payload up to the first character that ends a
/// URI in Markdown, HTML or a string literal.
static DATA_URI: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^(?i)data:[a-z0-9.+-]*(?:/[a-z0-9.+-]*)?(?:;[a-z0-9.+_=-]*)*,([^\s"'<>()\[\]`\\]+)"#,
    )
    .expect("the data URI pattern is valid")
});

/// A line of wrapped base64 is at least this long (MIME wraps at 76, PEM at
/// 64, GitHub's API at 60): prose never has one, and a word ending a line
/// before a blob is not taken for its first line.
const MIN_LINE: usize = 32;

/// Where a long base64 run may be: every run of [`MIN_LINE`] base64
/// characters covers one whole aligned block of this many bytes, and prose
/// and code almost never fill one.
const BLOCK: usize = 16;

/// Bytes classified at a time, [`BLOCK`]s of them.
const GROUP: usize = 4 * BLOCK;

/// A payload to elide, as a source byte range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// A marker in the elided text.
#[derive(Debug, Clone, Copy)]
struct Shift {
    /// End of the marker in the elided text.
    end: usize,
    /// The marker's line in the elided text (1-based).
    line: usize,
    /// Bytes removed up to the marker's end.
    bytes: usize,
    /// Line breaks removed up to the marker's end.
    newlines: usize,
}

/// A document with its long encoded payloads replaced by markers.
#[derive(Debug)]
struct Elided {
    /// The text the chunker reads.
    text: String,
    /// The markers, in order.
    shifts: Vec<Shift>,
}

impl Elided {
    /// The last marker ending at or before `at`, an offset in [`Elided::text`]
    /// that is not inside a marker (chunk boundaries fall at block or line
    /// boundaries).
    fn before(&self, at: usize) -> Option<&Shift> {
        let k = self.shifts.partition_point(|s| s.end <= at);
        k.checked_sub(1).map(|k| &self.shifts[k])
    }

    /// The source offset of `at`.
    fn source_offset(&self, at: usize) -> usize {
        at + self.before(at).map_or(0, |s| s.bytes)
    }

    /// Line breaks removed before `at`.
    fn newlines_before(&self, at: usize) -> usize {
        self.before(at).map_or(0, |s| s.newlines)
    }

    /// The source lines of `[first, last]`, lines of the elided text: the
    /// first gains the line breaks of markers on earlier lines, the last
    /// those of markers on it too (a range ending on a marker's line holds
    /// the marker).
    fn source_lines(&self, [first, last]: [usize; 2]) -> [usize; 2] {
        let removed = |line: usize, inclusive: bool| {
            let k = self
                .shifts
                .partition_point(|s| s.line < line || (inclusive && s.line == line));
            k.checked_sub(1).map_or(0, |k| self.shifts[k].newlines)
        };
        [first + removed(first, false), last + removed(last, true)]
    }

    /// Moves the byte ranges and lines of chunks cut from [`Elided::text`]
    /// onto the source.
    fn map_back(&self, chunks: &mut [Chunk]) {
        let wrapped = self.shifts.last().is_some_and(|s| s.newlines > 0);
        for c in chunks {
            let [start, end] = c.bytes;
            if wrapped {
                c.lines = [
                    c.lines[0] + self.newlines_before(start),
                    c.lines[1] + self.newlines_before(end),
                ];
                if let Some(symbol) = &mut c.symbol {
                    symbol.lines = symbol.lines.map(|l| self.source_lines(l));
                    for member in &mut symbol.declared {
                        member.lines = self.source_lines(member.lines);
                    }
                }
            }
            c.bytes = [self.source_offset(start), self.source_offset(end)];
        }
    }
}

/// The chunks `chunk` cuts from `text` with its long encoded payloads elided,
/// their byte ranges and lines moved back onto `text`. IDs hash the chunk text.
pub fn chunk_elided(text: &str, chunk: impl FnOnce(&str) -> Chunked) -> Chunked {
    let Some(e) = elide(text) else {
        return chunk(text);
    };
    let mut out = chunk(&e.text);
    e.map_back(&mut out.chunks);
    out
}

/// `s` with its long encoded payloads elided, borrowed when it has none.
pub fn elided(s: &str) -> Cow<'_, str> {
    elide(s).map_or(Cow::Borrowed(s), |e| Cow::Owned(e.text))
}

/// `text` with every long payload elided, or `None` when it has none.
fn elide(text: &str) -> Option<Elided> {
    let mut spans = data_uri_payloads(text);
    spans.extend(base64_runs(text));
    if spans.is_empty() {
        return None;
    }
    // A wrapped data URI is both a URI whose payload ends at its first line
    // and a base64 run: the longer span wins, and no two overlap.
    spans.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    let mut out = String::with_capacity(text.len() / 2);
    let mut shifts: Vec<Shift> = Vec::new();
    let (mut copied, mut bytes, mut newlines, mut line) = (0, 0, 0, 1);
    for span in spans {
        if span.start < copied {
            continue;
        }
        let kept = &text[copied..span.start];
        line += line_breaks(kept);
        out.push_str(kept);
        let payload = &text[span.start..span.end];
        let m = marker(payload.len());
        out.push_str(&m);
        bytes += payload.len() - m.len();
        newlines += line_breaks(payload);
        shifts.push(Shift {
            end: out.len(),
            line,
            bytes,
            newlines,
        });
        copied = span.end;
    }
    out.push_str(&text[copied..]);
    Some(Elided { text: out, shifts })
}

fn line_breaks(s: &str) -> usize {
    s.bytes().filter(|&b| b == b'\n').count()
}

/// The payloads of the long data URIs of `text`, up to the first character
/// that ends a URI (for base64, its first line: a wrapped one is a run).
fn data_uri_payloads(text: &str) -> Vec<Span> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(start) = START.find_at(text, from) {
        from = start.end();
        // `metadata:` is a word, not a URI.
        let inside_word = text.as_bytes()[..start.start()]
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_');
        let Some(payload) = (!inside_word)
            .then(|| DATA_URI.captures(&text[start.start()..]))
            .flatten()
            .and_then(|caps| caps.get(1))
        else {
            continue;
        };
        let span = Span {
            start: start.start() + payload.start(),
            end: start.start() + payload.end(),
        };
        from = span.end;
        if span.end - span.start >= MIN_ELIDED_BYTES {
            out.push(span);
        }
    }
    out
}

/// Whether `b` is a character of base64 (`A-Z a-z 0-9 + /`), written
/// without branches so that [`filled_blocks`] vectorizes.
fn is_base64(b: u8) -> bool {
    let letter = (b | 0x20).wrapping_sub(b'a') < 26;
    letter | (b.wrapping_sub(b'0') < 10) | (b == b'+') | (b == b'/')
}

/// The end of the base64 characters from `at`.
fn run_end(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .position(|&b| !is_base64(b))
        .map_or(bytes.len(), |n| at + n)
}

/// Where the next line of a wrapped payload starts after a line ending at
/// `at`: past a line break (and the next line's indentation) or an escaped
/// one (`\n`, `\r\n` inside a string literal).
fn next_line(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = &bytes[at..];
    let after = if rest.starts_with(b"\n") {
        1
    } else if rest.starts_with(b"\r\n") {
        2
    } else if rest.starts_with(b"\\n") {
        return Some(at + 2);
    } else if rest.starts_with(b"\\r\\n") {
        return Some(at + 4);
    } else {
        return None;
    };
    let indent = rest[after..]
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    Some(at + after + indent)
}

/// Whether a wrapped payload's line may end at `at`: where the text, a line
/// or a string ends, at padding, or at a delimiter closing the payload. A word
/// of prose starting the next line goes on with a space or a full stop.
fn ends_line(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).is_none_or(|b| {
        matches!(
            b,
            b'\n'
                | b'\r'
                | b'\\'
                | b'='
                | b'"'
                | b'\''
                | b'`'
                | b'<'
                | b')'
                | b']'
                | b'}'
                | b','
                | b';'
        )
    })
}

/// Whether the characters of a run look like encoded bytes rather than a long
/// word or a path: both cases and a digit (base64 of 256 random bytes lacks
/// one with odds of 1 in 10^23; a hex dump has one case), and few slashes.
fn looks_encoded(bytes: &[u8]) -> bool {
    let (mut upper, mut lower, mut digit, mut slashes, mut len) = (false, false, false, 0, 0);
    for &b in bytes.iter().filter(|&&b| is_base64(b)) {
        upper |= b.is_ascii_uppercase();
        lower |= b.is_ascii_lowercase();
        digit |= b.is_ascii_digit();
        slashes += usize::from(b == b'/');
        len += 1;
    }
    upper && lower && digit && slashes * 10 <= len
}

/// The long base64 runs of `text`, wrapped or not, with their padding.
fn base64_runs(text: &str) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Where to look next: blocks before it are inside a run already seen.
    let mut resume = 0;
    let mut group = 0;
    while group < bytes.len() {
        let full = filled_blocks(&bytes[group..]);
        for k in 0..GROUP / BLOCK {
            let block = group + k * BLOCK;
            if full & (1 << k) == 0 || block < resume {
                continue;
            }
            resume = run_at(bytes, block, &mut out);
        }
        group += GROUP;
    }
    out
}

/// Which of the whole [`BLOCK`]s at the start of `bytes` (up to
/// [`GROUP`] bytes) are base64 throughout, one bit each. Classifying a
/// fixed-size array lets the compiler use vector compares: block by block
/// the scan ran at 0.4 GiB/s, a group at a time at over 10.
fn filled_blocks(bytes: &[u8]) -> u8 {
    let mut class = [0u8; GROUP];
    if let Some(group) = bytes.first_chunk::<GROUP>() {
        for (c, &b) in class.iter_mut().zip(group) {
            *c = u8::from(is_base64(b));
        }
    } else {
        for (c, &b) in class.iter_mut().zip(bytes) {
            *c = u8::from(is_base64(b));
        }
    }
    let mut full = 0;
    for k in 0..bytes.len().min(GROUP) / BLOCK {
        let all = class[k * BLOCK..(k + 1) * BLOCK]
            .iter()
            .fold(1, |all, &c| all & c);
        full |= all << k;
    }
    full
}

/// Looks for a run around the filled block at `block`, adds it to `out` when
/// it is long enough, and returns where the scan may go on.
fn run_at(bytes: &[u8], block: usize, out: &mut Vec<Span>) -> usize {
    let mut start = block;
    while start > 0 && is_base64(bytes[start - 1]) {
        start -= 1;
    }
    let end = run_end(bytes, block);
    if end - start < MIN_LINE {
        return end;
    }
    let span = wrapped_run(bytes, start, end);
    if span.end - span.start >= MIN_ELIDED_BYTES && looks_encoded(&bytes[span.start..span.end]) {
        out.push(span);
    }
    span.end.max(end)
}

/// The whole payload around the line `[start, end)` of base64 (at least
/// [`MIN_LINE`] long): back over a short first line that follows `base64,`,
/// on over the lines that follow while the line before is a full one.
fn wrapped_run(bytes: &[u8], start: usize, end: usize) -> Span {
    let mut span = Span { start, end };
    if let Some(first) = line_before(bytes, start)
        && bytes[..first].ends_with(b"base64,")
    {
        span.start = first;
    }
    let mut line_len = end - start;
    loop {
        let mut padded = span.end;
        while padded < bytes.len() && bytes[padded] == b'=' && padded - span.end < 2 {
            padded += 1;
        }
        if padded > span.end {
            span.end = padded;
            break;
        }
        if line_len < MIN_LINE {
            break;
        }
        let Some(next) = next_line(bytes, span.end) else {
            break;
        };
        let next_end = run_end(bytes, next);
        if next_end == next || !ends_line(bytes, next_end) {
            break;
        }
        line_len = next_end - next;
        span.end = next_end;
    }
    span
}

/// The start of the base64 line just before the line starting at `start`,
/// when `start` follows a (possibly escaped) line break right after one.
fn line_before(bytes: &[u8], start: usize) -> Option<usize> {
    let mut at = start;
    while at > 0 && matches!(bytes[at - 1], b' ' | b'\t') {
        at -= 1;
    }
    let before = &bytes[..at];
    let end = if before.ends_with(b"\r\n") {
        at - 2
    } else if before.ends_with(b"\\r\\n") {
        at - 4
    } else if before.ends_with(b"\\n") {
        at - 2
    } else if before.ends_with(b"\n") {
        at - 1
    } else {
        return None;
    };
    let mut first = end;
    while first > 0 && is_base64(bytes[first - 1]) {
        first -= 1;
    }
    (first < end).then_some(first)
}

/// The marker standing for a payload of `bytes` bytes: always shorter than it.
fn marker(bytes: usize) -> String {
    const KB: usize = 1024;
    if bytes >= 10 * KB * KB {
        format!("…({}MB-elided)", bytes / (KB * KB))
    } else if bytes >= 10 * KB {
        format!("…({}KB-elided)", bytes / KB)
    } else {
        format!("…({bytes}B-elided)")
    }
}

#[cfg(test)]
mod tests;
