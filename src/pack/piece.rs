//! Where a chunk of a stored value (a boxed tool output under `_ctx/relay/`)
//! sits in characters, when line numbers cannot say it.
//!
//! A search hit inside a boxed value names the `resolve` call that reads it.
//! Line numbers do for a log, but a minified JSON response or a bundled script
//! is one line of megabytes, split into many chunks: `resolve lines … 0 1`
//! would hand the whole value to a model that asked for 600 tokens of it. For
//! such a piece the call is a character slice (`resolve slice` counts
//! characters, never bytes), which this module works out from the file.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::error::{Error, Result};

/// Bytes of the lines around a piece, beyond the piece, up to which its lines
/// are what to read: pretty-printed JSON chunks start after an indent and end
/// before a comma, and a few such bytes cost less than a slice is to read.
pub const LINE_SLACK: usize = 256;

/// The character range `[start, end)` of the bytes `[b0, b1)` of the UTF-8
/// file at `path` when the lines holding them hold much more (over
/// [`LINE_SLACK`] bytes: a piece of a long line); `None` when those lines are
/// about the piece, which `resolve lines` then reads, or when the file is
/// shorter than the range (a value changed under the catalog: no slice is
/// better than a wrong one). Reads the file up to a little past `b1`, in
/// blocks, so a hit near the end of a 100 MB value costs a pass, not a copy.
pub fn char_span(path: &Path, bytes: [usize; 2]) -> Result<Option<[usize; 2]>> {
    let [b0, b1] = bytes;
    if b0 > b1 {
        return Ok(None);
    }
    let mut file = File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
    let mut block = vec![0u8; 64 << 10];
    // Only newlines near the range matter (is its line within the slack?), so
    // only two short windows are searched; the one pass over the value up to
    // `b1` counts characters.
    let ahead_from = b0.saturating_sub(LINE_SLACK + 1);
    let past_to = b1.saturating_add(LINE_SLACK + 1);
    let (mut read, mut before, mut within) = (0usize, 0usize, 0usize);
    let mut newline_ahead: Option<usize> = None;
    let mut newline_past: Option<usize> = None;
    let mut at_end = false;
    while read < past_to && newline_past.is_none() {
        let n = match file.read(&mut block) {
            Ok(0) => {
                at_end = true;
                break;
            }
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        let got = &block[..n];
        let local = |at: usize| at.clamp(read, read + n) - read;
        before += chars(&got[..local(b0)]);
        within += chars(&got[local(b0)..local(b1)]);
        let ahead = &got[local(ahead_from)..local(b0)];
        if let Some(k) = ahead.iter().rposition(|&b| b == b'\n') {
            newline_ahead = Some(read + local(ahead_from) + k);
        }
        // The range's own last byte may be the newline that ends its line.
        let from = local(b1.saturating_sub(1).max(b0));
        newline_past = got[from..local(past_to)]
            .iter()
            .position(|&b| b == b'\n')
            .map(|k| read + from + k);
        read += n;
    }
    if read < b1 {
        return Ok(None);
    }
    let gap_before = match newline_ahead {
        Some(at) => b0 - (at + 1),
        None if ahead_from == 0 => b0,
        None => LINE_SLACK + 1,
    };
    let gap_after = match newline_past {
        Some(at) => at.max(b1) - b1,
        None if at_end => read - b1,
        None => LINE_SLACK + 1,
    };
    let beyond = gap_before + gap_after;
    Ok((beyond > LINE_SLACK).then_some([before, before + within]))
}

/// Characters in UTF-8 `bytes`: every byte that does not continue a character.
fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(text: &str, piece: &str) -> Option<[usize; 2]> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("value");
        std::fs::write(&path, text).unwrap();
        let b0 = text.find(piece).unwrap();
        char_span(&path, [b0, b0 + piece.len()]).unwrap()
    }

    #[test]
    fn whole_lines_need_no_slice() {
        let log = "first line\nsecond line\nthird";
        assert_eq!(span(log, "second line\n"), None);
        assert_eq!(span(log, "second line"), None);
        assert_eq!(span(log, "first line\nsecond line\n"), None);
        assert_eq!(span(log, "third"), None);
        // Pretty-printed JSON: an item between its indent and its comma.
        let pretty = "[\n  {\"id\": 1},\n  {\"id\": 2}\n]\n";
        assert_eq!(span(pretty, "{\"id\": 1}"), None);
    }

    #[test]
    fn a_piece_of_a_long_line_is_counted_in_characters() {
        let piece = r#""items": [1, 2, 3]"#;
        let json = format!(
            r#"{{"name": "{}", {piece}, "tail": "{}"}}"#,
            "café ☕ ".repeat(100),
            "z".repeat(300)
        );
        let [start, end] = span(&json, piece).expect("a slice");
        let chars: Vec<char> = json.chars().collect();
        assert_eq!(chars[start..end].iter().collect::<String>(), piece);
        // A piece that starts its line but stops far inside it, and one that
        // ends its line but starts far inside it.
        let words: String = (0..100).map(|i| format!("w{i:03} ")).collect();
        let long = format!("a\n{words}{words}\nb");
        let head = &long[2..2 + 500];
        assert_eq!(span(&long, head), Some([2, 502]));
        assert_eq!(span(&long, &long[502..]), Some([502, 1004]));
        // Within the slack, its lines are read.
        assert_eq!(span(&long, &long[2..2 + 900]), None);
    }

    #[test]
    fn a_range_past_the_file_gives_no_slice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("value");
        std::fs::write(&path, "short").unwrap();
        assert_eq!(char_span(&path, [2, 99]).unwrap(), None);
    }
}
