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
use std::io::{Read, Seek, SeekFrom};
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
/// better than a wrong one). Deciding reads two short windows around the
/// range; only a slice pays a pass over the file up to `b1`, in blocks, to
/// count characters, so a hit in a 100 MB log costs two small reads.
pub fn char_span(path: &Path, bytes: [usize; 2]) -> Result<Option<[usize; 2]>> {
    let [b0, b1] = bytes;
    let mut file = File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
    let len = file
        .metadata()
        .map_err(|e| Error::io("cannot read", path, e))?
        .len();
    if b0 > b1 || u64::try_from(b1).map_or(true, |b1| b1 > len) {
        return Ok(None);
    }
    // The bytes just before the range: is there a newline within the slack?
    let ahead_from = b0.saturating_sub(LINE_SLACK + 1);
    let ahead = window(&mut file, path, ahead_from, b0)?;
    let gap_before = match ahead.iter().rposition(|&b| b == b'\n') {
        Some(k) => b0 - (ahead_from + k + 1),
        None if ahead_from == 0 => b0,
        None => LINE_SLACK + 1,
    };
    // From the range's last byte, which may be the newline ending its line.
    let past_from = b1.saturating_sub(1).max(b0);
    let past_to = b1.saturating_add(LINE_SLACK + 1);
    let past = window(&mut file, path, past_from, past_to)?;
    let gap_after = match past.iter().position(|&b| b == b'\n') {
        Some(k) => (past_from + k).max(b1) - b1,
        // The window ran into the end of the value: its line ends there.
        None if past_from + past.len() < past_to => past_from + past.len() - b1,
        None => LINE_SLACK + 1,
    };
    if gap_before + gap_after <= LINE_SLACK {
        return Ok(None);
    }
    let (before, within) = count_chars(&mut file, path, [b0, b1])?;
    Ok(Some([before, before + within]))
}

/// The bytes `[from, to)` of `file`, fewer where it ends first.
fn window(file: &mut File, path: &Path, from: usize, to: usize) -> Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(to.saturating_sub(from));
    file.seek(SeekFrom::Start(from as u64))
        .map_err(|e| Error::io("cannot read", path, e))?;
    file.take(to.saturating_sub(from) as u64)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("cannot read", path, e))?;
    Ok(bytes)
}

/// Characters in `file` before `b0`, and within `[b0, b1)`, read in blocks.
fn count_chars(file: &mut File, path: &Path, [b0, b1]: [usize; 2]) -> Result<(usize, usize)> {
    file.seek(SeekFrom::Start(0))
        .map_err(|e| Error::io("cannot read", path, e))?;
    let mut block = vec![0u8; 64 << 10];
    let (mut read, mut before, mut within) = (0usize, 0usize, 0usize);
    while read < b1 {
        let n = match file.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        let local = |at: usize| at.clamp(read, read + n) - read;
        before += chars(&block[local(0)..local(b0)]);
        within += chars(&block[local(b0)..local(b1)]);
        read += n;
    }
    Ok((before, within))
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
