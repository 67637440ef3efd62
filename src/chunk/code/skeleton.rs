//! Skeletons: a file's shape (signatures, doc comments, type and field
//! declarations) with function bodies elided, so a whole file costs a few hundred
//! tokens.
//!
//! Function and method bodies become `{ … }` (or `...` under the header for an
//! indented language, after the docstring's first line). Containers, structs,
//! enums and type declarations are kept, members elided the same way. Long
//! constant initializers keep their first line. Between top-level symbols only
//! comments and file docstrings survive (imports and statements are not shape).

use std::ops::Range;

use super::extract::{self, CALLABLE_KINDS, Definition, Extraction};
use super::languages::{BodyStyle, LanguageSpec};

/// Kinds whose initializer is cut after the first line when longer than
/// [`MAX_VALUE_LINES`].
const VALUE_KINDS: &[&str] = &["const", "static", "var", "macro"];
const MAX_VALUE_LINES: usize = 3;

/// Comment lines kept from one stretch between top-level symbols.
const MAX_GAP_COMMENT_LINES: usize = 4;

/// Doc comments longer than this many lines are cut to their summary line.
const MAX_DOC_LINES: usize = 3;

/// The skeleton of a whole source file.
pub fn skeleton(text: &str, lang: &LanguageSpec) -> String {
    match extract::extract(text, lang) {
        Ok(extraction) => render(text, lang, &extraction, false),
        Err(_) => header_only(text, lang),
    }
}

/// The skeleton of one chunk (usually one symbol). The snippet is parsed on its
/// own, dedented first so a method lifted out of a class still parses; a snippet
/// that does not parse cleanly into a definition keeps its lines up to the
/// opening of the body.
pub fn skeleton_of_chunk(chunk_text: &str, lang: &LanguageSpec) -> String {
    let indent = common_indent(chunk_text);
    let dedented: String = if indent.is_empty() {
        chunk_text.to_string()
    } else {
        chunk_text
            .split_inclusive('\n')
            .map(|line| line.strip_prefix(indent).unwrap_or(line.trim_start()))
            .collect()
    };
    match extract::extract(&dedented, lang) {
        Ok(extraction) if extraction.errors.is_none() && !extraction.definitions.is_empty() => {
            let rendered = render(&dedented, lang, &extraction, true);
            rendered
                .split_inclusive('\n')
                .map(|line| {
                    if line.trim().is_empty() {
                        line.to_string()
                    } else {
                        format!("{indent}{line}")
                    }
                })
                .collect()
        }
        _ => header_only(chunk_text, lang),
    }
}

/// The skeletons of parts of one file (its chunks' byte ranges), each cut
/// from the skeleton of the whole: a container's own chunk shows its header
/// and the members it declares (required methods, prototypes, fields,
/// variants), and its closing brace stays in whichever part holds it, so the
/// parts read in order balance as the file does. A body split over several
/// parts is elided in the first; the others are left empty. Text between
/// top-level symbols keeps each statement up to the line that opens its
/// block. `None` when the file cannot be parsed.
pub fn skeletons_of_parts(
    text: &str,
    lang: &LanguageSpec,
    parts: &[Range<usize>],
) -> Option<Vec<String>> {
    let extraction = extract::extract(text, lang).ok()?;
    let edits = edits(text, lang, &extraction, Gaps::Headers);
    Some(
        parts
            .iter()
            .map(|part| {
                let part = part.start.min(text.len())..part.end.min(text.len());
                tidy(&apply(text, &edits, part))
            })
            .collect(),
    )
}

/// What a skeleton keeps of the text between top-level symbols.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Gaps {
    /// All of it (a chunk is its own context).
    Keep,
    /// Its comments and file docstrings (a whole file's shape).
    Comments,
    /// Each statement up to the line that opens its block, as a chunk of
    /// such text on its own shows it.
    Headers,
}

fn render(text: &str, lang: &LanguageSpec, extraction: &Extraction, keep_gaps: bool) -> String {
    let gaps = if keep_gaps {
        Gaps::Keep
    } else {
        Gaps::Comments
    };
    tidy(&apply(
        text,
        &edits(text, lang, extraction, gaps),
        0..text.len(),
    ))
}

