//! Code chunker: tree-sitter symbols and file skeletons.
//!
//! A source file becomes one chunk per top-level definition and one per member of
//! a container (methods of an `impl`, a class, a trait, an interface; items of an
//! inline module or namespace). A container's own chunk holds its header and what
//! comes before its first member (fields, attributes, the class docstring); text
//! between members and after the last one is a chunk titled by the container.
//! Text between top-level symbols (imports, module docs, `main` guards) gets chunks
//! titled by the file alone. The chunks of a file tile its bytes exactly, in order.
//!
//! Languages are data ([`languages`]): a table row plus a query file under
//! `queries/`, in the style of tree-sitter's `tags.scm`. Nothing here matches on a
//! language name or a grammar's node kinds.
//!
//! **Qualified names** use the language's own path separator: `::` for Rust and
//! C++ (`WalkBuilder::build`, `limits::TokenBucket::try_take`), `.` for every other
//! language (`Inventory.add`, `Cache.Get`). Lookups should accept either.
//!
//! Like every chunker this module is pure: no file system, clock or environment.
//! A file whose syntax errors cover more than a quarter of it outside any
//! definition is split by lines instead, with a [`ChunkNote`] saying so.

pub mod comment;
mod extract;
mod generated;
mod guards;
pub mod languages;
mod macros;
mod matches;
mod skeleton;
mod split;
#[cfg(test)]
mod tests;

use std::ops::Range;

pub(crate) use extract::CALLABLE_KINDS;
pub use generated::is_probably_generated;
pub use languages::{BodyStyle, LanguageSpec, all_languages, language_by_name, language_for_path};
pub use matches::super_name;
pub(crate) use matches::type_name;
pub use skeleton::{skeleton, skeleton_of_chunk, skeletons_of_parts};

use super::{
    Chunk, ChunkKind, ChunkNote, ChunkOptions, Chunked, DeclaredMember, LineIndex, Symbol, id,
};
use crate::error::WarningKind;
use crate::tokens;
use extract::Definition;

/// Share of a file (percent of bytes) that `ERROR` nodes may cover outside any
/// definition before the symbols are judged unreliable and the file is split by
/// lines.
const MAX_ERROR_PERCENT: usize = 25;

/// A closing line at most this many tokens (`}`, `};`, `}  // namespace x`)
/// goes back to the chunk before it instead of standing alone.
const TINY_GAP_TOKENS: usize = 8;

/// Chunks source file `doc` (its `text` in language `lang`) by symbols.
pub fn chunk_code(doc: &str, text: &str, lang: &LanguageSpec, opts: &ChunkOptions) -> Chunked {
    let mut notes = Vec::new();
    // A blank file has nothing to find; returning no chunks beats one blank chunk.
    let mut chunks = if trim(text).is_empty() {
        Vec::new()
    } else {
        symbols_or_lines(doc, text, lang, opts, &mut notes)
    };
    id::assign(&mut chunks);
    Chunked {
        chunks,
        title: None,
        notes,
    }
}

fn symbols_or_lines(
    doc: &str,
    text: &str,
    lang: &LanguageSpec,
    opts: &ChunkOptions,
    notes: &mut Vec<ChunkNote>,
) -> Vec<Chunk> {
    let extraction = match extract::extract(text, lang) {
        Ok(extraction) => extraction,
        Err(reason) => {
            notes.push(ChunkNote {
                line: None,
                message: format!("{reason}; split by lines instead of symbols"),
                kind: WarningKind::ByLines,
            });
            return by_lines(doc, text, lang, opts);
        }
    };
    let (extraction, lang) = match cpp_header(doc, text, lang, &extraction) {
        Some(cpp) => cpp,
        None => (extraction, lang),
    };
    if let Some(errors) = &extraction.errors {
        if extraction.too_broken(text) {
            let unexplained = extraction.unexplained_error_bytes();
            notes.push(ChunkNote {
                line: Some(errors.first_line),
                message: format!(
                    "syntax errors cover {}% of the file outside any symbol; split by lines instead of symbols",
                    unexplained * 100 / text.len()
                ),
                kind: WarningKind::ByLines,
            });
            return by_lines(doc, text, lang, opts);
        }
        notes.push(ChunkNote {
            line: Some(errors.first_line),
            message: format!(
                "{} syntax error{} (first on line {}); symbols near them may be incomplete",
                errors.count,
                if errors.count == 1 { "" } else { "s" },
                errors.first_line
            ),
            kind: WarningKind::SyntaxErrors,
        });
    }
    by_symbols(doc, text, lang, opts, &extraction.definitions)
}

