//! Writing: delete a document's chunks by path, add its new chunks, one commit per
//! build carrying the build generation as payload.
//!
//! Besides one record per chunk, each document gets one *document record* holding
//! its whole text, written after its last chunk; search scores it to
//! tell which document a query is about (see [`super::reader`]). Chunks arrive
//! grouped by document, so the record is flushed when the document changes and at
//! commit. Both records get the chunk text as terms analyzed here, once
//! ([`super::terms`]).

use std::path::{Path, PathBuf};

use tantivy::indexer::{IndexWriter as TantivyWriter, LogMergePolicy};
use tantivy::{Index, TantivyDocument, Term};

use super::tokenizer::Analyzer;
use super::{Fields, REC_CHUNK, REC_DOC, doctest, index_err, signals};
use crate::chunk::text::{group_record_names, record_path};
use crate::chunk::{Chunk, ChunkKind};
use crate::error::Result;

/// Memory budget of the tantivy writer (split across its threads).
const WRITER_HEAP: usize = 96 * 1024 * 1024;

/// Memory budget of a one-thread writer for a small build.
const SMALL_HEAP: usize = 15 * 1024 * 1024;

/// Below this much new text one indexing thread does: each thread writes a
/// segment of its own, and a segment costs a dozen files, each fsynced and
/// registered (with another fsync) at commit; for a one-file edit that was
/// most of the commit's time.
const PARALLEL_FROM_BYTES: u64 = 4 << 20;

/// The share of a tantivy segment's records that may be deleted before the
/// segment is merged (rewritten without them). Deleted records count in BM25's
/// statistics until then, so an index edited for long would rank differently
/// from a fresh one; tantivy's default (1.0) never merges a lone large segment
/// for its deletions. The merge runs within the build that crosses the line.
const MAX_DELETED_SHARE: f32 = 0.25;

/// The single writer of a segment's index.
pub struct IndexWriter {
    writer: TantivyWriter,
    fields: Fields,
    dir: PathBuf,
    /// The document whose chunks are being added.
    pending: Option<PendingDoc>,
    /// Analyzes chunk bodies (the stemming analyzer, warm across chunks).
    analyzer: Analyzer,
    /// The terms of the chunk being added, a buffer reused across chunks.
    terms: Vec<u8>,
}

/// A document record under construction.
struct PendingDoc {
    doc: String,
    scope: String,
    /// The terms of its chunks so far.
    terms: String,
    /// The title path of its last chunk.
    last_title: Vec<String>,
}

impl IndexWriter {
    pub(super) fn new(
        index: &Index,
        fields: Fields,
        dir: &Path,
        bytes: u64,
    ) -> Result<IndexWriter> {
        let threads = if bytes < PARALLEL_FROM_BYTES {
            1
        } else {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                .clamp(1, 4)
        };
        // tantivy sizes each thread's term table from its budget up front, so
        // a small build gets a small budget (tantivy's minimum).
        let heap = if threads == 1 {
            SMALL_HEAP
        } else {
            WRITER_HEAP
        };
        let writer: TantivyWriter = index
            .writer_with_num_threads(threads, heap)
            .map_err(|e| index_err(dir, e))?;
        let mut policy = LogMergePolicy::default();
        policy.set_del_docs_ratio_before_merge(MAX_DELETED_SHARE);
        writer.set_merge_policy(Box::new(policy));
        Ok(IndexWriter {
            writer,
            fields,
            dir: dir.to_path_buf(),
            pending: None,
            analyzer: Analyzer::stemming(bytes >= PARALLEL_FROM_BYTES),
            terms: Vec::new(),
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

    /// Adds one chunk. A document's chunks must be added together.
    pub fn add(&mut self, chunk: &Chunk, scope: &str) -> Result<()> {
        let f = self.fields;
        if self
            .pending
            .as_ref()
            .is_some_and(|p| p.doc != chunk.doc || p.scope != scope)
        {
            self.flush_doc()?;
        }
        let pending = self.pending.get_or_insert_with(|| PendingDoc {
            doc: chunk.doc.clone(),
            scope: scope.to_string(),
            terms: String::new(),
            last_title: Vec::new(),
        });
        self.terms.clear();
        self.analyzer
            .append_terms(&doctest::indexed_body(chunk), &mut self.terms);
        // Terms are UTF-8 (they are words of a `&str`), so this borrows.
        let terms = String::from_utf8_lossy(&self.terms);
        pending.terms.push_str(&terms);

        let mut doc = TantivyDocument::default();
        doc.add_text(f.id, &chunk.id);
        doc.add_text(f.doc, &chunk.doc);
        doc.add_text(f.rec, REC_CHUNK);
        doc.add_text(f.path, &chunk.doc);
        // The leaf heading and the headings between it and the document's
        // title; the title itself is document-level evidence (the document
        // record), not something that tells a document's sections apart.
        if let Some((leaf, rest)) = chunk.title_path.split_last() {
            // An impl block is titled by its header for people; its trait
            // words as a heading cost a query its rank on clap_builder
            // (MRR 0.511 → 0.490), so the index keeps the type's name.
            let leaf = match &chunk.symbol {
                Some(s) if s.kind == "impl" => &s.name,
                _ => leaf,
            };
            doc.add_text(f.leaf, leaf);
            if let Some((_, mid)) = rest.split_first() {
                doc.add_text(f.anc, mid.join(" \n "));
            }
        }
        doc.add_text(f.body, &*terms);
        if let Some(sym) = &chunk.symbol {
            doc.add_text(f.symbols, &sym.qualified);
            doc.add_text(f.symbols, &sym.signature);
            doc.add_text(f.name, &sym.qualified);
            doc.add_text(f.key, super::name_key(&sym.name));
            doc.add_text(f.key, super::name_key(&sym.qualified));
            for name in super::symbol_names(sym) {
                doc.add_text(f.names, name);
            }
        }
        let mut flags = signals::flags(chunk);
        if chunk.kind == ChunkKind::Json {
            // The innermost record's name only: `tantivy > deps > [3] serde`
            // is about serde, and is not the first chunk of `tantivy`.
            if let Some((record, name)) = record_path(&chunk.title_path) {
                doc.add_text(f.key, super::name_key(name));
                flags |= signals::RECORD;
                // The first chunk of a record: the one before it was outside
                // the record (a chunk after a nested record's is not).
                if !pending.last_title.starts_with(record) {
                    flags |= signals::RECORD_HEAD;
                }
            } else {
                // Small records grouped in one chunk: each is whole in it.
                let names = group_record_names(&chunk.title_path, &chunk.text);
                for name in &names {
                    doc.add_text(f.key, super::name_key(name));
                }
                if !names.is_empty() {
                    flags |= signals::RECORD | signals::RECORD_HEAD;
                }
            }
            pending.last_title.clone_from(&chunk.title_path);
        }
        doc.add_u64(f.flags, flags);
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

    /// Writes the record of the document whose chunks were added last.
    fn flush_doc(&mut self) -> Result<()> {
        let Some(p) = self.pending.take() else {
            return Ok(());
        };
        let f = self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.doc, &p.doc);
        doc.add_text(f.rec, REC_DOC);
        doc.add_text(f.scope, &p.scope);
        doc.add_text(f.dtext, &p.terms);
        self.writer
            .add_document(doc)
            .map(|_| ())
            .map_err(|e| index_err(&self.dir, e))
    }

    /// Commits everything added and deleted, recording `generation`.
    pub fn commit(mut self, generation: u64) -> Result<()> {
        self.flush_doc()?;
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
