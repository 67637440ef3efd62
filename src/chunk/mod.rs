//! Chunkers: pure functions from `(doc path, text, options)` to chunks.
//!
//! Nothing in this module touches the file system, the clock, the environment or a
//! random source (an architecture test holds this), so every chunker is trivially
//! testable, fuzzable and deterministic: the same bytes always give the same chunks
//! and the same IDs on every machine.

pub mod code;
pub mod encoded;
pub mod id;
pub mod markdown;
pub mod text;

use serde::{Deserialize, Serialize};

/// Changes whenever the chunks of unchanged bytes change (a build with another
/// version is a full rebuild): 2 added a symbol's own line range, 3 its
/// supertypes, 4 a Go interface's required methods, 5 whether a symbol is a
/// declaration, 6 C++ in `.h` files, 7 a Go supertype's package and C's
/// `extern` declarations, 8 a Markdown line over the budget cut into parts
/// and a short lead-in opening the first part of its oversized block, 9
/// letters of any script kept in IDs' doc stems, 10 C and C++ names found
/// through their declarators and macros run on over continued lines, 11 C
/// and C++ export macros blanked for the parser, 12 annotation macros after
/// a signature blanked on the lines after it too, 13 a C/C++ line that is a
/// macro's call alone blanked and a `.h` that C would split by lines read
/// as C++, 14 lines of attribute macros between a C declaration's type and
/// name blanked, 15 a Markdown part of white space alone joined to the part
/// before it, 16 members a container declares in its own chunk (fields,
/// required methods, prototypes, variants) listed in its symbol, 17 the
/// conditionals holding half a C linkage block blanked for the parser and
/// C++ prototypes found inside file-level conditionals, 18 instance
/// attributes assigned in `__init__` or a constructor declared by the class,
/// 19 Python instance attributes assigned in any method, in the body of an
/// `if`, `try`, `with` or loop too, 20 impl blocks titled by their header
/// (`impl Display for Polygon`), 21 a JSON array's record labelled by its
/// name after its index (`[281] tantivy`), 22 a named record of a quarter
/// chunk or more not grouped with its neighbours, Kubernetes objects named
/// by `metadata.name`, and a group of records labelled by its first and
/// last names, 23 a `data:` URI payload of 256 bytes or more elided from
/// chunk text, 24 long base64 elided too, wrapped over lines or not, 25 a
/// top-level block indented by up to three spaces cut at its line's start,
/// 26 the last line of a fence left open may open a part, 27 each spec of a
/// Go `const (…)`, `var (…)` or `type (…)` group a chunk of its own, later
/// names of a multi-name declaration declared members, Rust `extern` block
/// items symbols.
pub const CHUNKER_VERSION: u32 = 27;

/// What kind of source a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkKind {
    /// A Markdown section (or part of one).
    Markdown,
    /// A tree-sitter symbol or the text between symbols of a source file.
    Code,
    /// Plain text split by paragraphs or lines (relay values, unknown formats).
    Text,
    /// A JSON value split by top-level keys or array items.
    Json,
}

impl ChunkKind {
    /// The lowercase name used in the pack, the catalog and the index.
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::Markdown => "markdown",
            ChunkKind::Code => "code",
            ChunkKind::Text => "text",
            ChunkKind::Json => "json",
        }
    }

    /// Parses the name written by [`ChunkKind::as_str`].
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "markdown" => ChunkKind::Markdown,
            "code" => ChunkKind::Code,
            "text" => ChunkKind::Text,
            "json" => ChunkKind::Json,
            _ => return None,
        })
    }
}

