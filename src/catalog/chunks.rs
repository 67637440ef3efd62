//! Chunk rows and the pages that hold their text, and reading them (a build
//! writes them through [`super::Tx`], in `chunk_writes.rs`).
//!
//! A chunk row keeps its metadata in columns and points into a *page*: the
//! concatenated text of consecutive chunks of one document, LZ4-compressed
//! together. Compressing ~32 KB at a time instead of each chunk alone roughly
//! halves the stored text, and a lookup still decompresses only one page.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use super::{Catalog, ChunkMeta, title_hash};
use crate::chunk::{Chunk, ChunkKind, Symbol, id};
use crate::error::{Error, Result};

/// The columns [`decode_row`] reads, in order.
const COLUMNS: &str =
    "id, doc, title_path, kind, token_est, b0, b1, l0, l1, part, extra, page, off, len";

/// The chunk fields that only some chunks have, stored as one JSON value.
#[derive(Serialize, Deserialize, Default)]
pub(super) struct Extra {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) symbol: Option<Symbol>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) lang: Option<String>,
}

/// A chunk's metadata as stored, borrowed from the row.
pub struct RawMeta<'a> {
    /// Stable ID.
    pub id: &'a str,
    /// Document path.
    pub doc: &'a str,
    /// Heading path as a JSON array.
    pub title_path_json: &'a str,
    /// Token estimate.
    pub token_est: usize,
    /// Build generation that wrote the chunk.
    pub gen_: u64,
}

/// Where a retired chunk ID stood ([`Catalog::retired`]).
#[derive(Debug, Clone)]
pub struct Retired {
    /// Its document.
    pub doc: String,
    /// Its heading path.
    pub title_path: Vec<String>,
    /// Its place among its document's chunks, when the catalog recorded it.
    pub ordinal: Option<i64>,
}

/// A chunk row before its page is read.
struct Stored {
    chunk: Chunk,
    page: i64,
    off: usize,
    len: usize,
}

/// The last few pages decompressed, so readers walking a document, or reading
/// several hits of one document, pay once per page. A cache lives for one
/// read only: page rowids can be reused once a build drops a page.
#[derive(Default)]
struct PageCache {
    /// `(page id, text)`, the oldest replaced first.
    pages: Vec<(i64, Vec<u8>)>,
    next: usize,
}

/// Pages a [`PageCache`] holds: a search's hits come from a handful of
/// documents, and a page is ~32 KB.
const CACHED_PAGES: usize = 4;

/// Chunks read by ID from one committed state of the catalog (see
/// [`Catalog::read_chunks`]).
pub struct ChunkReader<'a> {
    cat: &'a Catalog,
    cache: PageCache,
}

/// A chunk whose text is not read yet: [`ChunkReader::text`] reads it, from
/// a page that may have to be decompressed.
pub struct Unread(Stored);

impl Unread {
    /// The chunk's metadata; its `text` is empty.
    pub fn meta(&self) -> &Chunk {
        &self.0.chunk
    }

    /// The chunk without its text, for a reader that decided not to need it.
    pub fn into_meta(self) -> Chunk {
        self.0.chunk
    }
}

impl ChunkReader<'_> {
    /// A chunk by ID before its text is read: a search weighs more candidates
    /// than it keeps, and most of them need only their place.
    pub fn unread(&mut self, id: &str) -> Result<Option<Unread>> {
        let sql = format!("SELECT {COLUMNS} FROM chunks WHERE id = ?1");
        Ok(self.cat.stored(&sql, [id])?.map(Unread))
    }

    /// `u` with its text, its `text_sha256` left empty.
    pub fn text(&mut self, u: Unread) -> Result<Chunk> {
        self.cat.with_text_unhashed(u.0, &mut self.cache)
    }

    /// The chunks with these IDs that exist, in document order, so each page
    /// is decompressed once however the IDs are ordered (IDs in index order
    /// visit a page many times, past what the cache holds); their
    /// `text_sha256` left empty, as [`ChunkReader::text`] leaves it.
    pub fn chunks(&mut self, ids: &[String]) -> Result<Vec<Chunk>> {
        let (cat, cache) = (self.cat, &mut self.cache);
        cat.rows_by_id(ids, |stored| cat.with_text_unhashed(stored, cache))
    }
}

