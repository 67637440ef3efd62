//! Comment lines of the supported languages, told by their leading marker, for
//! the places that look at code text line by line (previews, the index's
//! example stripping and chunk signals).

/// Comment markers, longer before shorter so `///` is not read as `//` + `/`.
const MARKERS: &[&str] = &["///", "//!", "//", "/**", "/*", "*/", "*", "#"];

/// What follows the comment marker of `line` (`//`, `///`, `//!`, `/*`, `/**`,
/// a block comment's `*` or `*/`, `#`), when `line` is a comment line.
///
/// `*` and `#` also start code (`*ptr = 1`, `#[derive]`, `#include`), so they
/// count only when a space or the end of the line follows (or `#` for `##`).
pub fn comment_text(line: &str) -> Option<&str> {
    let t = line.trim_start();
    for marker in MARKERS {
        let Some(rest) = t.strip_prefix(marker) else {
            continue;
        };
        let spaced = rest.is_empty() || rest.starts_with(char::is_whitespace);
        let ok = match *marker {
            "*" => spaced,
            "#" => spaced || rest.starts_with('#'),
            _ => true,
        };
        return ok.then_some(rest);
    }
    None
}

/// Whether `line` is a comment line (see [`comment_text`]).
pub fn is_comment(line: &str) -> bool {
    comment_text(line).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_of_each_language() {
        assert_eq!(comment_text("    /// Builds it."), Some(" Builds it."));
        assert_eq!(comment_text("//! Crate docs"), Some(" Crate docs"));
        assert_eq!(comment_text("//tight"), Some("tight"));
        assert_eq!(comment_text("/** Javadoc"), Some(" Javadoc"));
        assert_eq!(comment_text("   * continued"), Some(" continued"));
        assert_eq!(comment_text("   */"), Some(""));
        assert_eq!(comment_text("  # Python comment"), Some(" Python comment"));
        assert_eq!(comment_text("#"), Some(""));
        assert_eq!(comment_text("## section"), Some("# section"));
    }

    #[test]
    fn code_that_starts_like_a_comment_is_code() {
        for code in [
            "#[derive(Debug)]",
            "#![allow(dead_code)]",
            "#include <stdio.h>",
            "#define N 4",
            "*ptr = 1;",
            "**kwargs",
            "let x = 1; // trailing",
            "",
        ] {
            assert!(!is_comment(code), "{code:?}");
        }
    }
}
