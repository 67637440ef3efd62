//! What the build remembers about the pack file it wrote last, so the next
//! build can copy unchanged documents instead of serializing them again.

use std::collections::HashMap;

use rusqlite::params;

use super::Catalog;
use crate::error::{Error, Result};
use crate::pack::DocDigest;

/// Where one document sits in the pack file, and what its digest line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackSpan {
    /// Generation of the document's chunks when they were written.
    pub gen_: u64,
    /// Byte offset of the document's first chunk object.
    pub off: u64,
    /// Bytes up to the end of its last chunk object.
    pub len: u64,
    /// Byte offset of the document's first index entry.
    pub ioff: u64,
    /// Bytes up to the end of its last index entry.
    pub ilen: u64,
    /// Its chunk count, tokens and top headings.
    pub digest: DocDigest,
}

impl Catalog {
    /// The spans recorded with the pack last written.
    pub fn pack_spans(&self) -> Result<HashMap<String, PackSpan>> {
        let mut stmt = self
            .conn
            .prepare("SELECT doc, gen, off, len, ioff, ilen, chunks, tokens, tops FROM pack_spans")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                let int = |i: usize| -> rusqlite::Result<u64> { Ok(r.get::<_, i64>(i)? as u64) };
                let tops: String = r.get(8)?;
                Ok((
                    r.get::<_, String>(0)?,
                    PackSpan {
                        gen_: int(1)?,
                        off: int(2)?,
                        len: int(3)?,
                        ioff: int(4)?,
                        ilen: int(5)?,
                        digest: DocDigest {
                            chunks: int(6)? as usize,
                            tokens: int(7)? as usize,
                            tops: serde_json::from_str(&tops).map_err(|e| {
                                rusqlite::Error::FromSqlConversionFailure(
                                    8,
                                    rusqlite::types::Type::Text,
                                    e.into(),
                                )
                            })?,
                        },
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Every `docs` document with chunks, with the generation of its chunks (a
    /// build writes all of a document's chunks, and pages, at one generation),
    /// in document order. Read from the pages: a few per document, not one row
    /// per chunk.
    pub fn doc_generations(&self) -> Result<Vec<(String, u64)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT doc, max(gen) FROM pages WHERE scope = 'docs' GROUP BY doc ORDER BY doc",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Replaces the recorded spans, with the pack's fingerprint and generation.
    pub fn record_pack(
        &mut self,
        spans: &[(String, PackSpan)],
        fingerprint: &str,
        generation: u64,
    ) -> Result<()> {
        self.transaction(|tx| {
            let c = tx.conn();
            c.execute("DELETE FROM pack_spans", [])
                .map_err(|e| tx.err(e))?;
            let mut stmt = c
                .prepare(
                    "INSERT INTO pack_spans(doc, gen, off, len, ioff, ilen, chunks, tokens, tops)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .map_err(|e| tx.err(e))?;
            for (doc, s) in spans {
                let tops = serde_json::to_string(&s.digest.tops)
                    .map_err(|e| Error::Invalid(e.to_string()))?;
                stmt.execute(params![
                    doc,
                    s.gen_ as i64,
                    s.off as i64,
                    s.len as i64,
                    s.ioff as i64,
                    s.ilen as i64,
                    s.digest.chunks as i64,
                    s.digest.tokens as i64,
                    tops
                ])
                .map_err(|e| tx.err(e))?;
            }
            tx.set_meta("pack_fingerprint", fingerprint)?;
            tx.set_meta("pack_generation", &generation.to_string())
        })
    }
}
