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

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::{Chunk, ChunkKind, ChunkOptions, Chunked, LineIndex, id};
use crate::tokens;

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

/// A piece of a section about to become a chunk.
struct Piece {
    start: usize,
    end: usize,
    prefix: String,
    suffix: String,
    lang: Option<String>,
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
        vec![Piece {
            start: section.start,
            end: section.end,
            prefix: String::new(),
            suffix: String::new(),
            lang: None,
        }]
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

/// Splits an oversized section between blocks, and oversized blocks by lines.
fn split_section(text: &str, section: &Section, blocks: &[Block], max: usize) -> Vec<Piece> {
    // Extents: each block owns the bytes up to the next block (its trailing blank
    // lines and anything the parser produced no event for, such as link
    // reference definitions), so the pieces tile the section exactly.
    let mut extents: Vec<(usize, usize, &Block)> = Vec::with_capacity(blocks.len());
    for (k, b) in blocks.iter().enumerate() {
        let start = if k == 0 { section.start } else { b.start };
        let end = blocks
            .get(k + 1)
            .map(|n| n.start)
            .unwrap_or(section.end)
            .min(section.end);
        extents.push((start, end, b));
    }
    if extents.is_empty() {
        return vec![plain(section.start, section.end)];
    }
    let sizes: Vec<usize> = extents
        .iter()
        .map(|(s, e, _)| tokens::estimate(&text[*s..*e]))
        .collect();
    let total: usize = sizes.iter().sum();
    let target = total.div_ceil(total.div_ceil(max).max(1));
    let mut pieces: Vec<Piece> = Vec::new();
    let mut cur: Option<(usize, usize, usize)> = None; // start, end, tokens
    for (k, &(s, e, block)) in extents.iter().enumerate() {
        let size = sizes[k];
        if size > max {
            // A short lead-in (the heading, a sentence introducing a long
            // listing) opens the block's first part instead of being a part
            // of its own: a heading-only part ranks for its heading's words
            // and answers with nothing (70 of the KEPs' 30,860 chunks were).
            let from = match cur.take() {
                Some((cs, _, tokens)) if tokens <= max / LEAD_IN_SHARE => cs,
                Some((cs, ce, _)) => {
                    pieces.push(plain(cs, ce));
                    s
                }
                None => s,
            };
            pieces.extend(split_block(text, from, e, block, max));
            continue;
        }
        cur = match cur {
            Some((cs, ce, ct)) if ct + size > max || ct >= target => {
                pieces.push(plain(cs, ce));
                Some((s, e, size))
            }
            Some((cs, _, ct)) => Some((cs, e, ct + size)),
            None => Some((s, e, size)),
        };
    }
    if let Some((cs, ce, _)) = cur {
        pieces.push(plain(cs, ce));
    }
    pieces
}

fn plain(start: usize, end: usize) -> Piece {
    Piece {
        start,
        end,
        prefix: String::new(),
        suffix: String::new(),
        lang: None,
    }
}

/// The opening line of a fence and the line that closes it.
struct Fence {
    opener: String,
    closer: String,
}

fn fence_of(text: &str, start: usize) -> Option<Fence> {
    let first = &text[start..line_end(text, start)];
    let trimmed = first.trim_start_matches(' ');
    let ch = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let count = trimmed.chars().take_while(|c| *c == ch).count();
    if count < 3 {
        return None;
    }
    let mut opener = first.trim_end_matches(['\r', '\n']).to_string();
    opener.push('\n');
    Some(Fence {
        opener,
        closer: format!("{}\n", ch.to_string().repeat(count)),
    })
}

/// Least room, in tokens, worth filling with the first piece of a cut line
/// rather than closing the part before it.
const MIN_ROOM: usize = 16;

/// How small, as a share of the budget, the text before an oversized block
/// must be to open the block's first part rather than be a part of its own.
const LEAD_IN_SHARE: usize = 4;

/// Splits one oversized block at line boundaries, and a line that alone is
/// over the budget within it. `[s, e)` is the block with its lead-in: text
/// before `block.start` that opens the first part.
fn split_block(text: &str, s: usize, e: usize, block: &Block, max: usize) -> Vec<Piece> {
    let opens = (s..e).contains(&block.start);
    let (fence, lang) = match &block.kind {
        BlockKind::Fence { info } if opens => (
            fence_of(text, block.start),
            Some(info.clone()).filter(|i| !i.is_empty()),
        ),
        _ => (None, None),
    };
    let header = match &block.kind {
        BlockKind::Table if opens => {
            let l1 = line_end(text, block.start);
            let l2 = line_end(text, l1);
            Some(text[block.start..l2].to_string())
        }
        _ => None,
    };
    // No later part may start before the lines its prefix repeats (the
    // fence's opening line, the table's header and separator) have passed.
    let first_bound = match (&fence, &header) {
        (Some(_), _) => line_end(text, block.start),
        (None, Some(h)) => block.start + h.len(),
        _ => s,
    };
    let (prefix, suffix) = match (&fence, &header) {
        (Some(f), _) => (f.opener.clone(), f.closer.clone()),
        (None, Some(h)) => (h.clone(), String::new()),
        _ => (String::new(), String::new()),
    };
    let budget = max
        .saturating_sub(tokens::estimate(&prefix) + tokens::estimate(&suffix))
        .max(1);
    // No part may start after the last non-blank line: a trailing blank line
    // must not become a part of its own (it would hold no text).
    let last_line = {
        let trimmed = text[s..e].trim_end().len();
        text[s..s + trimmed].rfind('\n').map_or(s, |i| s + i + 1)
    };
    let mut bounds = vec![s];
    let mut acc = 0usize;
    // Likewise leading blank lines: a part is closed only once it holds text.
    let mut has_text = false;
    let mut at = s;
    while at < e {
        let end = line_end(text, at).min(e);
        let cost = tokens::estimate(&text[at..end]);
        if cost > budget && at >= first_bound {
            // One line over the budget on its own (a generated one-line
            // paragraph, a minified blob in a fence): cut it as the text
            // chunker cuts long lines, at whitespace where it can, rather
            // than leave a chunk no budget can hold. The part before it (a
            // heading, a lead-in) takes the line's first piece if it has room.
            let mut from = at;
            if has_text {
                let room = budget.saturating_sub(acc);
                let mut first = Vec::new();
                if room >= MIN_ROOM {
                    super::text::cut_line(text, at, end, room, &mut first);
                }
                from = first.first().map_or(at, |&(_, first_end)| first_end);
                bounds.push(from);
            }
            let mut spans = Vec::new();
            super::text::cut_line(text, from, end, budget, &mut spans);
            bounds.extend(spans.iter().skip(1).map(|&(start, _)| start));
            acc = spans
                .last()
                .map_or(0, |&(start, _)| tokens::estimate(&text[start..end]));
            has_text = acc > 0;
            at = end;
            continue;
        }
        // Estimates are not additive (lines joined can cost more than apart:
        // 26 tokens over 60 lines of code), so near the budget the part is
        // measured as it would be.
        let part_start = bounds.last().copied().unwrap_or(s);
        let over = acc + cost > budget
            || (acc + cost > budget - budget / 8
                && tokens::estimate(&text[part_start..end]) > budget);
        // The last line with text may open a part, except a fence's
        // closing line, which would end up beside a synthetic one.
        let may_open = if fence.is_some() {
            at < last_line
        } else {
            at <= last_line
        };
        if has_text && over && may_open && at >= first_bound {
            bounds.push(at);
            acc = 0;
            has_text = false;
        }
        acc += cost;
        has_text |= !text[at..end].trim().is_empty();
        at = end;
    }
    bounds.push(e);
    let n = bounds.len() - 1;
    (0..n)
        .map(|k| {
            let (ps, pe) = (bounds[k], bounds[k + 1]);
            let mut suffix_k = String::new();
            if k + 1 < n && !suffix.is_empty() {
                if !text[..pe].ends_with('\n') {
                    suffix_k.push('\n');
                }
                suffix_k.push_str(&suffix);
            }
            Piece {
                start: ps,
                end: pe,
                prefix: if k > 0 { prefix.clone() } else { String::new() },
                suffix: suffix_k,
                lang: lang.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