/// A `.h` file is C or C++, and its extension cannot say which: one that
/// has syntax errors as C (a class, a namespace, a template) is parsed again
/// as C++, which answers when it is the better parse
/// ([`extract::Extraction::better_than`]).
fn cpp_header<'l>(
    doc: &str,
    text: &str,
    lang: &LanguageSpec,
    as_c: &extract::Extraction,
) -> Option<(extract::Extraction, &'l LanguageSpec)> {
    let in_doubt =
        as_c.errors.is_some() && lang.name == "c" && doc.to_ascii_lowercase().ends_with(".h");
    if !in_doubt {
        return None;
    }
    let cpp = languages::language_by_name("cpp")?;
    let as_cpp = extract::extract(text, cpp).ok()?;
    as_cpp.better_than(as_c, text).then_some((as_cpp, cpp))
}

/// A stretch of the file before it becomes chunks: a symbol (or a container's
/// header) or the text between symbols, with the containers it sits in.
#[derive(Debug)]
struct Piece<'d> {
    range: Range<usize>,
    containers: Vec<&'d Definition>,
    symbol: Option<&'d Definition>,
}

impl Piece<'_> {
    /// Containers plus the symbol itself: what a gap must share to join it.
    fn path_starts_with(&self, containers: &[&Definition]) -> bool {
        let mut own = self.containers.iter().copied().chain(self.symbol);
        containers.iter().all(|container| {
            own.next()
                .is_some_and(|mine| std::ptr::eq(mine, *container))
        })
    }
}

/// A file of declarations only (TypeScript's `.d.ts`, Python's `.pyi`):
/// its symbols describe code that lives elsewhere.
pub fn is_stub(doc: &str) -> bool {
    let name = doc.rsplit('/').next().unwrap_or(doc).to_ascii_lowercase();
    [".d.ts", ".d.mts", ".d.cts", ".pyi"]
        .iter()
        .any(|ext| name.ends_with(ext))
}

fn by_symbols(
    doc: &str,
    text: &str,
    lang: &LanguageSpec,
    opts: &ChunkOptions,
    definitions: &[Definition],
) -> Vec<Chunk> {
    let mut pieces = Vec::new();
    tile(
        text,
        definitions,
        0..text.len(),
        text.len(),
        &[],
        &mut pieces,
    );
    let pieces = merge_gaps(text, pieces, opts.max_chunk_tokens);
    let lines = LineIndex::new(text);
    let stub = is_stub(doc);
    let mut chunks = Vec::new();
    for piece in pieces {
        let mut title_path = vec![doc.to_string()];
        let mut qualified = Vec::new();
        for definition in piece.containers.iter().copied().chain(piece.symbol) {
            for name in definition.scope.iter().chain([&definition.name]) {
                title_path.push(name.clone());
                qualified.push(name.as_str());
            }
        }
        // A type's impl blocks would all be titled by the type's name, and
        // so by its definition's: their header tells them apart.
        if let Some(definition) = piece.symbol.filter(|d| d.kind == "impl")
            && let Some(last) = title_path.last_mut()
        {
            *last = match definition.supers.first() {
                Some(t) => format!("impl {} for {}", super_name(t), definition.name),
                None => format!("impl {}", definition.name),
            };
        }
        let symbol = piece.symbol.map(|definition| Symbol {
            name: definition.name.clone(),
            qualified: qualified.join(lang.separator),
            kind: definition.kind.clone(),
            signature: definition.signature.clone(),
            doc: definition.doc.clone(),
            supers: definition.supers.clone(),
            requires: definition.requires.clone(),
            decl: definition.decl || stub,
            lines: Some(lines.range(definition.start, definition.node.end)),
            declared: definition
                .declared
                .iter()
                .map(|d| DeclaredMember {
                    name: d.name.clone(),
                    kind: d.kind.clone(),
                    lines: lines.range(d.range.start, d.range.end),
                })
                .collect(),
        });
        let parts = split::split_lines(text, piece.range, opts.max_chunk_tokens);
        let count = parts.len();
        for (index, range) in parts.into_iter().enumerate() {
            let mut chunk = chunk(doc, text, &lines, lang, range, title_path.clone());
            chunk.part = (count > 1).then_some([index + 1, count]);
            chunk.symbol = symbol.clone();
            if index > 0
                && let Some(symbol) = &mut chunk.symbol
            {
                symbol.declared.clear();
            }
            chunks.push(chunk);
        }
    }
    chunks
}

