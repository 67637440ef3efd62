//! Abstention: how much of a query the best hits cover, and the coverage below
//! which a search says "no evidence" rather than offering near misses.

use std::collections::HashSet;

use super::Retriever;
use crate::chunk::{Chunk, ChunkKind};
use crate::error::Result;
use crate::index::{abbrev, everyday, tokenizer};

/// Coverage below which a search abstains. The dev sets alone chose 0.375
/// (the highest value where neither loses more than one answerable query),
/// but questions written blind paraphrase more: pooled over the eight blind
/// sets (288 answerable, 32 unanswerable), 0.375 lost 3.5 % of the answerable
/// queries, and 0.325 loses 2.1 % while abstaining on 69 % of the
/// unanswerable ones, as many as before (`ctx eval --sweep`). The dev sets
/// then abstained on 18 of their 22 unanswerable queries instead of 19 (19
/// again once names counted, see [`ABSENT_COVERAGE_FACTOR`]).
pub const DEFAULT_MIN_COVERAGE: f32 = 0.325;

/// The coverage threshold when the best hit is of chunk kind `kind`, given the
/// threshold `base` for prose and the words of `query` absent from every
/// indexed text of the scope searched.
pub fn min_coverage_for(kind: &str, base: f32, query: &str, absent: &[String]) -> f32 {
    if kind == ChunkKind::Code.as_str() {
        base * CODE_COVERAGE_FACTOR
    } else if absent.iter().any(|w| names_something(w, query)) {
        base * ABSENT_COVERAGE_FACTOR
    } else {
        base
    }
}

/// Whether absent `word` of `query` names something the docs are not about
/// (not everyday English, or written as a name) rather than paraphrasing:
/// such a word raises the bar ([`ABSENT_COVERAGE_FACTOR`]), any other one is
/// phrasing ([`PHRASING_WEIGHT`]).
fn names_something(word: &str, query: &str) -> bool {
    !everyday::is_everyday(word) || everyday::written_as_name(word, query)
}

/// Prose coverage threshold, relative to the usual one, for a query with a
/// word no indexed text of the scope holds that is not everyday English, or
/// is written as a name. Such a word (`jemalloc`, `sqlx`, `autovacuum` in the
/// Rust Book) most often names what the docs are not about, and the
/// question's everyday words ("replace the global memory allocator") then
/// cover a good share of it anyway; but a paraphrase can use a word the docs
/// do not ("lockfile"), so the word raises the bar rather than abstaining
/// outright. Swept on the dev sets from 1.0 to 1.47 of a base of 0.375: from
/// 1.12 to 1.2 the Rust Book abstains on 12 of its 14 unanswerable queries
/// instead of 9, with no answerable query lost on either set; above 1.2 it
/// loses one. With the base lowered to 0.325, 1.4 keeps that bar (0.455); at
/// 1.2 (0.39) the blind sets abstained on 20 of their 32 unanswerable queries
/// instead of 22.
///
/// An everyday word ("silence", "throwaway", "quantities") does not raise
/// it: over the dev sets and three blind sets of each corpus, 23 of the 31
/// answerable queries with an absent word had only everyday ones, and the 7
/// of 30 unanswerable ones that did were covered under 0.36, below the usual
/// bar (`firmware`, "criterion baseline"); the third blind Rust Book set then
/// wrongly abstained on 3 queries instead of 5. An everyday word written as a
/// name ("how does Longhorn rebuild", "the Sealed Secrets controller") names
/// a thing all the same: that took the dev sets from 18 to 19 of their 22
/// unanswerable queries abstained on, and the ten blind sets from 26 to 27 of
/// 40, with no answerable query lost. Not for code, whose questions describe
/// behaviour in words it never uses.
///
/// An identifier (`IPAddressPool`, `tail_sampling`) is absent unless some text
/// holds it whole (see [`crate::index::IndexReader::absent_words`]): over
/// the dev sets and 24 blind sets that abstained on 3 more of 118
/// unanswerable queries and lost 1 more of 1,058 answerable ones (`impl
/// SomeTrait`, a placeholder).
pub const ABSENT_COVERAGE_FACTOR: f32 = 1.4;