/// A code symbol carried by a [`ChunkKind::Code`] chunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Symbol {
    /// The bare name (`build`).
    pub name: String,
    /// The qualified name with containers (`WalkBuilder::build`).
    pub qualified: String,
    /// function, method, struct, class, trait, enum, interface, const, type, module, impl…
    pub kind: String,
    /// The declaration up to (not including) the body.
    pub signature: String,
    /// The doc comment above the symbol, comment markers kept.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
    /// The types it extends or implements, by bare name (`Visitor` of
    /// `class Count implements Visitor<T>`), or in Go with their package
    /// (`io.Reader`; [`code::super_name`] gives the bare name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supers: Vec<String>,
    /// The methods an interface requires where the language names no
    /// implementor (Go).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub requires: Vec<String>,
    /// A declaration without a body (a prototype, a required trait or
    /// interface method, anything in a `.d.ts` or `.pyi` stub): where a
    /// definition of the same name is indexed too, that is the answer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub decl: bool,
    /// The definition's own lines `[first, last]`, doc comment to node end.
    /// Chunks tile the file, so a chunk can hold more (the `}` closing its
    /// container) or less (a container's chunk ends at its first member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<[usize; 2]>,
    /// Members declared in this container's own chunk rather than a chunk
    /// of their own (required methods, prototypes, fields, variants), so
    /// `Container::member` names them; on a split container's first part only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declared: Vec<DeclaredMember>,
}

/// A member a container declares in its own chunk ([`Symbol::declared`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredMember {
    /// Its bare name.
    pub name: String,
    /// method, field, variant, type, const…
    pub kind: String,
    /// Its lines `[first, last]`, doc comment to node end.
    pub lines: [usize; 2],
}

/// One chunk of a document, before or after its ID is assigned.
///
/// `bytes` and `lines` always describe the source file: the byte ranges of a
/// document's chunks, in order, tile `[0, len)` exactly. `text` is the chunk's
/// text; it equals the source bytes of its range except for three documented
/// rewrites (front matter and BOM are left out of the first chunk, a block split
/// into parts re-opens and closes its code fence in each part so every chunk is
/// valid Markdown on its own, and a long encoded payload (a `data:` URI's,
/// base64) is elided, see [`encoded`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Stable ID (`<doc stem>:<10 hex>`), empty until [`id::assign`] runs.
    pub id: String,
    /// Document path relative to the segment root, `/`-separated.
    pub doc: String,
    /// Heading path (Markdown) or `[file, container…, symbol]` (code).
    pub title_path: Vec<String>,
    /// The chunk's text.
    pub text: String,
    /// Byte range `[start, end)` in the source file.
    pub bytes: [usize; 2],
    /// Line range `[first, last]`, 1-based and inclusive, in the source file.
    pub lines: [usize; 2],
    /// What the chunk came from.
    pub kind: ChunkKind,
    /// Token estimate of `text` (see [`crate::tokens`]).
    pub token_est: usize,
    /// SHA-256 of `text`, set by [`id::assign`].
    #[serde(default)]
    pub text_sha256: String,
    /// `[i, n]` when one oversized block was split into `n` parts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<[usize; 2]>,
    /// Code symbol, for code chunks that hold one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<Symbol>,
    /// Language tag (code files, or the fence info of a code-only chunk).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
}

impl Chunk {
    /// Whether this is the second or a later part of a split section or
    /// symbol (the first part carries its heading or signature).
    pub fn is_later_part(&self) -> bool {
        self.part.is_some_and(|[i, _]| i > 1)
    }
}

#[cfg(test)]
impl Chunk {
    /// A chunk of `text` at `title_path` in `doc`, for tests; no ID, symbol or language.
    pub(crate) fn sample(doc: &str, title_path: &[&str], text: &str, kind: ChunkKind) -> Chunk {
        Chunk {
            id: String::new(),
            doc: doc.into(),
            title_path: title_path.iter().map(|s| s.to_string()).collect(),
            text: text.into(),
            bytes: [0, text.len()],
            lines: [1, 1],
            kind,
            token_est: 1,
            text_sha256: String::new(),
            part: None,
            symbol: None,
            lang: None,
        }
    }

    /// A Rust function chunk named `name`, for tests.
    pub(crate) fn sample_code(doc: &str, title_path: &[&str], name: &str, text: &str) -> Chunk {
        Chunk {
            symbol: Some(Symbol {
                name: name.into(),
                qualified: name.into(),
                kind: "function".into(),
                signature: String::new(),
                doc: String::new(),
                supers: Vec::new(),
                requires: Vec::new(),
                decl: false,
                lines: None,
                declared: Vec::new(),
            }),
            lang: Some("rust".into()),
            ..Chunk::sample(doc, title_path, text, ChunkKind::Code)
        }
    }
}

