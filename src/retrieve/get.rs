//! `get`: chunks by ID within a token budget, with backpressure: what does not fit
//! is named with its size and a hint, never silently dropped.

use serde::Serialize;

pub use super::parts::PartOf;
use super::parts::Placed;
use super::{Budget, Retriever, excerpt};
use crate::chunk::{Chunk, id};
use crate::error::{Error, Result};
use crate::tokens;

/// How much of each chunk to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Whole chunks; what does not fit is omitted.
    Raw,
    /// Chunks trimmed to fit, around the query's words.
    #[default]
    Excerpt,
    /// Heading path and first lines (signatures for code).
    Skeleton,
}

/// Parameters of `get`.
#[derive(Debug, Clone)]
pub struct GetOptions {
    /// Returned text as a whole.
    pub mode: Mode,
    /// Token budget requested.
    pub budget: usize,
    /// The configured hard cap.
    pub cap: usize,
    /// Words to center excerpts on.
    pub query: Option<String>,
}

/// A returned chunk.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    /// The ID served (may differ from the one asked for when it was stale).
    pub id: String,
    /// Document path.
    pub doc: String,
    /// Heading path.
    pub title_path: Vec<String>,
    /// Line range in the source file.
    pub lines: [usize; 2],
    /// The text returned (whole, excerpt or skeleton).
    pub text: String,
    /// Token estimate of `text` (of an outline entry: with its ID and lines).
    pub token_est: usize,
    /// Token estimate of the whole chunk.
    pub full_token_est: usize,
    /// Whether `text` is less than the whole chunk.
    pub trimmed: bool,
    /// Set when the requested ID was stale and this is its successor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// An entry of a file's outline (a file path asked for in skeleton mode).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub outline: bool,
    /// Set when the chunk is one part of a block or symbol split into
    /// several: which part, and the parts next to it this answer lacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<PartOf>,
}

/// A requested chunk that did not fit.
#[derive(Debug, Clone, Serialize)]
pub struct Omitted {
    /// Chunk ID.
    pub id: String,
    /// Its size.
    pub token_est: usize,
    /// Its document.
    pub doc: String,
    /// Its lines there.
    pub lines: [usize; 2],
    /// Whether it was asked for as part of a whole file.
    #[serde(skip)]
    pub of_file: bool,
}

impl Omitted {
    fn of(c: &Chunk, of_file: bool) -> Omitted {
        Omitted {
            id: c.id.clone(),
            token_est: c.token_est,
            doc: c.doc.clone(),
            lines: c.lines,
            of_file,
        }
    }

    /// One line per omitted chunk asked for by ID, and one per run of a
    /// file's chunks (a 5,000-line file must not list 300 IDs).
    pub fn lines(omitted: &[Omitted]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < omitted.len() {
            let o = &omitted[i];
            let run = omitted[i..]
                .iter()
                .take_while(|x| x.of_file && o.of_file && x.doc == o.doc)
                .count()
                .max(1);
            if run == 1 {
                out.push(format!(
                    "omitted {} (~{} tokens): over budget",
                    o.id, o.token_est
                ));
            } else {
                let last = &omitted[i + run - 1];
                let tokens: usize = omitted[i..i + run].iter().map(|x| x.token_est).sum();
                out.push(format!(
                    "omitted {run} chunks of {} (lines {}-{}, ~{tokens} tokens, from {}): over budget",
                    o.doc, o.lines[0], last.lines[1], o.id
                ));
            }
            i += run;
        }
        out
    }
}

