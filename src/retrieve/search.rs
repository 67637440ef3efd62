//! `search`: BM25 hits with query-focused previews, and the no-evidence decision.
//!
//! A raw score threshold cannot tell answerable from unanswerable queries (BM25
//! scores of the two overlap), so abstention uses *coverage* ([`super::coverage`]):
//! the IDF-weighted share of the query's terms that the best chunks contain. A
//! query whose rare, distinctive words appear nowhere near each other is not
//! answered by the pack.

use std::collections::HashSet;

use serde::Serialize;

use super::Retriever;
use super::coverage::{DEFAULT_MIN_COVERAGE, min_coverage_for};
use super::fold::{self, counterpart, near_duplicate};
pub use super::hits::{
    BoxedSpan, Duplicate, Hit, NO_SEARCHABLE_WORDS, ReadCall, SearchResult, Suggestion, query_notes,
};
use super::preview::preview;
use crate::chunk::{Chunk, ChunkKind};
use crate::error::{Error, Result};
use crate::index::{Filter, packages};
use crate::pack::piece;
use crate::rerank::Reranker;
use crate::rerank::cache::VectorCache;

/// Which chunks a search looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Project docs and code.
    #[default]
    Docs,
    /// Boxed tool outputs.
    Relay,
    /// Both.
    All,
}

/// Search parameters.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Number of hits.
    pub k: usize,
    /// Glob on the document path.
    pub doc_glob: Option<String>,
    /// Only these kinds (`code`, `markdown`, …).
    pub kinds: Option<Vec<String>>,
    /// Docs, relay or both.
    pub scope: Scope,
    /// Minimum coverage of the best hit; below it the answer is "no evidence".
    pub min_coverage: f32,
    /// Re-rank with the retriever's sentence encoder, if it has one.
    pub rerank: bool,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 6,
            doc_glob: None,
            kinds: None,
            scope: Scope::Docs,
            min_coverage: DEFAULT_MIN_COVERAGE,
            rerank: true,
        }
    }
}

/// Lowest score, as a share of the `k`-th hit's, at which a candidate past the
/// `k`-th is still read to see whether it copies a hit: copies of one text score
/// within a few percent of each other (the path and length differ).
const COPY_SCORE_SHARE: f32 = 0.8;

/// A chunk kept as a hit, with its score and the copies folded into it.
struct Kept {
    chunk: Chunk,
    score: f32,
    copies: Vec<Duplicate>,
    declarations: Vec<Duplicate>,
    definitions: Vec<Duplicate>,
}

/// A query's terms: those searched, and those a best hit outside the
/// packages the query names must cover (the same when it names none).
struct Terms {
    search: Vec<String>,
    /// `None`: the same as `search`.
    outside: Option<Vec<String>>,
}

/// How many boxed outputs a docs-only search without evidence looks for.
const RELAY_PEEK: usize = 3;

impl Retriever {
    /// Ranked hits for a natural-language query.
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<SearchResult> {
        // Blank is a mistake (an unset variable, a missing argument), not a
        // question nothing answers.
        if query.trim().is_empty() {
            return Err(Error::Invalid(
                "the query is empty: say what to look for, e.g. `ctx search \"how are stale locks handled\"`"
                    .into(),
            ));
        }
        // "No evidence" would blame the question for what is a wrong directory.
        if opts.scope == Scope::Docs && !self.reader.has_scope("docs") {
            return Err(Error::NothingIndexed {
                root: self.seg.root.clone(),
                boxed: self.reader.has_scope("relay"),
                skipped: self
                    .skipped(None)?
                    .iter()
                    .map(|s| format!("{}: {}", s.path, s.reason()))
                    .collect(),
            });
        }
        let mut filter = self.filter(opts)?;
        // A package the query names scopes it (boxed outputs belong to none);
        // within the package its name tells no chunk apart, so the rest of
        // the query is what is searched, when anything searchable is left.
        let named = match opts.scope {
            Scope::Relay => packages::Named::default(),
            _ => packages::named(query, &self.catalog.packages()?),
        };
        // The name still counts toward the coverage of a best hit outside
        // the package ("clap_lex: shell completions" answered from another
        // crate is no answer); inside, it is covered by the path alone, so it
        // is left out rather than counted as evidence.
        let whole = self.reader.query_terms(query);
        let rest = match named.dirs.is_empty() {
            true => Vec::new(),
            false => self.reader.query_terms(&named.rest),
        };
        let (query, terms, outside) = match rest.is_empty() {
            true => (query, whole, None),
            false => (named.rest.as_str(), rest, Some(whole)),
        };
        filter.packages = named.dirs;
        if terms.is_empty() {
            return Ok(SearchResult {
                hits: Vec::new(),
                no_evidence: true,
                coverage: 0.0,
                suggestions: Vec::new(),
                relay_matches: 0,
                note: Some(NO_SEARCHABLE_WORDS.into()),
                absent: Vec::new(),
                packages: Vec::new(),
            });
        }
        let terms = Terms {
            search: terms,
            outside,
        };
        self.ranked(query, opts, &filter, &terms)
    }

