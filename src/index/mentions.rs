//! The chunks that may mention a word (every record holding all the terms
//! the word analyzes to) or be named by one (every symbol with that name
//! key). Supersets (stemming folds `walks` into `walk`; a key drops case and
//! punctuation), so the caller confirms each chunk; the index only spares it
//! reading the pack.

use tantivy::collector::DocSetCollector;
use tantivy::query::{BooleanQuery, FuzzyTermQuery, Occur, Query};
use tantivy::schema::{Field, Value};
use tantivy::{TantivyDocument, Term};

use super::reader::IndexReader;
use super::{REC_CHUNK, index_err, tokenizer};
use crate::error::Result;

impl IndexReader {
    /// IDs of the `docs` chunks (of `kind`, and in document `doc`, when
    /// given) whose text has every term of `word`, in no particular order;
    /// empty when `word` has no terms (a stop word, or longer than any
    /// indexed term).
    pub fn chunks_with_terms_of(
        &self,
        word: &str,
        kind: Option<&str>,
        doc: Option<&str>,
    ) -> Result<Vec<String>> {
        let f = self.fields;
        let terms = self.with_stemmed(|a| tokenizer::analyze(a, word));
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let mut must: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| self.required(f.body, t.as_str()))
            .collect();
        must.push(self.required(f.rec, REC_CHUNK));
        must.push(self.required(f.scope, "docs"));
        if let Some(kind) = kind {
            must.push(self.required(f.kind, kind));
        }
        if let Some(doc) = doc {
            must.push(self.required(f.doc, doc));
        }
        self.ids_of(BooleanQuery::new(must))
    }

    /// IDs of the `docs` symbol chunks with `key` among their
    /// [`super::symbol_names`], in no particular order.
    pub fn symbols_named(&self, key: &str) -> Result<Vec<String>> {
        let f = self.fields;
        let must = vec![self.required(f.names, key), self.required(f.scope, "docs")];
        self.ids_of(BooleanQuery::new(must))
    }

    /// IDs of the `docs` symbol chunks with a name key within `distance`
    /// edits of `key` (a transposition is one), in no particular order: for
    /// "similar names" when nothing answers to `key` itself.
    pub fn symbols_named_like(&self, key: &str, distance: u8) -> Result<Vec<String>> {
        let f = self.fields;
        let fuzzy = FuzzyTermQuery::new(Term::from_field_text(f.names, key), distance, true);
        let must = vec![
            (Occur::Must, self.present.guard(f.names, Box::new(fuzzy))),
            self.required(f.scope, "docs"),
        ];
        self.ids_of(BooleanQuery::new(must))
    }

    /// The stored IDs of the records `query` matches.
    fn ids_of(&self, query: BooleanQuery) -> Result<Vec<String>> {
        let f = self.fields;
        let found = self
            .searcher
            .search(&query, &DocSetCollector)
            .map_err(|e| index_err(&self.dir, e))?;
        let mut ids = Vec::with_capacity(found.len());
        for addr in found {
            let doc: TantivyDocument = self
                .searcher
                .doc(addr)
                .map_err(|e| index_err(&self.dir, e))?;
            if let Some(id) = doc.get_first(f.id).and_then(|v| v.as_str()) {
                ids.push(id.to_string());
            }
        }
        Ok(ids)
    }

    /// A required term of `field`, matching only in the segments holding it
    /// (symbol names are in code segments alone).
    fn required(&self, field: Field, value: &str) -> (Occur, Box<dyn Query>) {
        (
            Occur::Must,
            self.present
                .guard(field, super::reader::exact(field, value)),
        )
    }
}
