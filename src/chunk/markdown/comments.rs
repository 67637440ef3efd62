//! Markdown without its HTML comments, for the views an agent reads (excerpts,
//! skeletons, evidence).
//!
//! A comment is invisible in rendered Markdown: it holds authoring notes, and
//! in templated docs the template's own instructions, repeated in every
//! document (15 % of the KEPs' text). Raw fetches keep them; the index keeps
//! them too (dropping them from the index lost a query on each docs eval set).

use std::borrow::Cow;
use std::ops::Range;

use pulldown_cmark::{Event, Parser};

/// `text` without its HTML comments. Comments in code (fenced, indented or
/// inline) are code and stay; a line left blank by a removed comment goes with
/// it. An unclosed comment hides the rest of the text, as it does when rendered.
pub fn without_comments(text: &str) -> Cow<'_, str> {
    if !text.contains("<!--") {
        return Cow::Borrowed(text);
    }
    let spans = comment_spans(text);
    if spans.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        let span = widen_to_lines(text, span);
        if span.start >= at {
            out.push_str(&text[at..span.start]);
        }
        at = at.max(span.end);
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// Byte ranges of the comments in `text`, in order, as the Markdown parser
/// sees HTML (so code spans and code blocks are left alone).
fn comment_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    // Start of a comment still open at the end of the last HTML event: an HTML
    // block reaches the parser one line at a time.
    let mut open: Option<usize> = None;
    for (event, range) in Parser::new_ext(text, super::parser_options()).into_offset_iter() {
        let (Event::Html(_) | Event::InlineHtml(_)) = event else {
            continue;
        };
        let html = &text[range.clone()];
        let mut i = 0;
        loop {
            match open {
                Some(start) => match html[i..].find("-->") {
                    Some(j) => {
                        let end = range.start + i + j + 3;
                        spans.push(start..end);
                        open = None;
                        i += j + 3;
                    }
                    None => break,
                },
                None => match html[i..].find("<!--") {
                    Some(j) => {
                        open = Some(range.start + i + j);
                        i += j + 4;
                    }
                    None => break,
                },
            }
        }
    }
    if let Some(start) = open {
        spans.push(start..text.len());
    }
    spans
}

/// `span` grown to whole lines when nothing but blanks shares its first and
/// last lines, so a comment on lines of its own leaves no empty lines behind.
fn widen_to_lines(text: &str, span: Range<usize>) -> Range<usize> {
    let before = &text[..span.start];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let after = &text[span.end..];
    let line_end = after.find('\n').map_or(text.len(), |i| span.end + i + 1);
    let blank = |s: &str| s.trim().is_empty();
    if blank(&text[line_start..span.start]) && blank(&text[span.end..line_end]) {
        // Between two blank lines, one of them goes too.
        let end = if (line_start == 0 || text[..line_start].ends_with("\n\n"))
            && text[line_end..].starts_with('\n')
        {
            line_end + 1
        } else {
            line_end
        };
        line_start..end
    } else {
        span
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comment_lines_go_and_leave_no_blank_lines() {
        let md = "## Goals\n\n<!--\nList the specific goals of the KEP.\n-->\n\n* Keep QoS.\n";
        assert_eq!(without_comments(md), "## Goals\n\n* Keep QoS.\n");
        let md = "Text <!-- note --> more.\n<!-- one line -->\nEnd.\n";
        assert_eq!(without_comments(md), "Text  more.\nEnd.\n");
    }

    #[test]
    fn comments_in_code_stay() {
        let fenced = "```html\n<!-- kept -->\n```\n";
        assert_eq!(without_comments(fenced), fenced);
        let span = "Write `<!-- x -->` to hide text.\n";
        assert_eq!(without_comments(span), span);
        let indented = "Para.\n\n    <!-- code -->\n";
        assert_eq!(without_comments(indented), indented);
        assert!(matches!(without_comments("no comments"), Cow::Borrowed(_)));
    }

    #[test]
    fn an_unclosed_comment_hides_the_rest() {
        assert_eq!(
            without_comments("Shown.\n\n<!-- hidden\nstill hidden\n"),
            "Shown.\n\n"
        );
    }
}