/// Lays `definitions` (siblings, in order) and the text around them over
/// `region`, recursing into containers. No chunk may end past `limit` (the end of
/// the enclosing container node), so the container's closing line stays its own.
fn tile<'d>(
    text: &str,
    definitions: &'d [Definition],
    region: Range<usize>,
    limit: usize,
    containers: &[&'d Definition],
    out: &mut Vec<Piece<'d>>,
) {
    let mut cursor = region.start;
    for (index, definition) in definitions.iter().enumerate() {
        let start = definition.start.clamp(cursor, region.end);
        let next_start = definitions
            .get(index + 1)
            .map_or(region.end, |next| next.start.clamp(start, region.end));
        // A symbol takes the rest of its last line (a `;`, a trailing comment).
        let end = line_end(text, definition.node.end.clamp(start, limit))
            .min(next_start)
            .min(limit);
        if start > cursor {
            out.push(Piece {
                range: cursor..start,
                containers: containers.to_vec(),
                symbol: None,
            });
        }
        if definition.children.is_empty() {
            out.push(Piece {
                range: start..end,
                containers: containers.to_vec(),
                symbol: Some(definition),
            });
        } else {
            let mut inner = containers.to_vec();
            inner.push(definition);
            let header = out.len();
            tile(
                text,
                &definition.children,
                start..end,
                definition.node.end,
                &inner,
                out,
            );
            // The stretch before the first member is the container's own chunk.
            match out.get_mut(header) {
                Some(piece) if piece.symbol.is_none() && piece.range.start == start => {
                    piece.containers = containers.to_vec();
                    piece.symbol = Some(definition);
                }
                _ => out.insert(
                    header,
                    Piece {
                        range: start..start,
                        containers: containers.to_vec(),
                        symbol: Some(definition),
                    },
                ),
            }
        }
        cursor = end;
    }
    if cursor < region.end {
        out.push(Piece {
            range: cursor..region.end,
            containers: containers.to_vec(),
            symbol: None,
        });
    }
}

/// `text` without surrounding whitespace or byte-order mark.
pub(crate) fn trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// The start of the line after the one `at` ends: `at` itself when it already
/// follows a newline (some nodes, like C's `#define`, end with theirs).
pub(crate) fn line_end(text: &str, at: usize) -> usize {
    if at == 0 || text.as_bytes()[at - 1] == b'\n' {
        return at;
    }
    text[at..]
        .find('\n')
        .map_or(text.len(), |offset| at + offset + 1)
}

