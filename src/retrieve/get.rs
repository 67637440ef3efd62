//! `get`: chunks by ID within a token budget, with backpressure: what does not fit
//! is named with its size and a hint, never silently dropped.

use serde::Serialize;

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
    /// Token estimate of `text`.
    pub token_est: usize,
    /// Token estimate of the whole chunk.
    pub full_token_est: usize,
    /// Whether `text` is less than the whole chunk.
    pub trimmed: bool,
    /// Set when the requested ID was stale and this is its successor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

/// A requested chunk that did not fit.
#[derive(Debug, Clone, Serialize)]
pub struct Omitted {
    /// Chunk ID.
    pub id: String,
    /// Its size.
    pub token_est: usize,
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
                "`{}` is not a chunk ID; IDs look like `operations:3fa9c2e1d0` (doc stem, colon, 10 hex digits). Use `ctx search` to find them",
                requested.escape_debug()
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

    /// One requested item: a chunk ID, or an indexed file's path (or the end
    /// of it), which stands for all of that file's chunks in order.
    fn expand(&self, requested: &str) -> Result<Vec<(Chunk, Option<String>)>> {
        if id::parse(requested).is_some() {
            return Ok(vec![self.lookup(requested)?]);
        }
        let name = requested.trim_start_matches("./");
        let docs = if name.is_empty() {
            Vec::new()
        } else {
            self.catalog.docs_named(name)?
        };
        match docs.as_slice() {
            [] => Err(Error::Invalid(format!(
                "`{}` is neither a chunk ID nor an indexed file; IDs look like `operations:3fa9c2e1d0` (doc stem, colon, 10 hex digits), files like `docs/ops.md` (path in the project, as search prints it). Use `ctx search` to find them",
                requested.escape_debug()
            ))),
            [doc] => {
                let mut chunks = Vec::new();
                self.catalog.for_each_chunk_of(doc, |c| {
                    chunks.push((c.clone(), None));
                    Ok(())
                })?;
                Ok(chunks)
            }
            several => Err(Error::Invalid(format!(
                "`{}` names {} indexed files: {}; give more of the path",
                requested.escape_debug(),
                several.len(),
                several
                    .iter()
                    .take(5)
                    .map(|d| format!("`{d}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if several.len() > 5 { ", …" } else { "" }
            ))),
        }
    }

    /// Chunks by ID (or every chunk of a named file) within the budget.
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
        let terms = opts
            .query
            .as_deref()
            .map(|q| self.reader.query_terms(q))
            .unwrap_or_default();
        let mut remaining = budget.applied;
        let mut chunks = Vec::new();
        let mut omitted = Vec::new();
        let n = found.len();
        for (i, (c, replaces)) in found.into_iter().enumerate() {
            let share = match opts.mode {
                Mode::Raw => remaining,
                _ => remaining / (n - i).max(1),
            };
            let text = match opts.mode {
                Mode::Raw => {
                    if c.token_est > remaining {
                        omitted.push(Omitted {
                            id: c.id.clone(),
                            token_est: c.token_est,
                        });
                        continue;
                    }
                    c.text.clone()
                }
                Mode::Excerpt => excerpt::excerpt(&super::readable(&c), &terms, share),
                Mode::Skeleton => {
                    // Code: signatures and doc comments with bodies elided;
                    // Markdown: heading path and first lines.
                    let lang = c
                        .lang
                        .as_deref()
                        .and_then(crate::chunk::code::language_by_name);
                    let s = match (c.kind, lang) {
                        (crate::chunk::ChunkKind::Code, Some(lang)) => {
                            crate::chunk::code::skeleton_of_chunk(&c.text, lang)
                        }
                        _ => excerpt::skeleton(&c.title_path, &super::readable(&c), 12),
                    };
                    excerpt::excerpt(without_blank_start(&s), &terms, share)
                }
            };
            let est = tokens::estimate(&text);
            if est > remaining || (est == 0 && !c.text.is_empty()) {
                omitted.push(Omitted {
                    id: c.id.clone(),
                    token_est: c.token_est,
                });
                continue;
            }
            remaining -= est;
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
            });
        }
        let used = budget.applied - remaining;
        let mut hints = Vec::new();
        if let Some(note) = budget.clamp_note() {
            hints.push(note);
        }
        if !omitted.is_empty() {
            let need: usize = used + omitted.iter().map(|o| o.token_est).sum::<usize>();
            hints.push(format!(
                "{} chunk(s) did not fit; raise --budget to {need}, use --mode excerpt, or narrow the search",
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

/// `text` from its first non-blank line: a chunk starts with the blank lines
/// before its symbol (chunks tile the file), which an outline does not need.
fn without_blank_start(text: &str) -> &str {
    let mut rest = text;
    while let Some((line, after)) = rest.split_once('\n') {
        if !line.trim().is_empty() {
            break;
        }
        rest = after;
    }
    rest
}
