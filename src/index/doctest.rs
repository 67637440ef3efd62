//! The text of a code chunk as the index sees it: without the examples in its
//! doc comments.
//!
//! A public method's doc comment often carries a runnable example that calls half
//! the API (`Command::new("git").arg(Arg::new("remote").short('r'))…`). Indexed as
//! is, every such method matches every question that names those types, and the
//! internal function that does the work ranks below them. The example stays in
//! the chunk (`get` returns it); only its words are kept out of the index.

use std::borrow::Cow;

use crate::chunk::code::comment::comment_text;
use crate::chunk::{Chunk, ChunkKind};

/// The text to index for `chunk`'s body: code chunks lose the fenced blocks
/// inside their comments and Python doctest lines; other chunks are unchanged.
pub fn indexed_body(chunk: &Chunk) -> Cow<'_, str> {
    if chunk.kind != ChunkKind::Code {
        return Cow::Borrowed(&chunk.text);
    }
    strip_examples(&chunk.text)
}

/// `text` without the lines of examples in comments: fenced blocks (```` ``` ````
/// or `~~~`) opened on a comment line, up to the comment line that closes them,
/// and `>>>`/`...` doctest lines.
pub fn strip_examples(text: &str) -> Cow<'_, str> {
    if !text.contains("```") && !text.contains("~~~") && !text.contains(">>>") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let comment = comment_body(line);
        match (fence, comment) {
            (Some(open), Some(body)) => {
                if body.starts_with(open) {
                    fence = None;
                }
            }
            // The comment ended without closing its fence: code again.
            (Some(_), None) => {
                fence = None;
                out.push_str(line);
            }
            (None, Some(body)) if body.starts_with("```") => fence = Some("```"),
            (None, Some(body)) if body.starts_with("~~~") => fence = Some("~~~"),
            (None, Some(body)) if body.starts_with(">>>") => {}
            (None, _) => out.push_str(line),
        }
    }
    Cow::Owned(out)
}

/// What follows the comment marker of `line`, trimmed, when `line` is a comment
/// line or a line of a docstring. Python docstrings have no marker per line, so
/// any line whose text starts with a fence or `>>>` counts as one.
fn comment_body(line: &str) -> Option<&str> {
    if let Some(rest) = comment_text(line) {
        return Some(rest.trim());
    }
    let t = line.trim();
    (t.starts_with("```") || t.starts_with("~~~") || t.starts_with(">>>")).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_doc_examples_are_dropped_and_code_kept() {
        let text = "/// Sets the name.\n///\n/// ```rust\n/// let c = Command::new(\"git\");\n/// ```\n/// More prose.\npub fn name(self) -> Self {\n    self\n}\n";
        assert_eq!(
            strip_examples(text),
            "/// Sets the name.\n///\n/// More prose.\npub fn name(self) -> Self {\n    self\n}\n"
        );
    }

    #[test]
    fn an_unclosed_fence_ends_with_the_comment() {
        let text = "/// ```\n/// example()\nfn real() {}\n";
        assert_eq!(strip_examples(text), "fn real() {}\n");
    }

    #[test]
    fn python_doctests_are_dropped() {
        let text = "def f(x):\n    \"\"\"Doubles x.\n\n    >>> f(2)\n    4\n    \"\"\"\n    return 2 * x\n";
        let out = strip_examples(text);
        assert!(!out.contains(">>>"), "{out}");
        assert!(
            out.contains("Doubles x.") && out.contains("return 2 * x"),
            "{out}"
        );
    }

    #[test]
    fn fences_in_string_literals_are_kept() {
        let text = "fn md() -> &'static str {\n    \"```rust\\nfn x() {}\\n```\"\n}\n";
        assert_eq!(strip_examples(text), text);
    }

    #[test]
    fn text_without_examples_is_borrowed() {
        assert!(matches!(
            strip_examples("/// prose\nfn f() {}\n"),
            Cow::Borrowed(_)
        ));
    }
}