    /// [`Retriever::search`] for a query with searchable `terms`; they depend
    /// on the query alone, so a second search in another scope reuses them.
    fn ranked(
        &self,
        query: &str,
        opts: &SearchOptions,
        filter: &Filter,
        all_terms: &Terms,
    ) -> Result<SearchResult> {
        let terms = &all_terms.search[..];
        // Absent from the scope searched: a word only a boxed tool output
        // holds is no evidence that the docs answer.
        let absent = self.reader.absent_words(query, filter.scope.as_deref());
        let reranker = self.reranker.as_deref().filter(|_| opts.rerank);
        // A re-ranking reads deeper than `k`; the order of the first `k` of
        // its candidates is the lexical one, so coverage below is unchanged.
        let k = match reranker {
            Some(_) => opts.k.max(crate::rerank::DEPTH),
            None => opts.k.max(1),
        };
        // Parts of one section would crowd each other out: fetch extra and keep
        // the best part of each section.
        let scored = self.reader.search(query, k * 3 + 8, filter)?;
        let chunks = self.catalog.read_chunks(|rows| {
            let mut chunks: Vec<Kept> = Vec::with_capacity(k);
            let mut sections: HashSet<(String, Vec<String>)> = HashSet::new();
            for s in scored {
                // Past `k`, candidates only name copies of the hits kept, and a
                // copy scores about as high as its original.
                if chunks.len() == k
                    && chunks
                        .last()
                        .is_some_and(|last| s.score < COPY_SCORE_SHARE * last.score)
                {
                    break;
                }
                // A row can be missing only for an ID a concurrent build just
                // retired; the snapshot is older than the catalog. Skip it.
                let Some(c) = rows.unread(&s.id)? else {
                    continue;
                };
                let m = c.meta();
                // Plain text (a boxed log, a tool's output) has no sections: its
                // parts are windows of one long value, and a search within it
                // wants every window that matches, not the best one alone.
                if m.part.is_some()
                    && m.kind != ChunkKind::Text
                    && !sections.insert((m.doc.clone(), m.title_path.clone()))
                {
                    continue;
                }
                // Text is read for a hit kept or a possible copy of one; a
                // candidate only named under a hit, or dropped, needs none.
                let copy = chunks.iter().any(|h| fold::same_place(&h.chunk, m));
                let named = chunks.iter().any(|h| counterpart(&h.chunk, m));
                let c = match copy || (!named && chunks.len() < k) {
                    true => rows.text(c)?,
                    false => c.into_meta(),
                };
                if let Some(kept) = chunks.iter_mut().find(|h| near_duplicate(&h.chunk, &c)) {
                    kept.copies.push(Duplicate::of(c));
                } else if let Some(kept) = chunks.iter_mut().find(|h| counterpart(&h.chunk, &c)) {
                    match c.symbol.as_ref().is_some_and(|s| s.decl) {
                        true => kept.declarations.push(Duplicate::of(c)),
                        false => kept.definitions.push(Duplicate::of(c)),
                    }
                } else if chunks.len() < k {
                    chunks.push(Kept {
                        chunk: c,
                        score: s.score,
                        copies: Vec::new(),
                        declarations: Vec::new(),
                        definitions: Vec::new(),
                    });
                }
            }
            Ok(chunks)
        })?;
        // Questions about code describe behaviour in words a function rarely
        // uses itself (its comments are terse, its names compound), so a
        // function covers few of an answerable question's words; its file
        // covers most of them, and still misses the distinctive words of a
        // question the code base cannot answer (`zstd`, `inotify`).
        let code_top = chunks
            .first()
            .is_some_and(|h| h.chunk.kind == ChunkKind::Code);
        let cover = match chunks.first() {
            Some(h)
                if !filter
                    .packages
                    .iter()
                    .any(|p| h.chunk.doc.starts_with(p.as_str())) =>
            {
                all_terms.outside.as_deref().unwrap_or(terms)
            }
            _ => terms,
        };
        let coverage = if code_top {
            self.file_coverage(cover, chunks.iter().take(3).map(|h| h.chunk.doc.as_str()))?
        } else {
            let phrasing = self.phrasing_absent(query, &absent);
            self.coverage(cover, &phrasing, chunks.iter().take(3).map(|h| &h.chunk))
        };
        let no_evidence = chunks.first().is_none_or(|h| {
            coverage < min_coverage_for(h.chunk.kind.as_str(), opts.min_coverage, query, &absent)
        });
        if no_evidence {
            let suggestions = chunks
                .iter()
                .take(3)
                .map(|h| Suggestion {
                    id: h.chunk.id.clone(),
                    doc: h.chunk.doc.clone(),
                    title_path: h.chunk.title_path.clone(),
                })
                .collect();
            // An agent that boxed a tool's output may ask about it without
            // saying so; the project docs are the default scope, so tell it
            // where the answer is rather than just that the docs lack one.
            let relay_matches = if opts.scope == Scope::Docs && self.reader.has_scope("relay") {
                let peek = SearchOptions {
                    k: RELAY_PEEK,
                    scope: Scope::Relay,
                    min_coverage: opts.min_coverage,
                    rerank: false,
                    ..SearchOptions::default()
                };
                // Outputs, not hits: several windows of one log are one output.
                let peeked = self.ranked(query, &peek, &self.filter(&peek)?, all_terms)?;
                let outputs: HashSet<&str> = peeked.hits.iter().map(|h| h.doc.as_str()).collect();
                outputs.len()
            } else {
                0
            };
            return Ok(SearchResult {
                hits: Vec::new(),
                no_evidence: true,
                coverage,
                suggestions,
                relay_matches,
                note: match opts.scope {
                    Scope::Relay => None,
                    _ => self.skipped_note(opts.doc_glob.as_deref())?,
                },
                absent,
                packages: filter.packages.clone(),
            });
        }
        let chunks = match reranker {
            Some(r) => reranked(r, self.vector_cache(), query, chunks, opts.k.max(1))?,
            None => chunks,
        };
        let hits = chunks
            .into_iter()
            .map(
                |Kept {
                     chunk: c,
                     score,
                     copies,
                     declarations,
                     definitions,
                 }| {
                    let (source_path, boxed) = self.located(&c.doc, c.lines, c.bytes);
                    Hit {
                        preview: preview(
                            &super::readable(&c),
                            terms,
                            160,
                            c.kind == ChunkKind::Code,
                        ),
                        source_path,
                        boxed,
                        id: c.id,
                        doc: c.doc,
                        title_path: c.title_path,
                        token_est: c.token_est,
                        lines: c.lines,
                        part: c.part,
                        score,
                        kind: c.kind.as_str().to_string(),
                        symbol: c.symbol.as_ref().map(|s| s.qualified.clone()),
                        duplicates: copies,
                        declarations,
                        definitions,
                    }
                },
            )
            .collect();
        Ok(SearchResult {
            hits,
            no_evidence: false,
            coverage,
            suggestions: Vec::new(),
            relay_matches: 0,
            note: None,
            absent,
            packages: filter.packages.clone(),
        })
    }