/// Code coverage threshold relative to prose. Code coverage is measured over
/// the whole file of a hit (see [`Retriever::search`]), yet questions about
/// code still use words the code does not: they describe behaviour ("keeps a
/// spinner animating") that the code only does. Chosen by the prose rule (the
/// highest threshold at which no code query set wrongly abstains on more than
/// one answerable query) over five sets, two of them written blind: at 1.4
/// (tuned on `ignore` alone) the blind indicatif set abstained on 8 of its 29
/// answerable queries. Lexical coverage tells unanswerable code questions
/// apart poorly: at 0.85 (of a base of 0.375) a third of them are abstained
/// on (two thirds at 1.4). 0.98 of the base of 0.325 keeps that bar.
pub const CODE_COVERAGE_FACTOR: f32 = 0.98;

/// Coverage weight, relative to its IDF, of a word of a question that no
/// indexed text holds and that is everyday English not written as a name
/// ("scared", "silence", "quantities", "strip"). Such a word has the
/// highest IDF there is (it occurs nowhere), so a question that happens to
/// phrase itself in words the docs never use weighed them above its subject:
/// "how do I silence the warning for a variable I haven't used yet" was
/// abstained on at coverage 0.32. A word of a keyword query ("tokio
/// broadcast channel lagged") is its subject, not phrasing, and keeps its
/// weight. Swept over 1 / 0.5 / 0.25 / 0 with the bar from 0.25 to 0.45
/// (`scripts/abstention_pool.py`): at 0.5 and the 0.325 bar, the 24 blind
/// sets lose 13 of 864 answerable queries instead of 17 and abstain on the
/// same 61 of 96 unanswerable ones, and the dev sets are unchanged (19 of 22,
/// 1 of 194); 0.25 gives the same at this bar, and 0 abstains on 3 fewer.
const PHRASING_WEIGHT: f32 = 0.5;

/// Whether `query` is put as a question (a `?`, or an interrogative word)
/// rather than as keywords.
fn phrased_as_question(query: &str) -> bool {
    query.trim_end().ends_with('?')
        || query
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| INTERROGATIVES.iter().any(|i| w.eq_ignore_ascii_case(i)))
}

const INTERROGATIVES: &[&str] = &["how", "what", "why", "when", "where", "which", "who"];

/// Coverage credit of a query word the hits hold only a synonym of. A synonym
/// addresses the word less surely than the word itself, but a question put
/// wholly in other words ("upgrade or remove the toolchain" against "update"
/// and "uninstall") is still answered. Swept over 0 / 0.3 / 0.5 / 0.7 / 1: at
/// 0 the MCP set wrongly abstained on one more answerable query (4.5 % against
/// 2.3 %); from 0.5 up clap_builder answered one more unanswerable one (50 %
/// abstained against 75 %), which is the price of the question above. Hit@5
/// and MRR do not depend on it.
const SYNONYM_CREDIT: f32 = 0.5;