/// Options every chunker takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Sections above this many estimated tokens are split.
    pub max_chunk_tokens: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_chunk_tokens: 600,
        }
    }
}

/// A problem a chunker noticed but recovered from (the build goes on).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChunkNote {
    /// 1-based line the note is about, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What happened and what was done instead.
    pub message: String,
    /// What sort of problem it is.
    pub kind: crate::error::WarningKind,
}

/// The chunks of one document plus anything worth a warning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunked {
    /// Chunks in document order, IDs assigned.
    pub chunks: Vec<Chunk>,
    /// Front-matter title, when the document has one.
    pub title: Option<String>,
    /// Recoverable problems (parse errors that fell back to lines, …).
    pub notes: Vec<ChunkNote>,
}

/// 1-based line number of byte offset `at` in `text` (counting `\n`).
pub fn line_of(text: &str, at: usize) -> usize {
    1 + memchr_count(&text.as_bytes()[..at.min(text.len())])
}

fn memchr_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// Newline offsets of a document, so each chunk's line range is a binary search
/// instead of a count from the start of the text (quadratic on big files).
pub struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    /// Indexes the newlines of `text`.
    pub fn new(text: &str) -> LineIndex {
        let newlines = text
            .bytes()
            .enumerate()
            .filter_map(|(at, byte)| (byte == b'\n').then_some(at))
            .collect();
        LineIndex { newlines }
    }

    /// Same as [`line_range`] on the indexed text.
    pub fn range(&self, start: usize, end: usize) -> [usize; 2] {
        let line_of = |at: usize| 1 + self.newlines.partition_point(|&newline| newline < at);
        let first = line_of(start);
        let last_byte = if end > start { end - 1 } else { start };
        [first, line_of(last_byte).max(first)]
    }
}

/// The line range `[first, last]` of a non-empty byte range; a range ending in a
/// newline does not reach the next line.
pub fn line_range(text: &str, start: usize, end: usize) -> [usize; 2] {
    let first = line_of(text, start);
    let last_byte = if end > start { end - 1 } else { start };
    [first, line_of(text, last_byte).max(first)]
}

/// How a document is chunked, chosen from its path.
#[derive(Debug, Clone, Copy)]
pub enum DocFormat {
    /// `.md`, `.markdown`, `.mdx`.
    Markdown,
    /// Source code of a supported language.
    Code(&'static code::LanguageSpec),
    /// Anything else: paragraphs and lines.
    Text,
}

impl DocFormat {
    /// The format for a document path; `extra` maps further extensions (from
    /// `code_extensions` in `ctx.toml`) to language names.
    pub fn of(doc: &str, extra: &std::collections::BTreeMap<String, String>) -> DocFormat {
        let lower = doc.to_ascii_lowercase();
        if [".md", ".markdown", ".mdx"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            return DocFormat::Markdown;
        }
        if let Some(lang) = code::language_for_path(doc) {
            return DocFormat::Code(lang);
        }
        let ext = lower.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
        match extra.get(ext).and_then(|name| code::language_by_name(name)) {
            Some(lang) => DocFormat::Code(lang),
            None => DocFormat::Text,
        }
    }
}

/// Chunks one document with the chunker `format` calls for, long data URI
/// payloads elided from its text (see [`encoded`]).
pub fn chunk_document(doc: &str, text: &str, format: DocFormat, opts: &ChunkOptions) -> Chunked {
    encoded::chunk_elided(text, |text| match format {
        DocFormat::Markdown => markdown::chunk_markdown(doc, text, opts),
        DocFormat::Code(lang) => code::chunk_code(doc, text, lang, opts),
        DocFormat::Text => text::chunk_text(doc, text, &[doc.to_string()], opts),
    })
}
