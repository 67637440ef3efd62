//! Inline `data:` URI payloads (an embedded image, font or SVG) are elided from
//! chunk text: a 300 KB screenshot pasted into a README is ~160k tokens of
//! base64 that no query matches and no reader wants, and it would otherwise
//! become hundreds of parts that crowd the index and every budget.
//!
//! The payload (what follows the URI's `,`) is replaced by a short marker
//! naming its size, `…(325KB-elided)`, with no space, quote, bracket or line
//! break, so the Markdown around it (an image, an HTML attribute, a reference
//! definition) keeps its structure and the document keeps its line count.
//! A chunker runs on the elided text ([`chunk_elided`]) and its byte ranges
//! are mapped back, so ranges still tile the source and line citations point
//! at the image. Only chunk text is elided: a relayed value is stored and
//! resolved as it came.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::{Chunk, Chunked};

/// A payload shorter than this (an inline icon, a 1×1 pixel) stays as written.
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

/// A document with its long data URI payloads replaced by markers.
#[derive(Debug)]
struct Elided {
    /// The text the chunker reads.
    text: String,
    /// `(end of a marker in `text`, bytes removed up to there)`, in order.
    shifts: Vec<(usize, usize)>,
}

impl Elided {
    /// The source offset of `at`, an offset in [`Elided::text`] that is not
    /// inside a marker (chunk boundaries fall at block or line boundaries).
    fn source_offset(&self, at: usize) -> usize {
        let k = self.shifts.partition_point(|&(end, _)| end <= at);
        at + k.checked_sub(1).map_or(0, |k| self.shifts[k].1)
    }

    /// Moves the byte ranges of chunks cut from [`Elided::text`] onto the source.
    fn map_back(&self, chunks: &mut [Chunk]) {
        for c in chunks {
            c.bytes = c.bytes.map(|at| self.source_offset(at));
        }
    }
}

/// The chunks `chunk` cuts from `text` with its long data URI payloads
/// elided, their byte ranges moved back onto `text`. Lines need no moving (a
/// marker is on its payload's line) and IDs hash the chunk text.
pub fn chunk_elided(text: &str, chunk: impl FnOnce(&str) -> Chunked) -> Chunked {
    let Some(e) = elide(text) else {
        return chunk(text);
    };
    let mut out = chunk(&e.text);
    e.map_back(&mut out.chunks);
    out
}

/// `text` with every long data URI payload elided, or `None` when it has none.
fn elide(text: &str) -> Option<Elided> {
    let mut out = String::new();
    let mut shifts = Vec::new();
    let mut copied = 0;
    let mut removed = 0;
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
        let (p0, p1) = (
            start.start() + payload.start(),
            start.start() + payload.end(),
        );
        from = p1;
        if p1 - p0 < MIN_ELIDED_BYTES {
            continue;
        }
        if out.is_empty() {
            out.reserve(text.len() / 2);
        }
        out.push_str(&text[copied..p0]);
        let m = marker(p1 - p0);
        out.push_str(&m);
        removed += p1 - p0 - m.len();
        shifts.push((out.len(), removed));
        copied = p1;
    }
    if shifts.is_empty() {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(Elided { text: out, shifts })
}

/// `s` with its long data URI payloads elided, borrowed when it has none.
pub fn elided(s: &str) -> Cow<'_, str> {
    elide(s).map_or(Cow::Borrowed(s), |e| Cow::Owned(e.text))
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
mod tests {
    use super::*;

    fn b64(n: usize) -> String {
        "QUJD".repeat(n / 4)
    }

    #[test]
    fn a_long_payload_becomes_a_marker_and_offsets_map_back() {
        let payload = b64(40_000);
        let text = format!("# A\n\n![d](data:image/png;base64,{payload})\n\nafter\n");
        let e = elide(&text).expect("elided");
        assert_eq!(
            e.text,
            "# A\n\n![d](data:image/png;base64,…(39KB-elided))\n\nafter\n"
        );
        assert_eq!(e.text.lines().count(), text.lines().count());
        let after = e.text.find("after").expect("after");
        assert_eq!(e.source_offset(after), text.find("after").expect("after"));
        assert_eq!(e.source_offset(0), 0);
        assert_eq!(e.source_offset(e.text.len()), text.len());
    }

    #[test]
    fn short_payloads_and_lookalikes_stay() {
        let icon = format!("<img src=\"data:image/gif;base64,{}\">", b64(200));
        assert!(elide(&icon).is_none());
        let word = format!("metadata:{}", b64(4_000));
        assert!(elide(&word).is_none());
        assert!(elide("no uris here").is_none());
    }

    #[test]
    fn html_svg_and_several_uris_end_where_the_uri_ends() {
        let svg = "%3Csvg%20width%3D%2210%22%3E".repeat(20);
        let text = format!(
            "<img src=\"data:image/svg+xml,{svg}\" alt=\"x\">\n[logo]: DATA:font/woff2;base64,{} \"Logo\"\n",
            b64(1_000)
        );
        let e = elide(&text).expect("elided");
        assert_eq!(
            e.text,
            "<img src=\"data:image/svg+xml,…(560B-elided)\" alt=\"x\">\n[logo]: DATA:font/woff2;base64,…(1000B-elided) \"Logo\"\n"
        );
        assert_eq!(elided(&text), e.text);
    }
}