/// The replacements that make `text` a skeleton, sorted and not overlapping
/// (of two that do, the one starting first stands).
fn edits(
    text: &str,
    lang: &LanguageSpec,
    extraction: &Extraction,
    gaps: Gaps,
) -> Vec<(Range<usize>, String)> {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    if gaps != Gaps::Keep {
        let mut cursor = 0;
        let gap = |range: Range<usize>, edits: &mut Vec<(Range<usize>, String)>| match gaps {
            Gaps::Comments => gap_edit(text, range, &extraction.file_docs, edits),
            _ => header_edits(text, lang, range, &extraction.statements, edits),
        };
        for definition in &extraction.definitions {
            let start = definition.start.max(cursor);
            gap(cursor..start, &mut edits);
            cursor = super::line_end(text, definition.node.end).max(start);
        }
        gap(cursor..text.len(), &mut edits);
    }
    for definition in &extraction.definitions {
        elide(text, lang, definition, &mut edits);
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut end = 0;
    edits.retain(|(range, _)| {
        let stands = range.start >= end;
        if stands {
            end = range.end;
        }
        stands
    });
    edits
}

/// `part` of `text` with `edits` applied. An edit that starts before the
/// part has been made in an earlier one: what it covers here is left out.
fn apply(text: &str, edits: &[(Range<usize>, String)], part: Range<usize>) -> String {
    let mut out = String::with_capacity(part.len() / 4);
    let mut cursor = part.start;
    let first = edits.partition_point(|(range, _)| range.end <= part.start);
    for (range, replacement) in edits[first..]
        .iter()
        .take_while(|(range, _)| range.start < part.end)
    {
        if range.start >= cursor {
            out.push_str(&text[cursor..range.start]);
            out.push_str(replacement);
        }
        cursor = cursor.max(range.end.min(part.end));
    }
    out.push_str(&text[cursor..part.end]);
    out
}

/// Cuts each statement wholly inside `gap` that spans lines and holds no
/// symbol to the line that opens its block (`app.get("/", (req, res) => {
/// … }`, `if __name__ == "__main__": ...`); a statement holding symbols (an
/// `extern "C"` block, an include guard) is kept around them.
fn header_edits(
    text: &str,
    lang: &LanguageSpec,
    gap: Range<usize>,
    statements: &[Range<usize>],
    edits: &mut Vec<(Range<usize>, String)>,
) {
    let first = statements.partition_point(|statement| statement.start < gap.start);
    for statement in statements[first..]
        .iter()
        .take_while(|statement| statement.end <= gap.end)
    {
        let written = &text[statement.clone()];
        if !written.trim_end().contains('\n') {
            continue;
        }
        let header = header_only(written, lang);
        let header = header.trim_end();
        if header.lines().count() < written.trim_end().lines().count() {
            edits.push((statement.clone(), header.to_string()));
        }
    }
}

/// Replaces the text between top-level symbols by the comments and file
/// docstrings in it.
fn gap_edit(
    text: &str,
    gap: Range<usize>,
    docs: &[Range<usize>],
    edits: &mut Vec<(Range<usize>, String)>,
) {
    if gap.is_empty() {
        return;
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut lines = 0;
    // `docs` is sorted by start, so the ones in this gap are a contiguous run.
    let first = docs.partition_point(|doc| doc.start < gap.start);
    for doc in docs[first..]
        .iter()
        .take_while(|doc| doc.start < gap.end)
        .filter(|doc| doc.end <= gap.end)
    {
        for line in text[doc.clone()].trim_end().lines() {
            if lines == MAX_GAP_COMMENT_LINES {
                break;
            }
            kept.push(line);
            lines += 1;
        }
    }
    let mut replacement = kept.join("\n");
    replacement.push_str(if kept.is_empty() { "\n" } else { "\n\n" });
    edits.push((gap, replacement));
}

fn elide(
    text: &str,
    lang: &LanguageSpec,
    definition: &Definition,
    edits: &mut Vec<(Range<usize>, String)>,
) {
    let docs: Vec<Range<usize>> = definition
        .comments
        .iter()
        .filter(|(_, is_doc)| *is_doc)
        .map(|(range, _)| range.clone())
        .collect();
    shorten_doc(text, &docs, edits);
    // Plain comments above a definition are notes on its body, which is gone.
    for (comment, _) in definition.comments.iter().filter(|(_, is_doc)| !is_doc) {
        let line_start = text[..comment.start]
            .rfind('\n')
            .map_or(0, |newline| newline + 1);
        edits.push((
            line_start..super::line_end(text, comment.end),
            String::new(),
        ));
    }
    if definition.container {
        if let Some(doc) = definition
            .docstring
            .as_ref()
            .filter(|doc| doc.start >= definition.node.start)
        {
            edits.push((doc.clone(), first_docstring_line(&text[doc.clone()])));
        }
        for child in &definition.children {
            elide(text, lang, child, edits);
        }
        return;
    }
    if CALLABLE_KINDS.contains(&definition.kind.as_str()) {
        if let Some(body) = &definition.body {
            let replacement = body_replacement(text, lang, definition, body);
            // An Allman-style brace on its own line joins the signature.
            let mut start = body.start;
            if lang.body_style == BodyStyle::Braces {
                start = text[..start].trim_end().len().max(definition.node.start);
                edits.push((start..body.end, format!(" {replacement}")));
            } else {
                edits.push((start..body.end, replacement));
            }
        }
        return;
    }
    if VALUE_KINDS.contains(&definition.kind.as_str()) {
        let node = &text[definition.node.clone()];
        if node.lines().count() > MAX_VALUE_LINES {
            let first_line = node[..node.find('\n').unwrap_or(node.len())].trim_end();
            let closer = match first_line.chars().last() {
                Some('{') => " }",
                Some('[') => " ]",
                Some('(') => " )",
                _ => "",
            };
            let start = definition.node.start + first_line.len();
            edits.push((start..definition.node.end, format!(" …{closer}")));
        }
    }
}

fn body_replacement(
    text: &str,
    lang: &LanguageSpec,
    definition: &Definition,
    body: &Range<usize>,
) -> String {
    match lang.body_style {
        BodyStyle::Braces if text[body.clone()].starts_with('{') => "{ … }".to_string(),
        BodyStyle::Braces => "…".to_string(),
        BodyStyle::Indented => {
            let line_start = text[..body.start]
                .rfind('\n')
                .map_or(0, |newline| newline + 1);
            let indent = &text[line_start..body.start];
            let own_line = indent.bytes().all(|byte| byte == b' ' || byte == b'\t');
            let docstring = definition
                .docstring
                .as_ref()
                .filter(|doc| doc.start >= body.start && doc.end <= body.end)
                .map(|doc| first_docstring_line(&text[doc.clone()]));
            match docstring {
                Some(doc) if own_line => format!("{doc}\n{indent}..."),
                _ => "...".to_string(),
            }
        }
    }
}

/// Cuts a doc comment to its summary: the first comment line that says
/// something, and for a block comment its closing line too. Attributes after
/// the comments are left alone.
fn shorten_doc(text: &str, comments: &[Range<usize>], edits: &mut Vec<(Range<usize>, String)>) {
    let Some(first) = comments.first() else {
        return;
    };
    let mut last = first;
    for next in &comments[1..] {
        if !text[last.end..next.start].trim().is_empty() {
            break;
        }
        last = next;
    }
    let run = first.start..last.end;
    if text[run.clone()].trim_end().lines().count() <= MAX_DOC_LINES {
        return;
    }
    let Some(summary) = comments
        .iter()
        .take_while(|comment| comment.start < run.end)
        .find(|comment| has_words(&text[(*comment).clone()]))
    else {
        return;
    };
    let comment = text[summary.clone()].trim_end();
    let mut lines = comment.lines();
    let mut kept: Vec<&str> = lines.next().into_iter().collect();
    if !has_words(kept[0]) {
        kept.extend(lines.by_ref().find(|line| has_words(line)));
    }
    if let Some(closing) = comment
        .lines()
        .last()
        .filter(|_| comment.lines().count() > kept.len())
    {
        kept.push(closing);
    }
    let mut replacement = kept.join("\n");
    if text[run.clone()].ends_with('\n') {
        replacement.push('\n');
    }
    edits.push((run, replacement));
}

fn has_words(line: &str) -> bool {
    line.chars().any(char::is_alphanumeric)
}

/// `"""Summary.` of a multi-line docstring, closed again with its own quotes.
fn first_docstring_line(doc: &str) -> String {
    let Some((first, _)) = doc.split_once('\n') else {
        return doc.to_string();
    };
    let unprefixed = doc.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|quote| unprefixed.starts_with(quote))
        .unwrap_or("");
    format!("{}{quote}", first.trim_end())
}

/// The snippet's lines up to the one that opens its body, then an elided body;
/// the whole snippet when no line opens a body.
fn header_only(text: &str, lang: &LanguageSpec) -> String {
    let (opener, elision) = match lang.body_style {
        BodyStyle::Braces => ('{', " … }"),
        BodyStyle::Indented => (':', " ..."),
    };
    let mut out = String::new();
    for line in text.lines() {
        out.push_str(line.trim_end());
        if line.trim_end().ends_with(opener) {
            out.push_str(elision);
            out.push('\n');
            return out;
        }
        out.push('\n');
    }
    tidy(&out)
}

/// The whitespace every non-blank line starts with.
fn common_indent(text: &str) -> &str {
    let mut common: Option<&str> = None;
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let indent = &line[..line.len() - line.trim_start().len()];
        common = Some(match common {
            None => indent,
            Some(previous) => {
                let shared = previous
                    .bytes()
                    .zip(indent.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                &previous[..shared]
            }
        });
    }
    common.unwrap_or("")
}

/// Trailing spaces off, runs of blank lines down to one, no blank lines at the
/// ends, one final newline.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            continue;
        }
        if blank_run > 0 && !out.is_empty() {
            out.push('\n');
        }
        blank_run = 0;
        out.push_str(line);
        out.push('\n');
    }
    out
}
