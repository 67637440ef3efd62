//! Markdown chunker: pulldown-cmark's offset iterator → top-level blocks →
//! heading sections → block-boundary splits.
//!
//! Rules (each one has a fixture under `fixtures/markdown/`):
//! - Only top-level ATX and setext headings open sections; a `#` line inside a
//!   fence, an HTML block, a list item or a blockquote is body text.
//! - The heading path of a section is its chain of enclosing headings.
//! - Text before the first heading is titled by the front-matter `title`, else the
//!   first H1, else the file name.
//! - YAML (`---`) and TOML (`+++`) front matter and a UTF-8 BOM are metadata: they
//!   are inside the first chunk's byte range (ranges tile the whole file) but not
//!   in its text.
//! - A heading with no body of its own, directly followed by a deeper heading, is
//!   merged into that child section (its heading line is kept in the text), so the
//!   index holds no chunks that say nothing. Whitespace never becomes a chunk.
//! - A section over `max_chunk_tokens` is split between top-level blocks, so never
//!   inside a fence, table, list, HTML block or blockquote. One block that alone is
//!   over the limit is split at line boundaries; a fence is re-opened and closed in
//!   each part and a table repeats its header, so every part is valid Markdown.

pub mod comments;
mod split;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::{Chunk, ChunkKind, ChunkOptions, Chunked, LineIndex, id};
use crate::tokens;
use split::split_section;

/// Chunks one Markdown document. `doc` is the path relative to the segment root.
pub fn chunk_markdown(doc: &str, text: &str, opts: &ChunkOptions) -> Chunked {
    let meta = front_matter(text);
    let blocks = top_level_blocks(text, meta.body_start);
    let sections = sections(doc, text, &meta, &blocks);
    let mut chunks = Vec::new();
    for section in &sections {
        emit_section(doc, text, &meta, &blocks, section, opts, &mut chunks);
    }
    if let Some(first) = chunks.first_mut() {
        // The first chunk's range starts at byte 0 so front matter and BOM are
        // inside the tiling; its text already starts after them.
        first.bytes[0] = 0;
    }
    if let Some(last) = chunks.last_mut()
        && last.bytes[1] < text.len()
    {
        last.bytes[1] = text.len();
    }
    let lines = LineIndex::new(text);
    for c in &mut chunks {
        c.lines = lines.range(c.bytes[0], c.bytes[1]);
    }
    id::assign(&mut chunks);
    Chunked {
        chunks,
        title: meta.title,
        notes: Vec::new(),
    }
}

/// Front matter and BOM found at the start of a document.
#[derive(Debug, Default)]
pub struct FrontMatter {
    /// Byte offset where the Markdown body starts.
    pub body_start: usize,
    /// The `title` field, when present.
    pub title: Option<String>,
    /// The raw front matter (between the fences), when present.
    pub raw: Option<String>,
    /// 1-based line of the front matter's first content line.
    pub first_line: usize,
}

/// Finds a BOM and YAML (`---`) or TOML (`+++`) front matter at the start of `text`.
pub fn front_matter(text: &str) -> FrontMatter {
    let mut start = 0;
    if text.starts_with('\u{feff}') {
        start = '\u{feff}'.len_utf8();
    }
    let rest = &text[start..];
    let fence = if rest.starts_with("---") {
        "---"
    } else if rest.starts_with("+++") {
        "+++"
    } else {
        return FrontMatter {
            body_start: start,
            ..FrontMatter::default()
        };
    };
    let first_end = line_end(text, start);
    if text[start..first_end].trim_end() != fence {
        return FrontMatter {
            body_start: start,
            ..FrontMatter::default()
        };
    }
    let mut at = first_end;
    while at < text.len() {
        let end = line_end(text, at);
        let line = text[at..end].trim_end();
        if line == fence || (fence == "---" && line == "...") {
            let raw = text[first_end..at].to_string();
            return FrontMatter {
                body_start: end,
                title: title_field(&raw, fence == "+++"),
                raw: Some(raw),
                first_line: 2,
            };
        }
        at = end;
    }
    // No closing fence: not front matter (a `---` line is a thematic break).
    FrontMatter {
        body_start: start,
        ..FrontMatter::default()
    }
}

