//! Reading: a snapshot of the last commit, and query building that never fails on
//! user text. Queries are analyzed into terms with the index's own analyzers and
//! combined as a weighted OR; tantivy's query parser (with its operator syntax)
//! is never involved, so quotes, `AND`, `:` or unbalanced parentheses are words.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, TryLockError};

use tantivy::collector::TopDocs;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, TermQuery,
    TermSetQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, DocId, Searcher, TantivyDocument, Term};

use super::collect::{PriorTop, Priors};
use super::named::Named;
use super::present::Presence;
use super::query_words::{analyze_query, strip_question_words};
use super::{
    Fields, REC_CHUNK, REC_DOC, abbrev, index_err, intent, operators, tokenizer, within_doc,
};
use crate::error::Result;

/// Field boosts of the chunk query. The body carries the chunk's own heading
/// line already; heading fields add a little on top. Heavier heading boosts
/// lose on both dev corpora: queries paraphrase rather than repeat headings, and
/// in templated docs (KEPs) the same headings recur in every document.
const LEAF_BOOST: f32 = 0.5;
const ANCESTORS_BOOST: f32 = 0.25;
const BODY_BOOST: f32 = 1.0;
/// Symbols hold signatures too, whose parameter and type names recur all over
/// a crate; a heavy boost there let any signature mentioning `Path` outrank
/// the function a question describes.
const SYMBOL_BOOST: f32 = 0.5;
/// The symbol's stemmed qualified name (`WalkBuilder::build`).
const NAME_BOOST: f32 = 0.5;
const PATH_BOOST: f32 = 0.5;

/// Weight of an abbreviation's other spellings and of a word's synonyms
/// ([`abbrev`]) relative to the query's own words (code hit@5 was flat from
/// 0.2 to 0.4 and fell at 0.5+, the Rust Book's MRR falling as the weight
/// grows; synonyms at 0.2 lost `ignore` a query they found at 0.3).
const ABBREV_WEIGHT: f32 = 0.3;

/// Weight of the parts of an identifier the query names (`min`, `depth` of
/// `min_depth`) against its whole and the query's other words: without it an
/// identifier counts as three words, and a question that mentions `min_depth`
/// in passing ranks the `min_depth` setter above the code that does what it
/// asks. Swept over 1.0 / 0.6 / 0.5 / 0.4 / 0.3 / 0.2 on the five eval sets:
/// from 0.3 to 0.5 every set's hit@5 is at its best and none is lower than at
/// 1.0 (MCP 0.841 → 0.864, k8s MRR 0.635 → 0.642); 0.6 and 0.2 lose a k8s query.
const IDENTIFIER_PART_WEIGHT: f32 = 0.4;

/// Weight of a section role's heading words ([`intent`]) on the leaf and the
/// ancestor headings alike (an answer is often a subsection of "Alternatives").
/// Heavier than a query word's heading boost: in templated docs the role's
/// headings recur in every document, so their IDF is low. Swept on the dev
/// sets over 1 / 1.5 / 2 / 3 / 4 (ancestors at 0.5 and 1): KEPs hit@5 0.871
/// → 0.886 and MRR 0.644 → 0.665 at 2, flat or lower elsewhere; the Rust
/// Book and the code sets, with few such headings, are unchanged.
const INTENT_BOOST: f32 = 2.0;

/// How many of the best documents lend their score to their chunks.
const TOP_DOCS: usize = 20;
/// Weight of the document score added to each chunk of one of the top documents.
const DOC_WEIGHT: f32 = 1.0;

/// Factor on the average body length BM25 sees. tantivy fixes `b = 0.75`,
/// which punishes long chunks hard; but the answer to a question is often a
/// long function or a long section, and short chunks (one-line getters,
/// headings over a list) win on a single word. A larger average length softens
/// the length penalty for every chunk alike (measured: code hit@5 +0.05,
/// KEPs +0.04, Rust Book unchanged).
const BODY_LENGTH_SCALE: f64 = 4.0;