impl Retriever {
    /// IDF-weighted share of `terms` found in the best of the files `docs`.
    pub fn file_coverage<'a>(
        &self,
        terms: &[String],
        docs: impl Iterator<Item = &'a str>,
    ) -> Result<f32> {
        let idf = self.idf(terms);
        let total: f32 = idf.iter().sum();
        if total <= 0.0 {
            return Ok(0.0);
        }
        let mut seen: HashSet<&str> = HashSet::new();
        let mut best: f32 = 0.0;
        let spellings = spellings(terms);
        for doc in docs {
            if !seen.insert(doc) {
                continue;
            }
            let path: HashSet<String> = self
                .reader
                .with_stemmed(|a| tokenizer::analyze(a, doc))
                .into_iter()
                .collect();
            let present = self.reader.terms_in_doc(doc, &spellings)?;
            let found: HashSet<&str> = spellings
                .iter()
                .zip(&present)
                .filter(|(t, p)| **p || path.contains(**t))
                .map(|(t, _)| *t)
                .collect();
            let got: f32 = terms
                .iter()
                .zip(&idf)
                .map(|(t, w)| w * credit(t, |s| found.contains(s)))
                .sum();
            best = best.max(got / total);
        }
        Ok(best)
    }

    /// BM25's IDF of each stemmed term over the chunks.
    fn idf(&self, terms: &[String]) -> Vec<f32> {
        let n = self.reader.num_docs().max(1) as f32;
        terms
            .iter()
            .map(|t| {
                let df = self.reader.doc_freq(t) as f32;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect()
    }

    /// The stems of the words of a question that no indexed text holds and
    /// that are only phrasing: everyday English, not written as names, and
    /// sharing no stem with an absent word that is (see [`PHRASING_WEIGHT`]).
    pub(super) fn phrasing_absent(&self, query: &str, absent: &[String]) -> HashSet<String> {
        if !phrased_as_question(query) {
            return HashSet::new();
        }
        let stems = |w: &String| self.reader.with_stemmed(|a| tokenizer::analyze(a, w));
        let (named, plain): (Vec<&String>, Vec<&String>) =
            absent.iter().partition(|w| names_something(w, query));
        let named: HashSet<String> = named.into_iter().flat_map(stems).collect();
        plain
            .into_iter()
            .flat_map(stems)
            .filter(|s| !named.contains(s))
            .collect()
    }

    /// IDF-weighted share of `terms` found in the best of `chunks`, the
    /// `phrasing` stems weighed by [`PHRASING_WEIGHT`].
    pub fn coverage<'a>(
        &self,
        terms: &[String],
        phrasing: &HashSet<String>,
        chunks: impl Iterator<Item = &'a Chunk>,
    ) -> f32 {
        if terms.is_empty() {
            return 0.0;
        }
        let mut idf = self.idf(terms);
        for (t, w) in terms.iter().zip(idf.iter_mut()) {
            if phrasing.contains(t) {
                *w *= PHRASING_WEIGHT;
            }
        }
        let total: f32 = idf.iter().sum();
        if total <= 0.0 {
            return 0.0;
        }
        // A chunk's words are checked against these as they stream by, not collected.
        let spellings = spellings(terms);
        let mut found = vec![false; spellings.len()];
        self.reader.with_stemmed(|analyzer| {
            let mut best: f32 = 0.0;
            for c in chunks {
                found.fill(false);
                let mut mark = |w: &str| {
                    if let Some(i) = spellings.iter().position(|s| *s == w) {
                        found[i] = true;
                    }
                };
                tokenizer::for_each_term(analyzer, &c.text, &mut mark);
                tokenizer::for_each_term(analyzer, &c.title_path.join(" "), &mut mark);
                tokenizer::for_each_term(analyzer, &c.doc, &mut mark);
                let has = |w: &str| {
                    spellings
                        .iter()
                        .position(|s| *s == w)
                        .is_some_and(|i| found[i])
                };
                let got: f32 = terms
                    .iter()
                    .zip(&idf)
                    .map(|(t, w)| w * credit(t, has))
                    .sum();
                best = best.max(got / total);
            }
            best
        })
    }
}
/// The stemmed `terms` and their abbreviations' other spellings, each once, as
/// search matched them.
fn spellings(terms: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = terms.iter().map(String::as_str).collect();
    for v in terms.iter().flat_map(|t| abbrev::variants(t)) {
        if !out.contains(&v.stem.as_str()) {
            out.push(&v.stem);
        }
    }
    out
}

/// How far the words for which `has` holds answer stemmed `term`: fully when
/// they hold the term or another spelling of it (`dir` for `directori`), as
/// search matches either; by [`SYNONYM_CREDIT`] when they hold only a synonym
/// (`updat` for `upgrad`); else not at all.
fn credit(term: &str, has: impl Fn(&str) -> bool) -> f32 {
    if has(term) {
        return 1.0;
    }
    let mut credit: f32 = 0.0;
    for (v, synonym) in abbrev::spellings_of(term) {
        if has(&v.stem) {
            credit = credit.max(if synonym { SYNONYM_CREDIT } else { 1.0 });
        }
    }
    credit
}