/// The answer to `get`.
#[derive(Debug, Clone, Serialize)]
pub struct GetResult {
    /// Returned chunks, in request order.
    pub chunks: Vec<Fetched>,
    /// Chunks left out for lack of budget.
    pub omitted: Vec<Omitted>,
    /// Budget asked and applied.
    pub budget: Budget,
    /// Tokens returned.
    pub used: usize,
    /// What to do about omissions or clamping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Retriever {
    /// Resolves one requested ID: the chunk, or its successor when stale.
    pub fn lookup(&self, requested: &str) -> Result<(Chunk, Option<String>)> {
        if id::parse(requested).is_none() {
            return Err(Error::Invalid(format!(
                "`{}` is not a chunk ID; {}. Use `ctx search` to find them",
                requested.escape_debug(),
                super::locate::ID_SHAPE
            )));
        }
        if let Some(c) = self.catalog.chunk(requested)? {
            return Ok((c, None));
        }
        if let Some((doc, title_path)) = self.catalog.retired(requested)? {
            return match self.catalog.chunk_at(&doc, &title_path)? {
                Some(c) => Ok((c, Some(requested.to_string()))),
                None => Err(Error::Invalid(format!(
                    "chunk `{requested}` is stale: its section `{}` of `{doc}` no longer exists; run `ctx search` again",
                    title_path.join(" > ")
                ))),
            };
        }
        let stem = requested.rsplit_once(':').map(|(s, _)| s).unwrap_or("");
        let near = self.catalog.ids_with_stem(stem, 3)?;
        let hint = if near.is_empty() {
            "use `ctx search` to find IDs".to_string()
        } else {
            format!(
                "IDs of `{}` include {}",
                near[0].doc,
                near.iter()
                    .map(|m| format!("`{}`", m.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Err(Error::Invalid(format!(
            "unknown chunk ID `{requested}`: it is not in this pack; {hint}"
        )))
    }

    /// Chunks by ID (or every chunk of a named file, or of some of its
    /// lines) within the budget.
    pub fn get(&self, ids: &[String], opts: &GetOptions) -> Result<GetResult> {
        if ids.is_empty() {
            return Err(Error::Invalid(
                "no IDs given; pass one or more chunk IDs".into(),
            ));
        }
        let budget = Budget::new(opts.budget, opts.cap)?;
        let mut found = Vec::with_capacity(ids.len());
        let mut errors = Vec::new();
        for requested in ids {
            match self.expand(requested) {
                Ok(x) => found.extend(x),
                Err(e) => errors.push(e.to_string()),
            }
        }
        if !errors.is_empty() {
            return Err(Error::Invalid(errors.join("\n")));
        }
        // A chunk asked for twice (an ID repeated, overlapping lines, a
        // stale ID whose successor is also asked for) is returned once, where
        // it was first asked for: the budget pays for it once.
        let mut seen = std::collections::HashSet::new();
        found.retain(|(c, _, _)| seen.insert(c.id.clone()));
        let terms = opts
            .query
            .as_deref()
            .map(|q| self.reader.query_terms(q))
            .unwrap_or_default();
        // Skeletons are computed up front: when they all fit, none is
        // trimmed; when they do not, a whole file becomes an outline of
        // signatures and headings, taken in order while the budget lasts.
        let skeletons: Vec<String> = match opts.mode {
            Mode::Skeleton => self.skeletons(&found)?,
            _ => Vec::new(),
        };
        // An outline entry is shown with its ID and lines, which cost as
        // much as a short signature, and each file's entries under a line
        // naming it: they count against the budget too.
        let full_cost: usize = skeletons
            .iter()
            .zip(&found)
            .enumerate()
            .map(|(i, (s, (c, _, of_file)))| {
                let first_of_file =
                    *of_file && (i == 0 || !found[i - 1].2 || found[i - 1].0.doc != c.doc);
                let entry = if *of_file {
                    entry_cost(&c.id, c.lines, s)
                } else {
                    tokens::estimate(s)
                };
                entry
                    + if first_of_file {
                        header_cost(&c.doc)
                    } else {
                        0
                    }
            })
            .sum();
        let all_fit = full_cost <= budget.applied;
        let mut compact = false;
        let mut remaining = budget.applied;
        let mut chunks = Vec::new();
        let mut omitted = Vec::new();
        // Files whose chunks stopped fitting: the rest of each is omitted, so
        // what is shown of a file is a prefix of it, not a sample.
        let mut exhausted: Vec<String> = Vec::new();
        let n = found.len();
        // What the omitted chunks would cost as this mode shows them.
        let mut short = 0;
        let mut nesting = Nesting::default();
        // Where each returned chunk sits, for [`Retriever::place_parts`].
        let mut placed: Vec<Placed> = Vec::new();
        let shares = excerpt::Shares::new(found.iter().map(|(c, _, _)| super::readable(c)), &terms);
        for (i, (c, replaces, of_file)) in found.into_iter().enumerate() {
            let share = match opts.mode {
                Mode::Raw => remaining,
                Mode::Excerpt => shares.of(i, remaining),
                Mode::Skeleton => remaining / (n - i).max(1),
            };
            let text = match opts.mode {
                Mode::Raw => c.text.clone(),
                Mode::Excerpt => excerpt::excerpt(&super::readable(&c), &terms, share),
                // Nothing of it is shape: a later part of a body elided in
                // its first.
                Mode::Skeleton if of_file && skeletons[i].is_empty() => continue,
                Mode::Skeleton if all_fit => skeletons[i].clone(),
                Mode::Skeleton if of_file => {
                    compact = true;
                    let line = outline_line_at(&c, nesting.depth(&c));
                    if line.is_empty() {
                        // Text between symbols and later parts of a split
                        // one: the hint says the outline leaves them out.
                        continue;
                    }
                    line
                }
                Mode::Skeleton => excerpt::excerpt(&skeletons[i], &terms, share),
            };
            let text_est = tokens::estimate(&text);
            // The file's path heads its first shown entry
            // ([`Fetched::outline_text`]), so that entry pays for it.
            let headed = of_file
                && opts.mode == Mode::Skeleton
                && chunks
                    .last()
                    .is_none_or(|p: &Fetched| !p.outline || p.doc != c.doc);
            let est = if of_file && opts.mode == Mode::Skeleton {
                entry_cost(&c.id, c.lines, &text)
            } else {
                text_est
            } + if headed { header_cost(&c.doc) } else { 0 };
            let after_cut = of_file && exhausted.contains(&c.doc);
            if after_cut || est > remaining || (text_est == 0 && !c.text.is_empty()) {
                omitted.push(Omitted::of(&c, of_file));
                short += est.max(1);
                if of_file && !after_cut {
                    exhausted.push(c.doc.clone());
                }
                continue;
            }
            remaining -= est;
            placed.push(Placed {
                bytes: c.bytes,
                part: c.part.filter(|_| !(of_file && opts.mode == Mode::Skeleton)),
            });
            chunks.push(Fetched {
                trimmed: text != c.text,
                id: c.id,
                doc: c.doc,
                title_path: c.title_path,
                lines: c.lines,
                token_est: est,
                full_token_est: c.token_est,
                text,
                replaces,
                outline: of_file && opts.mode == Mode::Skeleton,
                part: None,
            });
        }
        self.place_parts(&mut chunks, &placed)?;
        let used = budget.applied - remaining;
        let mut hints = Vec::new();
        if let Some(note) = budget.clamp_note() {
            hints.push(note);
        }
        if compact {
            hints.push(format!(
                "the outline shows headings and signatures only, to fit (first lines, doc comments and the code between symbols are left out); the full skeleton needs --budget {full_cost}"
            ));
        }
        if compact && !omitted.is_empty() {
            hints.push(format!(
                "{} {} --budget {}",
                super::counted(omitted.len(), "more outline entry", "more outline entries"),
                super::needs(omitted.len()),
                used + short
            ));
        } else if !omitted.is_empty() {
            let need = used + short;
            let instead = if opts.mode != Mode::Skeleton && omitted.iter().any(|o| o.of_file) {
                "use --mode skeleton for a file's outline"
            } else {
                "use --mode excerpt, or narrow the search"
            };
            hints.push(format!(
                "{} chunk(s) did not fit; raise --budget to {need}, {instead}",
                omitted.len()
            ));
        }
        Ok(GetResult {
            chunks,
            omitted,
            budget,
            used,
            hint: (!hints.is_empty()).then(|| hints.join("; ")),
        })
    }
}

impl Fetched {
    /// How a text answer shows an outline entry (`self.outline`), after
    /// `previous`: the file's path once, then each entry with its ID and
    /// lines, a one-line entry on one line.
    pub fn outline_text(&self, previous: Option<&Fetched>) -> String {
        let mut out = String::new();
        if previous.is_none_or(|p| !p.outline || p.doc != self.doc) {
            out.push_str(&outline_header(&self.doc));
        }
        out.push_str(&outline_entry(&self.id, self.lines, &self.text));
        out
    }
}

/// The line that names a file above its outline entries.
fn outline_header(doc: &str) -> String {
    format!("{doc} (outline; get an ID for its text)\n")
}

/// What the line naming `doc` above its outline costs.
fn header_cost(doc: &str) -> usize {
    tokens::estimate(&outline_header(doc))
}

/// An outline entry as a text answer shows it: ID, lines, then the text,
/// on the same line when it is one line.
fn outline_entry(id: &str, lines: [usize; 2], text: &str) -> String {
    let text = text.trim_end();
    let sep = if text.contains('\n') { "\n" } else { "  " };
    format!("[{id}] {}-{}{sep}{text}\n", lines[0], lines[1])
}

/// What showing `text` as an outline entry costs, its ID and lines included.
pub(super) fn entry_cost(id: &str, lines: [usize; 2], text: &str) -> usize {
    tokens::estimate(&outline_entry(id, lines, text))
}

/// The skeleton of `c`: for code, signatures and doc comments with bodies
/// elided; for Markdown, the heading path and first lines.
pub(super) fn skeleton(c: &Chunk) -> String {
    let lang = c
        .lang
        .as_deref()
        .and_then(crate::chunk::code::language_by_name);
    let s = match (c.kind, lang) {
        (crate::chunk::ChunkKind::Code, Some(lang)) => {
            crate::chunk::code::skeleton_of_chunk(&c.text, lang)
        }
        _ => excerpt::skeleton(&c.title_path, &super::readable(c), 12),
    };
    without_blank_start(&s).to_string()
}

/// One line of a file's outline: a symbol's signature, indented by its
/// containers, or a Markdown heading; empty for the text between symbols and
/// for later parts of a split section or symbol.
pub(super) fn outline_line(c: &Chunk) -> String {
    outline_line_at(c, c.title_path.len().saturating_sub(2))
}

/// [`outline_line`] with a symbol indented `depth` levels.
fn outline_line_at(c: &Chunk, depth: usize) -> String {
    if c.is_later_part() {
        return String::new();
    }
    match (c.kind, &c.symbol) {
        (crate::chunk::ChunkKind::Code, Some(sym)) => {
            let signature = sym
                .signature
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let shown = if signature.is_empty() {
                format!("{} {}", sym.kind, sym.name)
            } else {
                shortened(&sym.kind, signature)
            };
            format!("{}{shown}", "    ".repeat(depth))
        }
        (crate::chunk::ChunkKind::Markdown, _) => match c.title_path.last() {
            Some(title) => format!("{} {title}", "#".repeat(c.title_path.len().min(6))),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// A long signature cut to its shape: a constant's or variable's
/// declaration without its value (a table of a hundred entries is not its
/// shape; functions keep theirs, whose ` = ` are default arguments), and a
/// type whose signature holds its body (a Go struct's fields, with their
/// comments, which on one line would read as commenting out the rest)
/// without the body.
fn shortened(kind: &str, signature: String) -> String {
    const LONG: usize = 80;
    if signature.len() <= LONG {
        return signature;
    }
    let cut = if matches!(kind, "const" | "static" | "var") {
        signature
            .split_once(" = ")
            .map(|(declaration, _)| format!("{declaration} = …"))
    } else if crate::chunk::code::CALLABLE_KINDS.contains(&kind) {
        None
    } else {
        signature
            .split_once('{')
            .map(|(declaration, _)| format!("{} {{ … }}", declaration.trim_end()))
    };
    cut.unwrap_or(signature)
}

/// How deep each entry of a file's outline sits: under the containers
/// listed before it whose lines enclose it. A Go method, written after its
/// type and after other types, is in neither; its title path alone would
/// indent it under whatever came last.
#[derive(Default)]
struct Nesting {
    /// The file of the entries so far.
    doc: String,
    /// Containers still open: qualified name (`.`-joined) and last line.
    open: Vec<(String, usize)>,
}

impl Nesting {
    fn depth(&mut self, c: &Chunk) -> usize {
        if c.doc != self.doc {
            self.doc.clone_from(&c.doc);
            self.open.clear();
        }
        let Some(sym) = c.symbol.as_ref().filter(|_| !c.is_later_part()) else {
            return 0;
        };
        let [first, last] = sym.lines.unwrap_or(c.lines);
        self.open.retain(|(_, end)| *end >= first);
        let name = super::candidates::canon(&sym.qualified);
        let depth = self
            .open
            .iter()
            .filter(|(open, _)| name.starts_with(&format!("{open}.")))
            .count();
        self.open.push((name, last));
        depth
    }
}

/// `text` from its first non-blank line: a chunk starts with the blank lines
/// before its symbol (chunks tile the file), which an outline does not need.
pub(super) fn without_blank_start(text: &str) -> &str {
    let mut rest = text;
    while let Some((line, after)) = rest.split_once('\n') {
        if !line.trim().is_empty() {
            break;
        }
        rest = after;
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::shortened;

    #[test]
    fn a_long_signature_is_outlined_to_its_shape() {
        let table = format!(
            "pub const TYPES: &[(&str, &str)] = &[{}];",
            r#"("rust", "*.rs"), "#.repeat(10)
        );
        assert_eq!(
            shortened("const", table.clone()),
            "pub const TYPES: &[(&str, &str)] = …"
        );
        assert!(shortened("var", table).ends_with("&str)] = …"));
        // Short values stay; so do a function's default arguments.
        let short = "pub const MAX: usize = 64;".to_string();
        assert_eq!(shortened("const", short.clone()), short);
        let function = format!(
            "def drain(self, timeout: float = 1.0, {})",
            "x, ".repeat(30)
        );
        assert_eq!(shortened("function", function.clone()), function);
        // A type whose signature holds its body is cut at the body; a
        // function's `{` (a Go parameter's struct type) is its signature.
        let go = format!(
            "type Conn struct {{ {} }}",
            "mu sync.Mutex // guards ".repeat(5)
        );
        assert_eq!(shortened("struct", go.clone()), "type Conn struct { … }");
        let func = format!("func run(opts struct{{ {} }}) error", "a int; ".repeat(12));
        assert_eq!(shortened("function", func.clone()), func);
    }
}
