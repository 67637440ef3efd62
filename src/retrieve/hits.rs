//! What a search answers: hits with their places, previews and folded
//! copies, the no-evidence answer with its suggestions, and the notes that
//! explain either to the reader.

use serde::Serialize;

use crate::chunk::Chunk;

/// One search hit.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// Chunk ID, for `get`.
    pub id: String,
    /// Document path relative to the segment root.
    pub doc: String,
    /// Heading path.
    pub title_path: Vec<String>,
    /// ~160 characters around the query's words.
    pub preview: String,
    /// Token estimate of the whole chunk.
    pub token_est: usize,
    /// Absolute path of the source file.
    pub source_path: String,
    /// Line range in the source file.
    pub lines: [usize; 2],
    /// BM25 score.
    pub score: f32,
    /// Chunk kind.
    pub kind: String,
    /// `[i, n]` when the chunk is part `i` of a block or symbol split into
    /// `n` (`get` names the parts next to it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<[usize; 2]>,
    /// Qualified symbol name, for code chunks that hold one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Copies of this chunk elsewhere, folded into this hit (see [`super::fold`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub duplicates: Vec<Duplicate>,
    /// Declarations of this hit's symbol (a header's prototype, a stub)
    /// that ranked lower, folded into it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declarations: Vec<Duplicate>,
    /// Definitions of the symbol this hit declares that ranked lower,
    /// folded into it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub definitions: Vec<Duplicate>,
    /// For a hit inside a boxed tool output: the lines (or characters) to resolve.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boxed: Option<BoxedSpan>,
}

impl Hit {
    /// `, part 1 of 3` for a part of a split block or symbol, else nothing.
    pub fn part_label(&self) -> String {
        self.part
            .map(|[i, n]| format!(", part {i} of {n}"))
            .unwrap_or_default()
    }

    /// What was folded into the hit, one line each: `also in …` (copies),
    /// `declared in …`, `defined in …`.
    pub fn elsewhere(&self) -> Vec<String> {
        [
            ("also in", &self.duplicates),
            ("declared in", &self.declarations),
            ("defined in", &self.definitions),
        ]
        .into_iter()
        .filter(|(_, places)| !places.is_empty())
        .map(|(what, places)| format!("{what} {}", Duplicate::list(places)))
        .collect()
    }
}

/// Where a hit inside a boxed tool output sits in the stored value, in the
/// zero-based numbering `resolve lines` takes (hits number lines from one),
/// so that nobody has to convert; and, for a piece of a line, in the
/// characters `resolve slice` takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoxedSpan {
    /// The value's reference, `internal://…`.
    pub reference: String,
    /// The session the value belongs to.
    pub session: String,
    /// First line, zero-based.
    pub start_line: usize,
    /// Number of lines.
    pub line_count: usize,
    /// The hit's first character, zero-based, when the lines that hold it
    /// hold much more (a piece of minified JSON; see [`piece::char_span`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_index: Option<usize>,
    /// The hit's length in characters, with `start_index`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
}

/// The `resolve` call that reads a boxed hit: the operation (`lines` or
/// `slice`) and its two numbers, each named as the MCP tool for that
/// operation names its parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadCall {
    /// `lines` or `slice`.
    pub op: &'static str,
    /// `start_line` and `line_count`, or `start_index` and `length`, with their values.
    pub args: [(&'static str, usize); 2],
}

impl BoxedSpan {
    /// The call that reads the hit: a slice for a piece of a long line, else
    /// its lines.
    pub fn read_call(&self) -> ReadCall {
        match (self.start_index, self.length) {
            (Some(start), Some(length)) => ReadCall {
                op: "slice",
                args: [("start_index", start), ("length", length)],
            },
            _ => ReadCall {
                op: "lines",
                args: [
                    ("start_line", self.start_line),
                    ("line_count", self.line_count),
                ],
            },
        }
    }
}

/// A lower-ranked copy of a hit, at another place.
#[derive(Debug, Clone, Serialize)]
pub struct Duplicate {
    /// Chunk ID.
    pub id: String,
    /// Document path.
    pub doc: String,
    /// Line range in that document.
    pub lines: [usize; 2],
}

impl Duplicate {
    /// The place of `c`.
    pub fn of(c: Chunk) -> Duplicate {
        Duplicate {
            id: c.id,
            doc: c.doc,
            lines: c.lines,
        }
    }

    /// `doc:lines (id)` of each copy, comma-separated, for text output.
    pub fn list(copies: &[Duplicate]) -> String {
        copies
            .iter()
            .map(|d| format!("{}:{}-{} ({})", d.doc, d.lines[0], d.lines[1], d.id))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A heading offered when there is no evidence.
#[derive(Debug, Clone, Serialize)]
pub struct Suggestion {
    /// Chunk ID.
    pub id: String,
    /// Document path.
    pub doc: String,
    /// Heading path.
    pub title_path: Vec<String>,
}

/// The answer to a search.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResult {
    /// Ranked hits (empty when `no_evidence`).
    pub hits: Vec<Hit>,
    /// Nothing in the index really answers the query.
    pub no_evidence: bool,
    /// Query-term coverage of the best hit, 0..1.
    pub coverage: f32,
    /// Nearest headings, when there is no evidence.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<Suggestion>,
    /// Boxed tool outputs that answer the query (at most 3), when a
    /// docs-only search found no evidence: the answer may be in a tool's output.
    #[serde(skip_serializing_if = "is_zero")]
    pub relay_matches: usize,
    /// Why there is no evidence, when the query itself is the reason; or
    /// the files the build skipped, which the answer may be in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Words of the query that no indexed text holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
    /// Package directories the query names (see [`crate::index::packages`]):
    /// hits outside them rank lower.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<String>,
}

impl SearchResult {
    /// What to tell a reader about the query itself, with hits or without:
    /// its words no indexed text holds, and the packages it names.
    pub fn query_notes(&self) -> Vec<String> {
        query_notes(&self.absent, &self.packages)
    }
}

/// The notes about a query whose `absent` words no indexed text holds and
/// which names the package directories `packages` (so hits bunched in one
/// of them are not a surprise).
pub fn query_notes(absent: &[String], packages: &[String]) -> Vec<String> {
    let dirs: Vec<String> = packages.iter().map(|d| format!("`{d}`")).collect();
    let packages = match dirs.as_slice() {
        [] => None,
        [one] => Some(format!(
            "the query names the package {one}; hits outside it rank lower"
        )),
        _ => Some(format!(
            "the query names the packages {}; hits outside them rank lower",
            dirs.join(", ")
        )),
    };
    absent_note(absent).into_iter().chain(packages).collect()
}

/// "no searched text contains …" for `words`, when there are any: the scope
/// searched, since a boxed output may hold a word the docs lack.
fn absent_note(words: &[String]) -> Option<String> {
    /// Words named; a pasted page of unknown words is not echoed whole.
    const NAMED: usize = 8;
    if words.is_empty() {
        return None;
    }
    let quoted: Vec<String> = words
        .iter()
        .take(NAMED)
        .map(|w| format!("\"{w}\""))
        .collect();
    let more = match words.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!(" (nor {n} more of the query's words)"),
    };
    Some(format!(
        "no searched text contains {}{more}",
        quoted.join(" or ")
    ))
}

/// Said when no word of a query can be searched for.
pub const NO_SEARCHABLE_WORDS: &str = "every word of the query is a stop word, question word or punctuation, so nothing can match it; use the words an answer would contain (a name, a term, an error message)";

fn is_zero(n: &usize) -> bool {
    *n == 0
}