impl Catalog {
    /// Calls `f` with a reader of chunks by ID. Its reads share one read
    /// transaction, so they see one committed state even while a build
    /// commits, and each page they touch is decompressed once.
    pub fn read_chunks<T>(&self, f: impl FnOnce(&mut ChunkReader<'_>) -> Result<T>) -> Result<T> {
        // Ended (rolled back; it wrote nothing) when dropped.
        let tx = self.conn.unchecked_transaction().map_err(|e| self.err(e))?;
        let out = f(&mut ChunkReader {
            cat: self,
            cache: PageCache::default(),
        });
        drop(tx);
        out
    }

    /// A chunk by ID.
    pub fn chunk(&self, id: &str) -> Result<Option<Chunk>> {
        let sql = format!("SELECT {COLUMNS} FROM chunks WHERE id = ?1");
        self.one(&sql, params![id])
    }

    /// The chunk now at the same document and heading path as a vanished ID.
    pub fn chunk_at(
        &self,
        doc: &str,
        title_path: &[String],
        ordinal: Option<i64>,
    ) -> Result<Option<Chunk>> {
        // Of several chunks at the path, the one nearest where the retired one
        // stood; on a tie the later, as a chunk added above pushes it down.
        let sql = format!(
            "SELECT {COLUMNS} FROM chunks WHERE doc = ?1 AND title_hash = ?2
             ORDER BY abs(ordinal - coalesce(?3, 0)), ordinal DESC LIMIT 1"
        );
        self.one(&sql, params![doc, title_hash(title_path), ordinal])
    }

    fn one(&self, sql: &str, p: impl rusqlite::Params) -> Result<Option<Chunk>> {
        self.stored(sql, p)?
            .map(|s| self.with_text(s, &mut PageCache::default()))
            .transpose()
    }

    /// The one row `sql` selects, before its text is read from its page.
    fn stored(&self, sql: &str, p: impl rusqlite::Params) -> Result<Option<Stored>> {
        self.conn
            .prepare_cached(sql)
            .and_then(|mut s| s.query_row(p, decode_row).optional())
            .map_err(|e| self.err(e))
    }

    /// Where a retired ID was: its document, heading path and place in the
    /// document (unknown in catalogs of layouts before 9).
    pub fn retired(&self, id: &str) -> Result<Option<Retired>> {
        let sql = if self.retired_ordinals() {
            "SELECT doc, title_path, ordinal FROM retired WHERE id = ?1"
        } else {
            "SELECT doc, title_path, NULL FROM retired WHERE id = ?1"
        };
        self.conn
            .query_row(sql, [id], |r| {
                let tp: String = r.get(1)?;
                Ok(Retired {
                    doc: r.get(0)?,
                    title_path: serde_json::from_str(&tp).unwrap_or_default(),
                    ordinal: r.get(2)?,
                })
            })
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Chunks whose ID starts with the given stem (for suggestions).
    pub fn ids_with_stem(&self, stem: &str, limit: usize) -> Result<Vec<ChunkMeta>> {
        self.metas(
            "SELECT id, doc, title_path, token_est FROM chunks WHERE id >= ?1 AND id < ?2 ORDER BY doc, ordinal LIMIT ?3",
            params![format!("{stem}:"), format!("{stem};"), limit as i64],
        )
    }

    /// Indexed documents whose path is `name` or ends with `/name`, sorted.
    pub fn docs_named(&self, name: &str) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT doc FROM chunks WHERE scope = 'docs' AND (doc = ?1
                 OR (length(doc) > length(?1) AND substr(doc, -length(?1) - 1) = '/' || ?1))
                 ORDER BY doc",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![name], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Calls `f` with the metadata of each chunk matching `cond`, in document
    /// order, leaving title paths as the stored JSON (the pack copies them).
    pub(super) fn for_each_meta_where(
        &self,
        cond: &str,
        p: impl rusqlite::Params,
        mut f: impl FnMut(RawMeta<'_>) -> Result<()>,
    ) -> Result<()> {
        let sql = format!(
            "SELECT id, doc, title_path, token_est, gen FROM chunks WHERE {cond} ORDER BY doc, ordinal"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query(p).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let text = |i: usize| -> Result<&str> {
                r.get_ref(i)
                    .and_then(|v| Ok(v.as_str()?))
                    .map_err(|e| self.err(e))
            };
            let int = |i: usize| -> Result<i64> { r.get(i).map_err(|e| self.err(e)) };
            f(RawMeta {
                id: text(0)?,
                doc: text(1)?,
                title_path_json: text(2)?,
                token_est: int(3)? as usize,
                gen_: int(4)? as u64,
            })?;
        }
        Ok(())
    }

    fn metas(&self, sql: &str, p: impl rusqlite::Params) -> Result<Vec<ChunkMeta>> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(p, |r| {
                let tp: String = r.get(2)?;
                Ok(ChunkMeta {
                    id: r.get(0)?,
                    doc: r.get(1)?,
                    title_path: serde_json::from_str(&tp).unwrap_or_default(),
                    token_est: r.get::<_, i64>(3)? as usize,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Calls `f` with every `docs` chunk in document order.
    pub fn for_each_chunk(&self, f: impl FnMut(&Chunk) -> Result<()>) -> Result<()> {
        self.for_each_chunk_where("scope = 'docs'", [], f)
    }

    /// Calls `f` with each chunk of `doc` in order.
    pub fn for_each_chunk_of(&self, doc: &str, f: impl FnMut(&Chunk) -> Result<()>) -> Result<()> {
        self.for_each_chunk_where("doc = ?1 AND scope = 'docs'", params![doc], f)
    }

    /// The text of each of `docs` outside its symbols (imports, module
    /// docs), its chunks joined by newlines: what a file's imports are read
    /// from. One query in document order, so each page is decompressed
    /// once; symbol chunks are neither decoded nor read. A document with no
    /// such chunk has no entry.
    pub fn outside_symbols(&self, docs: &[&str]) -> Result<HashMap<String, String>> {
        let docs = serde_json::to_string(docs)
            .map_err(|e| Error::Invalid(format!("cannot encode document paths: {e}")))?;
        let sql = format!(
            "SELECT {COLUMNS} FROM chunks WHERE doc IN (SELECT value FROM json_each(?1)) \
             AND scope = 'docs' AND (extra IS NULL OR instr(extra, '\"symbol\"') = 0) \
             ORDER BY doc, ordinal"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([docs]).map_err(|e| self.err(e))?;
        let mut cache = PageCache::default();
        let mut out: HashMap<String, String> = HashMap::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let stored = decode_row(row).map_err(|e| self.err(e))?;
            let chunk = self.with_text_unhashed(stored, &mut cache)?;
            let text = out.entry(chunk.doc).or_default();
            text.push_str(&chunk.text);
            text.push('\n');
        }
        Ok(out)
    }

    /// Calls `f` with the metadata of each chunk of `doc` in order.
    pub fn for_each_meta_of(
        &self,
        doc: &str,
        f: impl FnMut(RawMeta<'_>) -> Result<()>,
    ) -> Result<()> {
        self.for_each_meta_where("doc = ?1 AND scope = 'docs'", params![doc], f)
    }

    /// Calls `f` with each chunk matching `cond`, in document order.
    pub(super) fn for_each_chunk_where(
        &self,
        cond: &str,
        p: impl rusqlite::Params,
        mut f: impl FnMut(&Chunk) -> Result<()>,
    ) -> Result<()> {
        let sql = format!("SELECT {COLUMNS} FROM chunks WHERE {cond} ORDER BY doc, ordinal");
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query(p).map_err(|e| self.err(e))?;
        let mut cache = PageCache::default();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let stored = decode_row(row).map_err(|e| self.err(e))?;
            f(&self.with_text(stored, &mut cache)?)?;
        }
        Ok(())
    }

    /// The chunks with these IDs that still exist, in document order, their
    /// `text_sha256` left empty (a symbol lookup reads thousands for a
    /// common name, and no reader of them checks it).
    pub fn chunks_by_id(&self, ids: &[String]) -> Result<Vec<Chunk>> {
        let mut cache = PageCache::default();
        self.rows_by_id(ids, |stored| self.with_text_unhashed(stored, &mut cache))
    }

    /// The chunks with these IDs that still exist, in document order,
    /// without their text: for questions about their symbols alone.
    pub fn symbols_by_id(&self, ids: &[String]) -> Result<Vec<Chunk>> {
        self.rows_by_id(ids, |stored| Ok(stored.chunk))
    }

    /// The rows with these IDs, in document order, each made a chunk by `make`.
    fn rows_by_id(
        &self,
        ids: &[String],
        mut make: impl FnMut(Stored) -> Result<Chunk>,
    ) -> Result<Vec<Chunk>> {
        let ids = serde_json::to_string(ids)
            .map_err(|e| Error::Invalid(format!("cannot encode chunk IDs: {e}")))?;
        let sql = format!(
            "SELECT {COLUMNS} FROM chunks WHERE id IN (SELECT value FROM json_each(?1))
             ORDER BY doc, ordinal"
        );
        let mut out = Vec::new();
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([ids]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            out.push(make(decode_row(row).map_err(|e| self.err(e))?)?);
        }
        Ok(out)
    }

    /// Counts and sizes for `ctx stats`.
    pub fn counts(&self) -> Result<(usize, usize, usize)> {
        self.conn
            .query_row(
                "SELECT (SELECT count(*) FROM files), count(*), coalesce(sum(token_est), 0) FROM chunks WHERE scope = 'docs'",
                [],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)? as usize,
                        r.get::<_, i64>(1)? as usize,
                        r.get::<_, i64>(2)? as usize,
                    ))
                },
            )
            .map_err(|e| self.err(e))
    }

    /// Fills in the text of a row from its page, and its hash.
    fn with_text(&self, s: Stored, cache: &mut PageCache) -> Result<Chunk> {
        let mut chunk = self.with_text_unhashed(s, cache)?;
        chunk.text_sha256 = id::text_sha256(&chunk.text);
        Ok(chunk)
    }

    /// Fills in the text of a row from its page.
    fn with_text_unhashed(&self, s: Stored, cache: &mut PageCache) -> Result<Chunk> {
        let at = match cache.pages.iter().position(|(id, _)| *id == s.page) {
            Some(at) => at,
            None => {
                let text = self
                    .conn
                    .prepare_cached("SELECT body FROM pages WHERE id = ?1")
                    .and_then(|mut st| {
                        st.query_row([s.page], |r| {
                            // Decompressed straight from SQLite's buffer.
                            Ok(lz4_flex::decompress_size_prepended(
                                r.get_ref(0)?.as_blob()?,
                            ))
                        })
                    })
                    .map_err(|e| self.err(e))?
                    .map_err(|e| self.damaged(&s.chunk.id, &e.to_string()))?;
                if cache.pages.len() < CACHED_PAGES {
                    cache.pages.push((s.page, text));
                    cache.pages.len() - 1
                } else {
                    let at = cache.next;
                    cache.pages[at] = (s.page, text);
                    cache.next = (at + 1) % CACHED_PAGES;
                    at
                }
            }
        };
        let bytes = cache.pages[at]
            .1
            .get(s.off..s.off + s.len)
            .ok_or_else(|| self.damaged(&s.chunk.id, "text range outside its page"))?;
        let text = std::str::from_utf8(bytes)
            .map_err(|e| self.damaged(&s.chunk.id, &e.to_string()))?
            .to_string();
        let mut chunk = s.chunk;
        chunk.text = text;
        Ok(chunk)
    }

    fn damaged(&self, id: &str, message: &str) -> Error {
        Error::BadPack {
            path: self.path.clone(),
            message: format!(
                "the catalog row of `{id}` is damaged ({message}); rebuild with `ctx build --full`"
            ),
        }
    }
}

/// Reads the [`COLUMNS`] of one row.
fn decode_row(r: &Row<'_>) -> rusqlite::Result<Stored> {
    let bad = |i: usize, e: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into())
    };
    let tp: String = r.get(2)?;
    let kind: String = r.get(3)?;
    let part: Option<String> = r.get(9)?;
    let extra: Option<String> = r.get(10)?;
    let extra: Extra = match extra {
        Some(e) => serde_json::from_str(&e).map_err(|e| bad(10, e.to_string()))?,
        None => Extra::default(),
    };
    let part = part
        .map(|p| {
            p.split_once('/')
                .and_then(|(i, n)| Some([i.parse().ok()?, n.parse().ok()?]))
                .ok_or_else(|| bad(9, format!("bad part `{p}`")))
        })
        .transpose()?;
    let int = |i: usize| -> rusqlite::Result<usize> { Ok(r.get::<_, i64>(i)? as usize) };
    Ok(Stored {
        chunk: Chunk {
            id: r.get(0)?,
            doc: r.get(1)?,
            title_path: serde_json::from_str(&tp).map_err(|e| bad(2, e.to_string()))?,
            text: String::new(),
            bytes: [int(5)?, int(6)?],
            lines: [int(7)?, int(8)?],
            kind: ChunkKind::parse(&kind).ok_or_else(|| bad(3, format!("bad kind `{kind}`")))?,
            token_est: int(4)?,
            text_sha256: String::new(),
            part,
            symbol: extra.symbol,
            lang: extra.lang,
        },
        page: r.get(11)?,
        off: int(12)?,
        len: int(13)?,
    })
}
