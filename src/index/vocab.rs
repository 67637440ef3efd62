//! What a snapshot knows about words: in how many chunks a term occurs, which
//! terms a document holds, and which of a query's words no text holds. Coverage
//! (abstention) asks these; ranking does not.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, EnableScoring, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, TERMINATED, Term};

use super::query_words::strip_question_words;
use super::reader::exact;
use super::{IndexReader, REC_DOC, abbrev, holds, index_err, tokenizer};
use crate::error::Result;

impl IndexReader {
    /// The words of `query` (question words aside) that no indexed text of
    /// `scope` (any, when `None`) holds, in any spelling search matches: a
    /// question about `jemalloc` over docs that never say it is about
    /// something else than what they say, also when a boxed tool output
    /// says it.
    pub fn absent_words(&self, query: &str, scope: Option<&str>) -> Vec<String> {
        // Every record in the scope: the whole index answers for it.
        let scope = scope.filter(|s| !self.all_have(self.fields.scope, s));
        let present =
            |t: &str| self.doc_freq(t) > 0 && scope.is_none_or(|s| self.occurs_in_scope(t, s));
        let mut out: Vec<String> = Vec::new();
        for word in strip_question_words(query).split_whitespace() {
            let mut terms = self.with_stemmed(|a| tokenizer::analyze(a, word));
            // An identifier (`IPAddressPool`, `max_surge`) names one thing:
            // docs that hold its parts apart do not hold it. The analyzer
            // gives its whole last.
            if is_identifier(word) && terms.len() > 1 {
                terms.drain(..terms.len() - 1);
            }
            let absent = !terms.is_empty()
                && terms
                    .iter()
                    .all(|t| !present(t) && abbrev::variants(t).iter().all(|v| !present(&v.stem)));
            if absent && !out.iter().any(|w| w.eq_ignore_ascii_case(word)) {
                out.push(word.to_string());
            }
        }
        out
    }

    /// Whether some live record of `scope` holds stemmed `term` in its text or
    /// headings. Stops at the first one.
    fn occurs_in_scope(&self, term: &str, scope: &str) -> bool {
        let f = self.fields;
        let text: Vec<(Occur, Box<dyn Query>)> = self
            .word_fields()
            .iter()
            .map(|&field| {
                let q =
                    TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::Basic);
                (Occur::Should, Box::new(q) as Box<dyn Query>)
            })
            .collect();
        let query = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(BooleanQuery::new(text)) as Box<dyn Query>,
            ),
            (Occur::Must, exact(f.scope, scope)),
        ]);
        // On an index error the word counts as present: a word wrongly named
        // absent would raise the bar, one wrongly found only keeps it.
        let Ok(weight) = query.weight(EnableScoring::disabled_from_searcher(&self.searcher)) else {
            return true;
        };
        self.searcher.segment_readers().iter().any(|segment| {
            let Ok(mut docs) = weight.scorer(segment, 1.0) else {
                return true;
            };
            let alive = segment.alive_bitset();
            let mut doc = docs.doc();
            while doc != TERMINATED {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    return true;
                }
                doc = docs.advance();
            }
            false
        })
    }

    /// Which of the stemmed `terms` occur anywhere in the text of document `doc`
    /// (all `false` when the document has no record).
    pub fn terms_in_doc(&self, doc: &str, terms: &[&str]) -> Result<Vec<bool>> {
        let f = self.fields;
        let query = BooleanQuery::new(vec![
            (Occur::Must, exact(f.doc, doc)),
            (Occur::Must, exact(f.rec, REC_DOC)),
        ]);
        let top = self
            .searcher
            .search(&query, &TopDocs::with_limit(1).order_by_score())
            .map_err(|e| index_err(&self.dir, e))?;
        let Some((_, addr)) = top.first() else {
            return Ok(vec![false; terms.len()]);
        };
        let inverted = self
            .searcher
            .segment_reader(addr.segment_ord)
            .inverted_index(f.dtext)
            .map_err(|e| index_err(&self.dir, e))?;
        let mut out = Vec::with_capacity(terms.len());
        for t in terms {
            let term = Term::from_field_text(f.dtext, t);
            let postings = inverted
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| index_err(&self.dir, e))?;
            out.push(postings.is_some_and(|mut p| holds(&mut p, addr.doc_id)));
        }
        Ok(out)
    }

    /// The fields a chunk's words are indexed in: its heading, its
    /// ancestors' headings and its body.
    fn word_fields(&self) -> [Field; 3] {
        let f = self.fields;
        [f.leaf, f.anc, f.body]
    }

    /// Chunks containing stemmed `term` in their headings or body (at most).
    pub fn doc_freq(&self, term: &str) -> u64 {
        self.word_fields()
            .iter()
            .map(|&field| {
                self.present
                    .doc_freq(&self.searcher, &Term::from_field_text(field, term))
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
    }
}

/// Whether `word`, punctuation around it aside, is one identifier written
/// with an inner `_` or a lower-to-upper case change (`IPAddressPool`,
/// `max_surge`); not a version or a size (`IPv6`, `v1beta1`, `2GB`).
fn is_identifier(word: &str) -> bool {
    let core = word.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
    let core = core.trim_matches('_');
    if core.is_empty() || !core.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return false;
    }
    core.contains('_')
        || core
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::is_identifier;

    #[test]
    fn identifiers_are_told_from_versions_and_sizes() {
        for w in ["IPAddressPool", "max_surge", "`RouteTable`,", "kubeProxy?"] {
            assert!(is_identifier(w), "{w}");
        }
        for w in [
            "IPv6",
            "v1beta1",
            "2GB",
            "Kubernetes",
            "node-ip",
            "_",
            "a/bC",
        ] {
            assert!(!is_identifier(w), "{w}");
        }
    }
}
