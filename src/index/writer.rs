//! Writing: delete a document's chunks by path, add its new chunks, one commit per
//! build carrying the build generation as payload.

use std::path::{Path, PathBuf};

use tantivy::{Index, TantivyDocument, Term, indexer::IndexWriter as TantivyWriter};

use super::{Fields, index_err};
use crate::chunk::Chunk;
use crate::error::Result;

/// Memory budget of the tantivy writer (split across its threads).
const WRITER_HEAP: usize = 96 * 1024 * 1024;

/// The single writer of a segment's index.
pub struct IndexWriter {
    writer: TantivyWriter,
    fields: Fields,
    dir: PathBuf,
}

impl IndexWriter {
    pub(super) fn new(index: &Index, fields: Fields, dir: &Path) -> Result<IndexWriter> {
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .clamp(1, 4);
        let writer = index
            .writer_with_num_threads(threads, WRITER_HEAP)
            .map_err(|e| index_err(dir, e))?;
        Ok(IndexWriter {
            writer,
            fields,
            dir: dir.to_path_buf(),
        })
    }

    /// Removes every chunk of `doc`.
    pub fn delete_doc(&mut self, doc: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.doc, doc));
    }

    /// Removes every chunk of `scope` (`docs` on a full rebuild; relay values
    /// survive rebuilds of the project's docs).
    pub fn delete_scope(&mut self, scope: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.scope, scope));
    }

    /// Adds one chunk.
    pub fn add(&mut self, chunk: &Chunk, scope: &str) -> Result<()> {
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.id, &chunk.id);
        doc.add_text(f.doc, &chunk.doc);
        doc.add_text(f.path, &chunk.doc);
        doc.add_text(f.title, chunk.title_path.join(" \n "));
        doc.add_text(f.body, &chunk.text);
        if let Some(sym) = &chunk.symbol {
            doc.add_text(f.symbols, &sym.qualified);
            doc.add_text(f.symbols, &sym.signature);
        }
        if let Some(lang) = &chunk.lang {
            doc.add_text(f.symbols, lang);
        }
        doc.add_text(f.kind, chunk.kind.as_str());
        doc.add_text(f.scope, scope);
        self.writer
            .add_document(doc)
            .map(|_| ())
            .map_err(|e| index_err(&self.dir, e))
    }

    /// Commits everything added and deleted, recording `generation`.
    pub fn commit(mut self, generation: u64) -> Result<()> {
        let mut prepared = self
            .writer
            .prepare_commit()
            .map_err(|e| index_err(&self.dir, e))?;
        prepared.set_payload(&generation.to_string());
        prepared.commit().map_err(|e| index_err(&self.dir, e))?;
        self.writer
            .wait_merging_threads()
            .map_err(|e| index_err(&self.dir, e))
    }
}
