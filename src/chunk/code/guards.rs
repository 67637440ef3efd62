//! Linkage guards: the idiom by which a C header opens `extern "C" {` for C++
//! compilers only, under one conditional, and closes it under another:
//!
//! ```c
//! #ifdef __cplusplus
//! extern "C" {
//! #endif
//! …declarations…
//! #ifdef __cplusplus
//! }
//! #endif
//! ```
//!
//! Each conditional holds half of a block, which no grammar can nest, so the
//! parser saw one error over the whole header (libuv's `uv.h` was split by
//! lines). A conditional whose body is nothing but such a brace line (and
//! blank or comment lines) is blanked for the parser, directives included;
//! the declarations between the two are then plain top-level code. The
//! condition is not read: GoogleMock guards its `extern "C" {` with
//! `#if GTEST_OS_ESP8266`.

use std::ops::Range;

/// The byte ranges of the conditionals in `text` that only open or only
/// close a linkage block.
pub(super) fn linkage_guard_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        lines.push(start..start + line.len());
        start += line.len();
    }
    let mut i = 0;
    while i < lines.len() {
        if directive(&text[lines[i].clone()]).is_some_and(|d| d.starts_with("if"))
            && let Some(end) = guard_end(text, &lines, i)
        {
            spans.push(lines[i].start..lines[end].end);
            i = end + 1;
            continue;
        }
        i += 1;
    }
    spans
}

/// The index of the `#endif` line closing the conditional that opens on
/// line `open`, when its body is one brace line of a linkage block among
/// blank and comment lines.
fn guard_end(text: &str, lines: &[Range<usize>], open: usize) -> Option<usize> {
    let mut braces = 0;
    for (index, range) in lines.iter().enumerate().skip(open + 1) {
        let line = &text[range.clone()];
        if let Some(word) = directive(line) {
            return (word == "endif" && braces == 1).then_some(index);
        }
        let code = without_comment(line);
        if code.is_empty() {
            continue;
        }
        if !is_linkage_brace(code) {
            return None;
        }
        braces += 1;
    }
    None
}

/// The directive's word (`ifdef`, `endif`…) when `line` is a preprocessor
/// directive.
fn directive(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let end = rest
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `line` without a trailing `//` comment or a `/* … */` comment that
/// closes on it, trimmed: what a compiler reads of it.
fn without_comment(line: &str) -> &str {
    let mut code = line;
    if let Some(at) = code.find("//") {
        code = &code[..at];
    }
    let code = code.trim();
    match (code.find("/*"), code.ends_with("*/")) {
        (Some(at), true) => code[..at].trim(),
        _ => code,
    }
}

/// `extern "C" {` (or `"C++"`), or the lone `}` (`};`) that closes it.
fn is_linkage_brace(code: &str) -> bool {
    let squeezed: String = code.split_whitespace().collect();
    matches!(
        squeezed.as_str(),
        "extern\"C\"{" | "extern\"C++\"{" | "}" | "};"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanked_lines(text: &str) -> Vec<&str> {
        linkage_guard_spans(text)
            .into_iter()
            .map(|span| &text[span])
            .collect()
    }

    #[test]
    fn both_halves_of_a_linkage_block_are_found() {
        let text = "#ifndef UV_H\n#define UV_H\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\nint uv_run(void);\n\n#if defined(__cplusplus)\n}  /* extern \"C\" */\n#endif\n#endif /* UV_H */\n";
        assert_eq!(
            blanked_lines(text),
            [
                "#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
                "#if defined(__cplusplus)\n}  /* extern \"C\" */\n#endif\n"
            ]
        );
    }

    #[test]
    fn other_conditionals_stay() {
        for text in [
            // Real code in the body, or a whole block, or an `#else`.
            "#ifdef __cplusplus\nextern \"C\" {\nint f(void);\n#endif\n",
            "#ifdef __cplusplus\nextern \"C\" {\n}\n#endif\n",
            "#ifdef __cplusplus\nextern \"C\" {\n#else\n#endif\n",
            "#ifdef WIN32\n}\n#else\n}\n#endif\n",
            // An empty conditional, and one never closed.
            "#if X\n#endif\n",
            "#ifdef __cplusplus\nextern \"C\" {\n",
        ] {
            assert!(blanked_lines(text).is_empty(), "{text:?}");
        }
        assert_eq!(
            blanked_lines(
                "#  if GTEST_OS_ESP8266 // board\n  // C linkage\n  extern \"C\" {\r\n#  endif\r\n"
            ),
            ["#  if GTEST_OS_ESP8266 // board\n  // C linkage\n  extern \"C\" {\r\n#  endif\r\n"]
        );
    }
}