/// Score factors for the [`super::signals`] flags: a test or an example still ranks,
/// but below implementation code with comparable evidence.
const TEST_FACTOR: f32 = 0.3;
const EXAMPLE_FACTOR: f32 = 0.5;
/// A thin method (a documented setter or option that hands the work on) still
/// ranks for its own name and feature, but below code that does the work.
/// Swept over 1.0 / 0.85 / 0.7 / 0.5 on the ignore and clap_builder sets:
/// ignore unchanged (hit@5 0.855, MRR 0.677–0.688), clap_builder hit@5
/// 0.542 → 0.583 and MRR 0.385 → 0.486 at 0.7, flat below.
const THIN_FACTOR: f32 = 0.7;
/// A container's bare opening (`impl Walk {`) holds no words of its own, so
/// it ranks below any member with comparable evidence. On the code sets it had
/// taken a top-5 place in 3 of 133 queries and never held a target.
const GLUE_FACTOR: f32 = 0.3;
/// A chunk whose name is the whole query (`WalkBuilder::build`, `max_filesize`)
/// is looked up, not searched for: it outranks a neighbour that merely uses
/// the name's words more often (`build_matchers`), and a test or an example of
/// the same name keeps its demotion when a chunk of that name is neither
/// (`any_primary`). 1.5 to 3 give the same figures on the
/// five code sets (`ignore` MRR 0.690 → 0.699, every other figure unchanged);
/// prose packs have no names.
const EXACT_FACTOR: f32 = 2.0;

/// Factor of a chunk in a JSON record the query names (`[281] tantivy` for
/// "tantivy version"): as for an exact name, enough to pass siblings whose
/// text repeats the name more, with the within-document order
/// ([`within_doc`]) putting the record first among its value's chunks.
const RECORD_FACTOR: f32 = 2.0;

/// Factor of a chunk outside every package the query names (see
/// [`super::packages`]): another package answers only with a clearly better
/// match. Chosen on six questions about the cargo registry's crates (1.0, no
/// factor, left all but one of them to neighbours), not on the workspace set.
const OUTSIDE_FACTOR: f32 = 0.6;

/// Chunks of each segment, by segment ordinal.
pub(super) type BySegment = Vec<HashSet<DocId>>;

/// BM25 statistics over one record type: chunk and document records share the
/// index but are scored as two collections.
struct Stats<'a> {
    searcher: &'a Searcher,
    present: &'a Presence,
    records: u64,
    /// The chunk body field, whose length penalty is softened.
    body: Option<Field>,
}

impl Bm25StatisticsProvider for Stats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let n = self.present.total_num_tokens(self.searcher, field)?;
        Ok(if Some(field) == self.body {
            (n as f64 * BODY_LENGTH_SCALE) as u64
        } else {
            n
        })
    }
    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.records)
    }
    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        // A term of both record types (a scope, a path) can occur in more
        // records than this collection holds; BM25 needs df <= N.
        Ok(self
            .present
            .doc_freq(self.searcher, term)?
            .min(self.records))
    }
}

/// Restrictions applied to a search.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these chunk kinds (`markdown`, `code`, …).
    pub kinds: Option<Vec<String>>,
    /// Only this scope (`docs` or `relay`); `None` for both.
    pub scope: Option<String>,
    /// Only these document paths.
    pub docs: Option<Vec<String>>,
    /// Package directories the query names, each ending in `/` (see
    /// [`super::packages`]): chunks outside them rank lower.
    pub packages: Vec<String>,
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
    pub(super) searcher: Searcher,
    pub(super) fields: Fields,
    pub(super) dir: PathBuf,
    /// The fields each segment holds.
    pub(super) present: Arc<Presence>,
    /// Query fields that hold no term in this snapshot (symbols and names in a
    /// pack without code): clauses on them could match nothing.
    pub(super) empty: Vec<Field>,
    /// Whether the snapshot holds JSON chunks, whose records a query's
    /// single words may name (see [`IndexReader::named`]).
    pub(super) has_json: bool,
    /// Analyzers kept across calls: their word caches spare the stemmer the
    /// words of queries and hits it has seen before.
    stemmed: Mutex<TextAnalyzer>,
    plain: Mutex<TextAnalyzer>,
}

impl IndexReader {
    pub(super) fn new(
        reader: tantivy::IndexReader,
        fields: Fields,
        dir: &Path,
    ) -> Result<IndexReader> {
        let searcher = reader.searcher();
        let present = Arc::new(Presence::of(&searcher));
        let empty = present.empty(
            &searcher,
            &[
                fields.leaf,
                fields.anc,
                fields.body,
                fields.name,
                fields.symbols,
                fields.path,
                fields.key,
            ],
        );
        let json = Term::from_field_text(fields.kind, crate::chunk::ChunkKind::Json.as_str());
        let has_json = searcher.doc_freq(&json).is_ok_and(|n| n > 0);
        Ok(IndexReader {
            searcher,
            fields,
            dir: dir.to_path_buf(),
            present,
            empty,
            has_json,
            stemmed: Mutex::new(tokenizer::stemmed()),
            plain: Mutex::new(tokenizer::plain()),
        })
    }

