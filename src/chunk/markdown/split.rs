//! Splitting a section over the chunk budget into parts: between top-level
//! blocks, and an oversized block at line boundaries (a line over the budget
//! on its own at whitespace), with a fence reopened and closed and a table's
//! header repeated in every later part, so each part is valid Markdown and
//! the parts tile the section exactly.

use super::{Block, BlockKind, Section, line_end};
use crate::tokens;

/// A piece of a section about to become a chunk.
pub(super) struct Piece {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) prefix: String,
    pub(super) suffix: String,
    pub(super) lang: Option<String>,
}

/// Splits an oversized section between blocks, and oversized blocks by lines.
pub(super) fn split_section(
    text: &str,
    section: &Section,
    blocks: &[Block],
    max: usize,
) -> Vec<Piece> {
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
    join_blank_pieces(text, pieces)
}

/// Pieces of white space alone (the line break left after a long line was
/// cut) joined to the piece before them, or the first to the one after it:
/// alone they would be empty chunks (found by the chunk property test).
fn join_blank_pieces(text: &str, pieces: Vec<Piece>) -> Vec<Piece> {
    let blank = |p: &Piece| {
        p.prefix.is_empty() && p.suffix.is_empty() && text[p.start..p.end].trim().is_empty()
    };
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for p in pieces {
        match out.last_mut() {
            Some(prev) if blank(&p) && prev.end == p.start => prev.end = p.end,
            Some(prev) if blank(prev) && prev.end == p.start => {
                let start = prev.start;
                *prev = Piece { start, ..p };
            }
            _ => out.push(p),
        }
    }
    out
}

/// The part `[start, end)` as it stands, with nothing added.
pub(super) fn plain(start: usize, end: usize) -> Piece {
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

impl Fence {
    /// Whether `line` closes the fence: its character, at least as many
    /// times, and nothing else but whitespace.
    fn closes(&self, line: &str) -> bool {
        let closer = self.closer.trim_end();
        let line = line.trim();
        closer
            .chars()
            .next()
            .is_some_and(|ch| line.len() >= closer.len() && line.chars().all(|c| c == ch))
    }
}

/// The fence that the line at `start` opens, if it opens one.
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
    // What later parts repeat, and where the lines they repeat (the fence's
    // opening line, the table's header and separator) have passed: no later
    // part may start before that.
    let (prefix, suffix, first_bound) = match (&fence, header) {
        (Some(f), _) => (
            f.opener.clone(),
            f.closer.clone(),
            line_end(text, block.start),
        ),
        (None, Some(h)) => {
            let past = block.start + h.len();
            (h, String::new(), past)
        }
        _ => (String::new(), String::new(), s),
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
                    crate::chunk::text::cut_line(text, at, end, room, &mut first);
                }
                from = first.first().map_or(at, |&(_, first_end)| first_end);
                bounds.push(from);
            }
            let mut spans = Vec::new();
            crate::chunk::text::cut_line(text, from, end, budget, &mut spans);
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
        // closing line, which would end up beside a synthetic one (a fence
        // left open ends on a line of content).
        let may_open = match &fence {
            Some(f) if f.closes(&text[at..end]) => at < last_line,
            _ => at <= last_line,
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