    /// The file a hit at `lines` (and `bytes`) of `doc` came from (the project
    /// file, or a relay value's file), and its span when it is a boxed value.
    fn located(
        &self,
        doc: &str,
        lines: [usize; 2],
        bytes: [usize; 2],
    ) -> (String, Option<BoxedSpan>) {
        if let Some(id) = doc.strip_prefix("relay/")
            && let Ok(Some(row)) = self.catalog.box_row(id)
            && !row.file.contains("..")
        {
            let path = self.seg.relay_dir().join(&row.file);
            // An unreadable value keeps its line numbers: `resolve` will say
            // what is wrong with it.
            let chars = piece::char_span(&path, bytes).ok().flatten();
            let span = BoxedSpan {
                reference: format!("internal://{id}"),
                session: row.session,
                start_line: lines[0].saturating_sub(1),
                line_count: (lines[1] + 1).saturating_sub(lines[0]),
                start_index: chars.map(|[start, _]| start),
                length: chars.map(|[start, end]| end - start),
            };
            return (path.display().to_string(), Some(span));
        }
        (self.seg.root.join(doc).display().to_string(), None)
    }
}

/// `chunks` in the order of `reranker`'s scores, the first `k`; vectors are
/// looked up in and added to `cache`.
fn reranked(
    reranker: &Reranker,
    cache: Option<&VectorCache>,
    query: &str,
    mut chunks: Vec<Kept>,
    k: usize,
) -> Result<Vec<Kept>> {
    let texts: Vec<String> = chunks
        .iter()
        .map(|h| {
            format!(
                "{}\n{}",
                h.chunk.title_path.join(" > "),
                super::readable(&h.chunk)
            )
        })
        .collect();
    let scores: Vec<f32> = chunks.iter().map(|h| h.score).collect();
    for (h, s) in chunks
        .iter_mut()
        .zip(reranker.rescore(query, &scores, &texts, cache)?)
    {
        h.score = s;
    }
    chunks.sort_by(|a, b| b.score.total_cmp(&a.score));
    chunks.truncate(k);
    Ok(chunks)
}