    /// Runs `f` with the stemming analyzer of the index, warm from earlier
    /// calls (a fresh one while another thread holds it).
    pub fn with_stemmed<T>(&self, f: impl FnOnce(&mut TextAnalyzer) -> T) -> T {
        with(&self.stemmed, tokenizer::stemmed, f)
    }

    /// Whether every record of the snapshot, deleted ones included, has
    /// `field` = `value`, so that requiring it filters nothing.
    pub(super) fn all_have(&self, field: Field, value: &str) -> bool {
        let records: u64 = self
            .searcher
            .segment_readers()
            .iter()
            .map(|s| u64::from(s.max_doc()))
            .sum();
        self.searcher
            .doc_freq(&Term::from_field_text(field, value))
            .is_ok_and(|n| n == records)
    }

    /// Whether any record of the snapshot is in `scope` (`relay`: whether any
    /// tool output is boxed).
    pub fn has_scope(&self, scope: &str) -> bool {
        self.searcher
            .doc_freq(&Term::from_field_text(self.fields.scope, scope))
            .is_ok_and(|n| n > 0)
    }

    /// Stemmed, deduplicated query terms, in query order, without question
    /// words, then the operators the query names.
    pub fn query_terms(&self, query: &str) -> Vec<String> {
        self.stemmed_query(&strip_question_words(query), query).0
    }

    /// The stemmed terms of `query` (its question words already stripped in
    /// `words`) as [`Self::query_terms`] gives them, and those of them that
    /// occur only as identifier parts.
    fn stemmed_query(&self, words: &str, query: &str) -> (Vec<String>, HashSet<String>) {
        let (mut terms, parts) = self.with_stemmed(|a| analyze_query(a, words));
        terms.extend(operators::query_operators(query));
        (dedup(terms), parts)
    }

    /// Unstemmed terms of `words`, for identifier and path matching, and those
    /// of them that occur only as identifier parts.
    fn plain_query(&self, words: &str) -> (Vec<String>, HashSet<String>) {
        let (terms, parts) = with(&self.plain, tokenizer::plain, |a| analyze_query(a, words));
        (dedup(terms), parts)
    }

    /// Number of chunks in the snapshot.
    pub fn num_docs(&self) -> u64 {
        self.records(REC_CHUNK)
    }

    /// Records in the snapshot's segments, and how many of them are deleted
    /// but not yet merged away (they still count in BM25's statistics).
    pub fn deleted_records(&self) -> (u64, u64) {
        self.searcher
            .segment_readers()
            .iter()
            .fold((0, 0), |(all, deleted), s| {
                (
                    all + u64::from(s.max_doc()),
                    deleted + u64::from(s.num_deleted_docs()),
                )
            })
    }

    /// Number of records of type `rec` (deleted ones included, as in the
    /// document frequencies BM25 uses).
    fn records(&self, rec: &str) -> u64 {
        self.searcher
            .doc_freq(&Term::from_field_text(self.fields.rec, rec))
            .unwrap_or(0)
    }

    /// The [`TOP_DOCS`] best documents for the query `stemmed`, by BM25 over
    /// whole documents' text (ties by path).
    /// Clauses requiring one of `should` within the filter's scope and
    /// documents, and its chunk kinds when `kinds` (document records have none).
    fn restricted(
        &self,
        should: Vec<(Occur, Box<dyn Query>)>,
        filter: &Filter,
        kinds: bool,
    ) -> Vec<(Occur, Box<dyn Query>)> {
        let f = self.fields;
        let mut must: Vec<(Occur, Box<dyn Query>)> =
            vec![(Occur::Must, Box::new(BooleanQuery::new(should)))];
        if kinds && let Some(kinds) = &filter.kinds {
            must.push((Occur::Must, set(f.kind, kinds)));
        }
        // Without relay values every record is in the `docs` scope; a filter
        // that keeps everything would still cost an intersection per match.
        if let Some(scope) = &filter.scope
            && !self.all_have(f.scope, scope)
        {
            must.push((Occur::Must, exact(f.scope, scope)));
        }
        if let Some(docs) = &filter.docs {
            must.push((Occur::Must, set(f.doc, docs)));
        }
        must
    }