/// Folds blank gaps into a neighbour of the same container (the following symbol
/// first, so blank lines lead into the next definition) and closing lines into
/// the chunk before them (a container's `}` goes back to its last member), drops
/// empty pieces, and joins consecutive gaps that fit the budget together. Other
/// short gaps (`use x;`, `#endif`, `export default App;`) stay chunks of their
/// own: they are not part of either neighbour.
fn merge_gaps<'d>(text: &str, pieces: Vec<Piece<'d>>, max_tokens: usize) -> Vec<Piece<'d>> {
    let mut pieces: Vec<Option<Piece<'d>>> = pieces
        .into_iter()
        .flat_map(|piece| split_after_closer(text, piece))
        .filter(|piece| !piece.range.is_empty())
        .map(Some)
        .collect();
    for index in 0..pieces.len() {
        let Some(gap) = pieces[index]
            .as_ref()
            .filter(|piece| piece.symbol.is_none())
        else {
            continue;
        };
        let trimmed = trim(&text[gap.range.clone()]);
        let blank = trimmed.is_empty();
        let closer =
            trimmed.starts_with(['}', ')', ']']) && tokens::estimate(trimmed) <= TINY_GAP_TOKENS;
        if !blank && !closer {
            continue;
        }
        let next = (index + 1..pieces.len()).find(|&other| pieces[other].is_some());
        let previous = (0..index).rev().find(|&other| pieces[other].is_some());
        let joins = |other: usize| {
            pieces[other]
                .as_ref()
                .is_some_and(|piece| piece.path_starts_with(&gap.containers))
        };
        let next_is_symbol = next.is_some_and(|other| {
            pieces[other]
                .as_ref()
                .is_some_and(|piece| piece.symbol.is_some())
        });
        let target = if closer {
            previous.filter(|&other| joins(other))
        } else if next_is_symbol && next.is_some_and(joins) {
            next
        } else if previous.is_some_and(joins) {
            previous
        } else {
            next.or(previous)
        };
        let Some(target) = target else {
            continue;
        };
        let Some(gap) = pieces[index].take() else {
            continue;
        };
        if let Some(piece) = pieces[target].as_mut() {
            piece.range =
                piece.range.start.min(gap.range.start)..piece.range.end.max(gap.range.end);
        }
    }
    let mut out: Vec<Piece<'d>> = Vec::new();
    for piece in pieces.into_iter().flatten() {
        if let Some(previous) = out.last_mut() {
            let both_gaps = previous.symbol.is_none() && piece.symbol.is_none();
            if both_gaps
                && tokens::estimate(&text[previous.range.start..piece.range.end]) <= max_tokens
            {
                let shared = previous
                    .containers
                    .iter()
                    .zip(&piece.containers)
                    .take_while(|(a, b)| std::ptr::eq(**a, **b))
                    .count();
                previous.containers.truncate(shared);
                previous.range.end = piece.range.end;
                continue;
            }
        }
        out.push(piece);
    }
    out
}

/// A gap that closes one block and opens another (Go's `)` then `var (`)
/// as two gaps: its closing line goes back to the chunk before it, and the
/// rest leads into what follows instead of trailing a symbol it is no part of.
fn split_after_closer<'d>(text: &str, piece: Piece<'d>) -> Vec<Piece<'d>> {
    let written = &text[piece.range.clone()];
    let lead = written.len() - written.trim_start().len();
    if piece.symbol.is_some() || !written[lead..].starts_with(['}', ')', ']']) {
        return vec![piece];
    }
    let line_end = written[lead..]
        .find('\n')
        .map_or(written.len(), |newline| lead + newline + 1);
    if trim(&written[line_end..]).is_empty() {
        return vec![piece];
    }
    let cut = piece.range.start + line_end;
    let closer = Piece {
        range: piece.range.start..cut,
        containers: piece.containers.clone(),
        symbol: None,
    };
    vec![
        closer,
        Piece {
            range: cut..piece.range.end,
            ..piece
        },
    ]
}

/// The whole file in budget-sized runs of lines, for text the parser could not
/// make sense of.
fn by_lines(doc: &str, text: &str, lang: &LanguageSpec, opts: &ChunkOptions) -> Vec<Chunk> {
    let lines = LineIndex::new(text);
    split::split_lines(text, 0..text.len(), opts.max_chunk_tokens)
        .into_iter()
        .map(|range| chunk(doc, text, &lines, lang, range, vec![doc.to_string()]))
        .collect()
}

fn chunk(
    doc: &str,
    text: &str,
    lines: &LineIndex,
    lang: &LanguageSpec,
    range: Range<usize>,
    title_path: Vec<String>,
) -> Chunk {
    let body = &text[range.clone()];
    Chunk {
        id: String::new(),
        doc: doc.to_string(),
        title_path,
        text: body.to_string(),
        bytes: [range.start, range.end],
        lines: lines.range(range.start, range.end),
        kind: ChunkKind::Code,
        token_est: tokens::estimate(body),
        text_sha256: String::new(),
        part: None,
        symbol: None,
        lang: Some(lang.name.to_string()),
    }
}
