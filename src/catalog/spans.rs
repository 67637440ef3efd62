//! What the build remembers about the pack file it wrote last, so the next
//! build can copy unchanged documents instead of serializing them again.

use std::collections::HashMap;

use rusqlite::params;

use super::Catalog;
use crate::chunk::Chunk;
use crate::error::Result;

/// Where one document's chunks sit in the pack file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackSpan {
    /// Generation of the document's chunks when they were written.
    pub gen_: u64,
    /// Byte offset of the document's first chunk object.
    pub off: u64,
    /// Bytes up to the end of its last chunk object.
    pub len: u64,
}

impl Catalog {
    /// The spans recorded with the pack last written.
    pub fn pack_spans(&self) -> Result<HashMap<String, PackSpan>> {
        let mut stmt = self
            .conn
            .prepare("SELECT doc, gen, off, len FROM pack_spans")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    PackSpan {
                        gen_: r.get::<_, i64>(1)? as u64,
                        off: r.get::<_, i64>(2)? as u64,
                        len: r.get::<_, i64>(3)? as u64,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Calls `f` with each chunk of `doc` in order.
    pub fn for_each_chunk_of(&self, doc: &str, f: impl FnMut(&Chunk) -> Result<()>) -> Result<()> {
        self.for_each_chunk_where("doc = ?1 AND scope = 'docs'", params![doc], f)
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
                .prepare("INSERT INTO pack_spans(doc, gen, off, len) VALUES (?1, ?2, ?3, ?4)")
                .map_err(|e| tx.err(e))?;
            for (doc, s) in spans {
                stmt.execute(params![doc, s.gen_ as i64, s.off as i64, s.len as i64])
                    .map_err(|e| tx.err(e))?;
            }
            tx.set_meta("pack_fingerprint", fingerprint)?;
            tx.set_meta("pack_generation", &generation.to_string())
        })
    }
}