    fn doc_scores(&self, stemmed: &[String], filter: &Filter) -> Result<Vec<(String, f32)>> {
        let f = self.fields;
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for t in stemmed {
            self.push_term(&mut should, f.dtext, t, 1.0);
        }
        if should.is_empty() {
            return Ok(Vec::new());
        }
        let query = BooleanQuery::new(self.restricted(should, filter, false));
        let stats = Stats {
            searcher: &self.searcher,
            present: &self.present,
            records: self.records(REC_DOC).max(1),
            body: None,
        };
        let top = self
            .searcher
            .search_with_statistics_provider(
                &query,
                &TopDocs::with_limit(TOP_DOCS + 8).order_by_score(),
                &stats,
            )
            .map_err(|e| index_err(&self.dir, e))?;
        self.best_by_key(top, TOP_DOCS, f.doc)
    }

    /// The `limit` best chunks for `query`. Ranking does not depend on `limit`:
    /// ties are broken by ID.
    ///
    /// A chunk's score is its own BM25 (over its headings, text, path and
    /// symbols), times the factors of its [`super::signals`] flags, plus `DOC_WEIGHT` times the BM25 of its whole document when that
    /// document is among the `TOP_DOCS` best. Where many documents share one
    /// heading skeleton, the section text alone often cannot tell which
    /// document a question is about; the document's text can.
    pub fn search(&self, query: &str, limit: usize, filter: &Filter) -> Result<Vec<ScoredId>> {
        let f = self.fields;
        let words = strip_question_words(query);
        let (stemmed, parts) = self.stemmed_query(&words, query);
        let (plain, plain_parts) = self.plain_query(&words);
        let Named {
            named,
            exact,
            records,
        } = self.named(query)?;
        let exact_demoted = self.any_primary(&exact);
        let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut clause = |field: Field, term: &str, boost: f32| {
            if !self.empty.contains(&field) {
                self.push_term(&mut should, field, term, boost);
            }
        };
        let weight = |parts: &HashSet<String>, t: &String| {
            if parts.contains(t) {
                IDENTIFIER_PART_WEIGHT
            } else {
                1.0
            }
        };
        // The same words, weighed within each document ([`within_doc`]).
        let mut local: Vec<within_doc::LocalTerm> = Vec::new();
        let mut weigh_locally = |text: &str, weight: f32, headings: bool| {
            local.push(within_doc::LocalTerm {
                text: text.to_string(),
                weight,
                headings,
            })
        };
        for t in &stemmed {
            let w = weight(&parts, t);
            weigh_locally(t, w, false);
            clause(f.leaf, t, LEAF_BOOST * w);
            clause(f.anc, t, ANCESTORS_BOOST * w);
            clause(f.body, t, BODY_BOOST * w);
            clause(f.name, t, NAME_BOOST * w);
        }
        for t in &plain {
            let w = weight(&plain_parts, t);
            clause(f.symbols, t, SYMBOL_BOOST * w);
            clause(f.path, t, PATH_BOOST * w);
        }
        // Other spellings of abbreviations (`dir` for "directory"), weaker
        // than the query's own words. Only the chunk query gets them: on the
        // document query they cost the KEPs more than they gave code.
        for (v, part_weight) in abbrev::expand_parts(&stemmed, &parts, IDENTIFIER_PART_WEIGHT) {
            let w = ABBREV_WEIGHT * part_weight;
            weigh_locally(&v.stem, w, false);
            clause(f.leaf, &v.stem, LEAF_BOOST * w);
            clause(f.anc, &v.stem, ANCESTORS_BOOST * w);
            clause(f.body, &v.stem, BODY_BOOST * w);
            clause(f.name, &v.stem, NAME_BOOST * w);
            clause(f.symbols, &v.plain, SYMBOL_BOOST * w);
            clause(f.path, &v.plain, PATH_BOOST * w);
        }
        if should.is_empty() {
            return Ok(Vec::new());
        }
        let mut must = self.restricted(should, filter, true);
        // The section role the question asks for ([`intent`]), as heading
        // terms outside the required clause: they rank the chunks the
        // query's words found, and find none of their own.
        let roles = intent::heading_words(query);
        if !roles.is_empty() {
            let stems = self.with_stemmed(|a| analyze_query(a, &roles.join(" ")).0);
            for t in dedup(stems) {
                weigh_locally(&t, INTENT_BOOST, true);
                for field in [f.leaf, f.anc] {
                    if !self.empty.contains(&field) {
                        self.push_term(&mut must, field, &t, INTENT_BOOST);
                    }
                }
            }
        }
        for (doc, score) in self.doc_scores(&stemmed, filter)? {
            let q = TermQuery::new(Term::from_field_text(f.doc, &doc), IndexRecordOption::Basic);
            must.push((
                Occur::Should,
                Box::new(ConstScoreQuery::new(Box::new(q), DOC_WEIGHT * score)),
            ));
        }
        let query = BooleanQuery::new(must);
        let stats = Stats {
            searcher: &self.searcher,
            present: &self.present,
            records: self.records(REC_CHUNK).max(1),
            body: Some(f.body),
        };
        // Over-fetch so ties at the cut are ordered by ID, independent of `limit`.
        let fetch = limit
            .saturating_mul(2)
            .max(limit + 16)
            .max(within_doc::POOL + 8);
        let collector = PriorTop {
            limit: fetch,
            named,
            exact,
            records,
            inside: self.under(&filter.packages)?,
            priors: Priors {
                test: TEST_FACTOR,
                example: EXAMPLE_FACTOR,
                thin: THIN_FACTOR,
                glue: GLUE_FACTOR,
                exact: EXACT_FACTOR,
                record: RECORD_FACTOR,
                exact_demoted,
                outside: OUTSIDE_FACTOR,
            },
        };
        let top = self
            .searcher
            .search_with_statistics_provider(&query, &collector, &stats)
            .map_err(|e| index_err(&self.dir, e))?;
        // The collector only borrowed its sets: the within-document order
        // reads the same ones.
        self.best_within_docs(top, limit, &local, &collector.records, &collector.exact)
    }

