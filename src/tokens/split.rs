//! Splitting text roughly like ctx's chunker, for the estimator's accuracy checks:
//! the unit test in `tokens/tests.rs` and the report in `benches/tokens.rs` both
//! include this file, so they measure the same pieces.

/// Whether `line` is an ATX heading (`#` to `######`, then a space or the end).
fn is_atx_heading(line: &str) -> bool {
    let hashes = line.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes)
        && matches!(
            line.as_bytes().get(hashes),
            None | Some(b' ' | b'\t' | b'\n' | b'\r')
        )
}

/// Approximates ctx's chunks: split at ATX headings outside fences (Markdown only), then
/// pack blank-line-separated blocks into pieces of at most `max` bytes (a longer block is
/// cut at line ends).
pub fn chunks(text: &str, markdown: bool, max: usize) -> Vec<&str> {
    let mut sections = Vec::new();
    let (mut start, mut pos, mut fence) = (0, 0, false);
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if markdown && (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
            fence = !fence;
        } else if markdown && !fence && pos > start && is_atx_heading(line) {
            sections.push(&text[start..pos]);
            start = pos;
        }
        pos += line.len();
    }
    sections.push(&text[start..]);

    let mut out = Vec::new();
    for section in sections {
        let (mut from, mut end, mut last_blank) = (0, 0, 0);
        for line in section.split_inclusive('\n') {
            end += line.len();
            if end - from > max && last_blank > from {
                out.push(&section[from..last_blank]);
                from = last_blank;
            }
            if end - from > max && end - line.len() > from {
                out.push(&section[from..end - line.len()]);
                from = end - line.len();
            }
            if line.trim().is_empty() {
                last_blank = end;
            }
        }
        if end > from {
            out.push(&section[from..end]);
        }
    }
    out
}
