//! Reading: a snapshot of the last commit, and query building that never fails on
//! user text. Queries are analyzed into terms with the index's own analyzers and
//! combined as a weighted OR; tantivy's query parser (with its operator syntax)
//! is never involved, so quotes, `AND`, `:` or unbalanced parentheses are words.

use std::path::{Path, PathBuf};

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{Index, ReloadPolicy, Searcher, TantivyDocument, Term};

use super::{Fields, index_err, tokenizer};
use crate::error::Result;

/// Field boosts: headings and symbol names say more per word than body text.
const TITLE_BOOST: f32 = 2.5;
const SYMBOL_BOOST: f32 = 2.5;
const PATH_BOOST: f32 = 1.0;

/// Restrictions applied to a search.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these chunk kinds (`markdown`, `code`, …).
    pub kinds: Option<Vec<String>>,
    /// Only this scope (`docs` or `relay`); `None` for both.
    pub scope: Option<String>,
    /// Only these document paths.
    pub docs: Option<Vec<String>>,
}

/// A hit from the index: chunk ID and BM25 score.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredId {
    /// Chunk ID.
    pub id: String,
    /// Combined BM25 score.
    pub score: f32,
}

/// A reader over one committed snapshot.
pub struct IndexReader {
    searcher: Searcher,
    fields: Fields,
    index: Index,
    dir: PathBuf,
}

impl IndexReader {
    pub(super) fn new(index: &Index, fields: Fields, dir: &Path) -> Result<IndexReader> {
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| index_err(dir, e))?;
        let reader: tantivy::IndexReader = reader;
        Ok(IndexReader {
            searcher: reader.searcher(),
            fields,
            index: index.clone(),
            dir: dir.to_path_buf(),
        })
    }

    /// Stemmed, deduplicated query terms, in query order, without question words.
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        dedup(tokenizer::analyze(
            &mut tokenizer::stemmed(),
            &strip_question_words(query),
        ))
    }

    /// Unstemmed terms, for identifier and path matching.
    pub fn plain_terms(&self, query: &str) -> Vec<String> {
        dedup(tokenizer::analyze(
            &mut tokenizer::plain(),
            &strip_question_words(query),
        ))
    }

    /// Number of chunks in the snapshot.
    pub fn num_docs(&self) -> u64 {
        self.searcher.num_docs()
    }

    /// Chunks containing stemmed `term` in their title or body.
    pub fn doc_freq(&self, term: &str) -> u64 {
        let f = self.fields;
        [f.title, f.body]
            .iter()
            .map(|&field| {
                self.searcher
                    .doc_freq(&Term::from_field_text(field, term))
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }

    /// The `limit` best chunks for `query`. Ranking does not depend on `limit`:
    /// ties are broken by ID.
    pub fn search(&self, query: &str, limit: usize, filter: &Filter) -> Result<Vec<ScoredId>> {
        let f = self.fields;
        let stemmed = self.query_terms(query);
        let plain = self.plain_terms(query);
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut add = |field, term: &str, boost: f32| {
            let q = TermQuery::new(
                Term::from_field_text(field, term),
                IndexRecordOption::WithFreqs,
            );
            should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost))));
        };
        for t in &stemmed {
            add(f.title, t, TITLE_BOOST);
            add(f.body, t, 1.0);
        }
        for t in &plain {
            add(f.symbols, t, SYMBOL_BOOST);
            add(f.path, t, PATH_BOOST);
        }
        if should.is_empty() {
            return Ok(Vec::new());
        }
        let mut must: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        if let Some(kinds) = &filter.kinds {
            must.push((Occur::Must, set(f.kind, kinds)));
        }
        if let Some(scope) = &filter.scope {
            must.push((Occur::Must, set(f.scope, std::slice::from_ref(scope))));
        }
        if let Some(docs) = &filter.docs {
            must.push((Occur::Must, set(f.doc, docs)));
        }
        let query = BooleanQuery::new(must);
        // Over-fetch so ties at the cut are ordered by ID, independent of `limit`.
        let fetch = limit.saturating_mul(2).max(limit + 16);
        let top = self
            .searcher
            .search(&query, &TopDocs::with_limit(fetch).order_by_score())
            .map_err(|e| index_err(&self.dir, e))?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = self
                .searcher
                .doc(addr)
                .map_err(|e| index_err(&self.dir, e))?;
            if let Some(id) = doc.get_first(f.id).and_then(|v| v.as_str()) {
                out.push(ScoredId {
                    id: id.to_string(),
                    score,
                });
            }
        }
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        out.truncate(limit);
        Ok(out)
    }

    /// The underlying tantivy index (for tests and stats).
    pub fn index(&self) -> &Index {
        &self.index
    }
}

fn set(field: tantivy::schema::Field, values: &[String]) -> Box<dyn Query> {
    Box::new(TermSetQuery::new(
        values.iter().map(|v| Term::from_field_text(field, v)),
    ))
}

/// Words that shape a question but say nothing about its subject. They are
/// dropped from queries only (documents keep them), so "how do I …" does not
/// favour sections that happen to say "how" and "I" often.
const QUESTION_WORDS: &[&str] = &[
    "how",
    "what",
    "why",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "can",
    "could",
    "should",
    "would",
    "do",
    "does",
    "did",
    "i",
    "me",
    "my",
    "we",
    "our",
    "you",
    "your",
    "is",
    "am",
    "are",
    "was",
    "were",
    "there",
    "way",
    "ways",
    "want",
    "need",
    "instead",
    "happens",
    "anymore",
    "possible",
    "able",
    "something",
    "thing",
    "things",
    "some",
    "any",
    "about",
];

fn strip_question_words(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for word in query.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_empty() || QUESTION_WORDS.contains(&word.to_lowercase().as_str()) {
            out.push(' ');
            continue;
        }
        out.push_str(word);
        out.push(' ');
    }
    out
}

fn dedup(terms: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    terms
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}