/// A top-level `title:` (YAML) or `title =` (TOML) value, quotes removed.
fn title_field(raw: &str, toml: bool) -> Option<String> {
    for line in raw.lines() {
        let value = if toml {
            line.strip_prefix("title")
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix('='))
        } else {
            line.strip_prefix("title:")
        };
        if let Some(v) = value {
            let v = v.trim();
            let v = v
                .strip_prefix('"')
                .and_then(|x| x.strip_suffix('"'))
                .or_else(|| v.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')))
                .unwrap_or(v);
            let v = collapse_ws(v);
            if !v.is_empty() {
                return Some(v);
            }
        }
    }
    None
}

/// End of the line starting at `at` (just past its `\n`, or the text end).
fn line_end(text: &str, at: usize) -> usize {
    match text.as_bytes()[at..].iter().position(|&b| b == b'\n') {
        Some(i) => at + i + 1,
        None => text.len(),
    }
}

/// What a top-level block is, as far as chunking cares.
#[derive(Debug, Clone, PartialEq)]
enum BlockKind {
    Heading { level: u8, text: String },
    Fence { info: String },
    Table,
    Other,
}

#[derive(Debug, Clone)]
struct Block {
    start: usize,
    /// End of the block as parsed (trailing blank lines excluded).
    end: usize,
    kind: BlockKind,
}

fn parser_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
}

/// The top-level blocks of the body, in order, with absolute byte offsets.
fn top_level_blocks(text: &str, body_start: usize) -> Vec<Block> {
    let body = &text[body_start..];
    let mut blocks = Vec::new();
    let mut depth = 0usize;
    let mut heading: Option<(u8, String)> = None;
    for (event, range) in Parser::new_ext(body, parser_options()).into_offset_iter() {
        let (start, end) = (range.start + body_start, range.end + body_start);
        // A block indented by up to three spaces starts at its line's start,
        // not at its first character: cut there, a chunk boundary would split
        // the line between two chunks and both would claim it.
        let start = if depth == 0 {
            line_start(text, body_start, start)
        } else {
            start
        };
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    let kind = match &tag {
                        Tag::Heading { level, .. } => {
                            heading = Some((*level as u8, String::new()));
                            BlockKind::Other
                        }
                        Tag::CodeBlock(pulldown_cmark::CodeBlockKind::Fenced(info)) => {
                            BlockKind::Fence {
                                info: info.split_whitespace().next().unwrap_or("").to_string(),
                            }
                        }
                        Tag::Table(_) => BlockKind::Table,
                        _ => BlockKind::Other,
                    };
                    blocks.push(Block { start, end, kind });
                }
                depth += 1;
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    if let (TagEnd::Heading(_), Some((level, title))) = (tag, heading.take())
                        && let Some(last) = blocks.last_mut()
                    {
                        last.kind = BlockKind::Heading {
                            level,
                            text: collapse_ws(&title),
                        };
                    }
                    if let Some(last) = blocks.last_mut() {
                        last.end = last.end.max(end);
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, title)) = heading.as_mut() {
                    title.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, title)) = heading.as_mut() {
                    title.push(' ');
                }
            }
            _ if depth == 0 => blocks.push(Block {
                start,
                end,
                kind: BlockKind::Other,
            }),
            _ => {}
        }
    }
    blocks
}

/// `at`, moved back over the spaces and tabs that open its line (not before
/// `floor`).
fn line_start(text: &str, floor: usize, at: usize) -> usize {
    let indent = text.as_bytes()[floor..at]
        .iter()
        .rev()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let start = at - indent;
    if start == floor || text.as_bytes()[start - 1] == b'\n' {
        start
    } else {
        at
    }
}

/// Trims and collapses every whitespace run to one space.
pub fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A heading section: a run of blocks under one heading path.
#[derive(Debug)]
struct Section {
    title_path: Vec<String>,
    /// Byte range `[start, end)`; consecutive sections tile the body.
    start: usize,
    end: usize,
    /// Indexes into the block list.
    blocks: std::ops::Range<usize>,
    /// Only a heading (or only whitespace): nothing of its own to say.
    empty_body: bool,
}

