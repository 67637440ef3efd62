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

/// The character range `[start, end)` of the bytes `[b0, b1)` of the UTF-8
/// file at `path`, when they begin or end inside a line; `None` when they are
/// whole lines, which `resolve lines` reads exactly, or when the file is
/// shorter than the range (a value changed under the catalog: no slice is
/// better than a wrong one). Reads the file up to `b1` and one byte more, in
/// blocks, so a hit near the end of a 100 MB value costs a pass, not a copy.
pub fn char_span(path: &Path, bytes: [usize; 2]) -> Result<Option<[usize; 2]>> {
    let [b0, b1] = bytes;
    if b0 > b1 {
        return Ok(None);
    }
    let mut file = File::open(path).map_err(|e| Error::io("cannot open", path, e))?;
    let mut block = vec![0u8; 64 << 10];
    // Bytes read so far, characters before `b0` and within the range, and the
    // bytes at `b0 - 1`, `b1 - 1` and `b1` (a newline there ends a line).
    let (mut read, mut before, mut within) = (0usize, 0usize, 0usize);
    let [mut ahead, mut last, mut after] = [None::<u8>; 3];
    while read <= b1 {
        let n = match file.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io("cannot read", path, e)),
        };
        let got = &block[..n];
        let at = |i: usize| i.checked_sub(read).and_then(|k| got.get(k)).copied();
        let part = |from: usize, to: usize| {
            let from = from.clamp(read, read + n) - read;
            let to = to.clamp(read, read + n) - read;
            chars(&got[from..to])
        };
        before += part(0, b0);
        within += part(b0, b1);
        ahead = ahead.or(b0.checked_sub(1).and_then(at));
        last = last.or(b1.checked_sub(1).and_then(at));
        after = after.or(at(b1));
        read += n;
    }
    if read < b1 {
        return Ok(None);
    }
    let starts_line = b0 == 0 || ahead == Some(b'\n');
    let ends_line = after.is_none_or(|b| b == b'\n') || last == Some(b'\n');
    Ok((!(starts_line && ends_line)).then_some([before, before + within]))
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
    }

    #[test]
    fn a_piece_of_a_line_is_counted_in_characters() {
        let json = r#"{"name": "café ☕", "items": [1, 2, 3]}"#;
        let piece = r#""items": [1, 2, 3]"#;
        let [start, end] = span(json, piece).unwrap();
        let chars: Vec<char> = json.chars().collect();
        assert_eq!(chars[start..end].iter().collect::<String>(), piece);
        assert_eq!(span("a\nxx yy zz\nb", "yy"), Some([5, 7]));
        // A piece that starts a line but stops inside it.
        assert_eq!(span("a\nxx yy zz\nb", "xx yy"), Some([2, 7]));
    }

    #[test]
    fn a_range_past_the_file_gives_no_slice() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("value");
        std::fs::write(&path, "short").unwrap();
        assert_eq!(char_span(&path, [2, 99]).unwrap(), None);
    }
}
