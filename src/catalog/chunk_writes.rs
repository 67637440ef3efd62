//! Writing a build's chunks: their rows and the compressed pages of their
//! text, generation by generation, and retiring or dropping old ones.

use rusqlite::{OptionalExtension, params};

use super::chunks::Extra;
use super::{Tx, title_hash};
use crate::chunk::Chunk;
use crate::error::{Error, Result};

/// A page is closed once it holds this many bytes of text.
const PAGE_BYTES: usize = 32 * 1024;

impl Tx<'_> {
    /// Inserts (or replaces) the chunks of one document at generation `gen`.
    pub fn put_chunks(&self, chunks: &[Chunk], gen_: u64, scope: &str) -> Result<()> {
        let mut page_stmt = self
            .tx
            .prepare_cached("INSERT INTO pages(doc, gen, scope, body) VALUES (?1, ?2, ?3, ?4)")
            .map_err(|e| self.err(e))?;
        let mut chunk_stmt = self
            .tx
            .prepare_cached(
                "INSERT OR REPLACE INTO chunks(id, doc, ordinal, gen, scope, kind, title_path, title_hash,
                 token_est, b0, b1, l0, l1, part, extra, page, off, len)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
            )
            .map_err(|e| self.err(e))?;
        let mut start = 0;
        let mut text = String::new();
        for end in 1..=chunks.len() {
            text.push_str(&chunks[end - 1].text);
            if text.len() < PAGE_BYTES && end < chunks.len() {
                continue;
            }
            let doc = &chunks[start].doc;
            let body = lz4_flex::compress_prepend_size(text.as_bytes());
            page_stmt
                .execute(params![doc, gen_ as i64, scope, body])
                .map_err(|e| self.err(e))?;
            let page = self.tx.last_insert_rowid();
            let mut off = 0;
            for (ordinal, c) in chunks.iter().enumerate().take(end).skip(start) {
                let bad = |e: serde_json::Error| {
                    Error::Invalid(format!("cannot encode chunk `{}`: {e}", c.id))
                };
                let extra = (c.symbol.is_some() || c.lang.is_some())
                    .then(|| {
                        serde_json::to_string(&Extra {
                            symbol: c.symbol.clone(),
                            lang: c.lang.clone(),
                        })
                    })
                    .transpose()
                    .map_err(bad)?;
                let tp = serde_json::to_string(&c.title_path).map_err(bad)?;
                chunk_stmt
                    .execute(params![
                        c.id,
                        c.doc,
                        ordinal as i64,
                        gen_ as i64,
                        scope,
                        c.kind.as_str(),
                        tp,
                        title_hash(&c.title_path),
                        c.token_est as i64,
                        c.bytes[0] as i64,
                        c.bytes[1] as i64,
                        c.lines[0] as i64,
                        c.lines[1] as i64,
                        c.part.map(|[i, n]| format!("{i}/{n}")),
                        extra,
                        page,
                        off as i64,
                        c.text.len() as i64,
                    ])
                    .map_err(|e| self.err(e))?;
                off += c.text.len();
            }
            start = end;
            text.clear();
        }
        Ok(())
    }

    /// Removes chunks (and pages) of `doc` written before generation `gen_`.
    pub fn drop_old_chunks(&self, doc: &str, gen_: u64) -> Result<()> {
        for sql in [
            "DELETE FROM chunks WHERE doc = ?1 AND gen < ?2",
            "DELETE FROM pages WHERE doc = ?1 AND gen < ?2",
        ] {
            self.tx
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(params![doc, gen_ as i64]))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Removes every chunk and page of `doc` (a dropped relay value).
    pub fn drop_doc(&self, doc: &str) -> Result<()> {
        for sql in [
            "DELETE FROM chunks WHERE doc = ?1",
            "DELETE FROM pages WHERE doc = ?1",
        ] {
            self.tx.execute(sql, [doc]).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Remembers where the old chunks of `doc` were before they are dropped.
    pub fn retire_old_chunks(&self, doc: &str, gen_: u64) -> Result<()> {
        self.tx
            .prepare_cached(
                // `id` is the primary key: a chunk this build wrote again was
                // replaced at generation ?2, so `gen < ?2` leaves only vanished IDs.
                "INSERT OR REPLACE INTO retired(id, doc, title_path, title_hash, gen, ordinal)
                 SELECT id, doc, title_path, title_hash, ?2, ordinal FROM chunks
                 WHERE doc = ?1 AND gen < ?2",
            )
            .and_then(|mut s| s.execute(params![doc, gen_ as i64]))
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Removes rows of a build that never committed (generation above
    /// `committed`) and marks `generation` as the one being written. The marker
    /// commits with the rows, so the two full-table deletes run only after a
    /// build died, not on every build.
    pub fn begin_generation(&self, committed: u64, generation: u64) -> Result<()> {
        let writing: Option<u64> = self
            .tx
            .query_row("SELECT value FROM meta WHERE key = 'writing'", [], |r| {
                r.get::<_, String>(0)
            })
            .optional()
            .map_err(|e| self.err(e))?
            .and_then(|v| v.parse().ok());
        if writing.is_none_or(|w| w > committed) {
            self.drop_uncommitted(committed)?;
        }
        self.set_meta("writing", &generation.to_string())
    }

    fn drop_uncommitted(&self, committed: u64) -> Result<()> {
        for sql in [
            "DELETE FROM chunks WHERE gen > ?1",
            "DELETE FROM pages WHERE gen > ?1",
        ] {
            self.tx
                .execute(sql, [committed as i64])
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Forgets every docs chunk and page older than `gen_` and every file row
    /// (a full rebuild re-records all files and wrote its chunks at `gen_`).
    pub fn drop_docs_before(&self, gen_: u64) -> Result<()> {
        for sql in [
            "DELETE FROM chunks WHERE scope = 'docs' AND gen < ?1",
            "DELETE FROM pages WHERE scope = 'docs' AND gen < ?1",
        ] {
            self.tx
                .execute(sql, [gen_ as i64])
                .map_err(|e| self.err(e))?;
        }
        self.tx
            .execute("DELETE FROM files", [])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
}