fn sections(doc: &str, text: &str, meta: &FrontMatter, blocks: &[Block]) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut stack: Vec<(u8, String)> = Vec::new();
    let first_heading = blocks
        .iter()
        .position(|b| matches!(b.kind, BlockKind::Heading { .. }))
        .unwrap_or(blocks.len());
    let preamble_end = blocks.get(first_heading).map_or(text.len(), |b| b.start);
    if first_heading > 0 && !text[meta.body_start..preamble_end].trim().is_empty() {
        let title = meta
            .title
            .clone()
            .or_else(|| {
                blocks.iter().find_map(|b| match &b.kind {
                    BlockKind::Heading { level: 1, text } => Some(text.clone()),
                    _ => None,
                })
            })
            .unwrap_or_else(|| doc.rsplit('/').next().unwrap_or(doc).to_string());
        out.push(Section {
            title_path: vec![title],
            start: meta.body_start,
            end: 0,
            blocks: 0..first_heading,
            empty_body: false,
        });
    }
    let mut i = first_heading;
    while i < blocks.len() {
        let BlockKind::Heading { level, text: title } = &blocks[i].kind else {
            i += 1;
            continue;
        };
        while stack.last().is_some_and(|(l, _)| *l >= *level) {
            stack.pop();
        }
        stack.push((*level, title.clone()));
        let mut j = i + 1;
        while j < blocks.len() && !matches!(blocks[j].kind, BlockKind::Heading { .. }) {
            j += 1;
        }
        out.push(Section {
            title_path: stack.iter().map(|(_, t)| t.clone()).collect(),
            start: blocks[i].start,
            end: 0,
            blocks: i..j,
            empty_body: j == i + 1,
        });
        i = j;
    }
    // Each section runs to the next one's start; the last runs to the end.
    let count = out.len();
    for k in 0..count {
        out[k].end = if k + 1 < count {
            out[k + 1].start
        } else {
            text.len()
        };
    }
    if let Some(first) = out.first_mut() {
        first.start = meta.body_start;
    }
    merge_empty(out)
}

/// Folds heading-only sections into the descendant section that follows them.
fn merge_empty(sections: Vec<Section>) -> Vec<Section> {
    let mut out: Vec<Section> = Vec::with_capacity(sections.len());
    let mut pending: Option<Section> = None;
    for mut s in sections {
        if let Some(p) = pending.take() {
            if is_descendant(&p.title_path, &s.title_path) {
                s.start = p.start;
                s.blocks = p.blocks.start..s.blocks.end;
            } else {
                out.push(p);
            }
        }
        if s.empty_body {
            pending = Some(s);
        } else {
            out.push(s);
        }
    }
    out.extend(pending);
    out
}

fn is_descendant(parent: &[String], child: &[String]) -> bool {
    child.len() > parent.len() && child.starts_with(parent)
}

fn emit_section(
    doc: &str,
    text: &str,
    meta: &FrontMatter,
    blocks: &[Block],
    section: &Section,
    opts: &ChunkOptions,
    out: &mut Vec<Chunk>,
) {
    let max = opts.max_chunk_tokens.max(1);
    let visible = &text[section.start.max(meta.body_start)..section.end];
    let visible_tokens = tokens::estimate(visible);
    let whole = visible_tokens <= max;
    let pieces = if whole {
        vec![split::plain(section.start, section.end)]
    } else {
        split_section(text, section, &blocks[section.blocks.clone()], max)
    };
    let n = pieces.len();
    for (i, piece) in pieces.into_iter().enumerate() {
        let body_from = piece.start.max(meta.body_start);
        let mut chunk_text =
            String::with_capacity(piece.prefix.len() + piece.end - body_from + piece.suffix.len());
        chunk_text.push_str(&piece.prefix);
        chunk_text.push_str(&text[body_from..piece.end]);
        chunk_text.push_str(&piece.suffix);
        // A whole section's text is `visible`, estimated already.
        let token_est = if whole {
            visible_tokens
        } else {
            tokens::estimate(&chunk_text)
        };
        out.push(Chunk {
            id: String::new(),
            doc: doc.to_string(),
            title_path: section.title_path.clone(),
            token_est,
            text_sha256: String::new(),
            text: chunk_text,
            bytes: [piece.start, piece.end],
            lines: [0, 0], // set for the whole document at the end
            kind: ChunkKind::Markdown,
            part: (n > 1).then_some([i + 1, n]),
            symbol: None,
            lang: piece.lang,
        });
    }
}

#[cfg(test)]
mod tests;
