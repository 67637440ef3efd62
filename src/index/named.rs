//! Which chunks a query names: symbols whose names its words spell, the
//! one whose name is the whole query, and JSON records it names. They are
//! read straight from the `key` postings before scoring, so the collector
//! can weigh them (see [`super::collect::Priors`]).

use std::collections::HashSet;

use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocId, DocSet, Term};

use super::query_words::{exact_name_key, is_question_word, name_keys};
use super::reader::{BySegment, IndexReader};
use super::{index_err, name_key, signals};
use crate::error::Result;

/// The chunks a query names, by segment (see [`IndexReader::named`]).
#[derive(Default)]
pub(super) struct Named {
    pub named: BySegment,
    pub exact: BySegment,
    pub records: BySegment,
}

impl IndexReader {
    /// Whether any of the chunks `sets` (by segment) is neither a test nor an
    /// example: then the tests and examples among them are demoted.
    pub(super) fn any_primary(&self, sets: &[HashSet<DocId>]) -> bool {
        let minor = signals::TEST | signals::EXAMPLE;
        let flags = signals::Flags::new(&self.searcher);
        sets.iter().enumerate().any(|(segment, docs)| {
            docs.iter()
                .any(|&d| flags.of(DocAddress::new(segment as u32, d)) & minor == 0)
        })
    }

    /// The chunks `query` names, by segment: symbols (see [`name_keys`]),
    /// those whose name is the whole query (see [`exact_name_key`]), and
    /// chunks whose key is one of those names or a single word of the query
    /// (for JSON records: a record's name is data the user types whole, so
    /// "what version of tantivy" names the record `tantivy`).
    pub(super) fn named(&self, query: &str) -> Result<Named> {
        let mut out = Named::default();
        // A pack without code or records has no names to look up.
        if self.empty.contains(&self.fields.key) {
            return Ok(out);
        }
        let exact_key = exact_name_key(query);
        let mut keys = name_keys(query);
        keys.extend(exact_key.clone());
        // Code and prose packs have no records: their names only.
        let mut words: HashSet<String> = match self.has_json {
            true => query
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !is_question_word(w))
                .map(name_key)
                .filter(|k| k.chars().count() >= 2 && !keys.contains(k))
                .collect(),
            false => HashSet::new(),
        };
        words.extend(keys.iter().cloned());
        let err = |e: tantivy::TantivyError| index_err(&self.dir, e);
        // Straight from the postings: a term-set query's bitset over every
        // record cost more than the lookups of a few mostly absent keys.
        for segment in self.searcher.segment_readers() {
            let Some(inverted) = self
                .present
                .inverted(segment, self.fields.key)
                .map_err(err)?
            else {
                out.named.push(HashSet::new());
                out.exact.push(HashSet::new());
                out.records.push(HashSet::new());
                continue;
            };
            let (mut named, mut exact, mut records) =
                (HashSet::new(), HashSet::new(), HashSet::new());
            for key in &words {
                let term = Term::from_field_text(self.fields.key, key);
                let postings = inverted
                    .read_postings(&term, IndexRecordOption::Basic)
                    .map_err(|e| index_err(&self.dir, e))?;
                let (is_name, is_exact) = (keys.contains(key), exact_key.as_ref() == Some(key));
                if let Some(mut postings) = postings {
                    while postings.doc() != tantivy::TERMINATED {
                        let doc = postings.doc();
                        records.insert(doc);
                        if is_name {
                            named.insert(doc);
                        }
                        if is_exact {
                            exact.insert(doc);
                        }
                        postings.advance();
                    }
                }
            }
            out.named.push(named);
            out.exact.push(exact);
            out.records.push(records);
        }
        Ok(out)
    }
}