    /// Adds a scored clause for `term` on `field`, matching only in the
    /// segments holding the field.
    fn push_term(
        &self,
        should: &mut Vec<(Occur, Box<dyn Query>)>,
        field: Field,
        term: &str,
        boost: f32,
    ) {
        if boost <= 0.0 {
            return;
        }
        let q = TermQuery::new(
            Term::from_field_text(field, term),
            IndexRecordOption::WithFreqs,
        );
        let q = self.present.guard(field, Box::new(q));
        should.push((Occur::Should, Box::new(BoostQuery::new(q, boost))));
    }

    /// The `limit` best of the records `top` that have the stored `field`, as
    /// `(value, score)` by score and then value. The value of a record is
    /// read (a document-store block decompressed) only when the record can
    /// still make the cut: once `limit` records are in, only those tied with
    /// the last one can.
    pub(super) fn best_by_key(
        &self,
        mut top: Vec<(f32, DocAddress)>,
        limit: usize,
        field: Field,
    ) -> Result<Vec<(String, f32)>> {
        top.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut out: Vec<(String, f32)> = Vec::with_capacity(limit.min(top.len()));
        let mut cut: Option<f32> = None;
        for (score, addr) in top {
            if cut.is_some_and(|c| score.total_cmp(&c).is_lt()) {
                break;
            }
            let doc: TantivyDocument = self
                .searcher
                .doc(addr)
                .map_err(|e| index_err(&self.dir, e))?;
            if let Some(v) = doc.get_first(field).and_then(|v| v.as_str()) {
                out.push((v.to_string(), score));
                if out.len() == limit {
                    cut = Some(score);
                }
            }
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out.truncate(limit);
        Ok(out)
    }
}

/// Runs `f` with the analyzer in `slot`, or with a `fresh` one while another
/// thread holds it: a search never waits for another's analysis.
fn with<T>(
    slot: &Mutex<TextAnalyzer>,
    fresh: fn() -> TextAnalyzer,
    f: impl FnOnce(&mut TextAnalyzer) -> T,
) -> T {
    match slot.try_lock() {
        Ok(mut a) => f(&mut a),
        // The analyzer holds nothing but caches, valid whatever panicked.
        Err(TryLockError::Poisoned(p)) => f(&mut p.into_inner()),
        Err(TryLockError::WouldBlock) => f(&mut fresh()),
    }
}

/// Records whose `field` is exactly `value` (a term query: unlike a term set,
/// it needs no bitset over the whole segment).
pub(super) fn exact(field: Field, value: &str) -> Box<dyn Query> {
    let q = TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    );
    Box::new(ConstScoreQuery::new(Box::new(q), 0.0))
}

fn set(field: Field, values: &[String]) -> Box<dyn Query> {
    Box::new(TermSetQuery::new(
        values.iter().map(|v| Term::from_field_text(field, v)),
    ))
}

fn dedup(terms: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    terms
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}
