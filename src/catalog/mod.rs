//! The SQLite catalog (`_ctx/context.db`, WAL): files, chunks, metadata.
//!
//! Relay boxes live in the same database (see [`boxes`]).
//!
//! WAL mode lets readers proceed while a build writes: a reader sees the last
//! committed transaction, never a partial one, and never waits for the writer.

pub mod boxes;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::chunk::{Chunk, id};
use crate::error::{Error, Result};

/// A file as recorded by the last committed build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRow {
    /// Size in bytes.
    pub size: u64,
    /// Modification time in ns since the epoch.
    pub mtime_ns: i64,
    /// SHA-256 of the content.
    pub sha256: String,
    /// Unicode characters.
    pub chars: usize,
}

/// Chunk metadata without the text, for listings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkMeta {
    /// Stable ID.
    pub id: String,
    /// Document path.
    pub doc: String,
    /// Heading path.
    pub title_path: Vec<String>,
    /// Token estimate.
    pub token_est: usize,
}

/// An open catalog.
pub struct Catalog {
    conn: Connection,
    path: PathBuf,
}

impl Catalog {
    /// Opens (creating if needed) the catalog for writing.
    pub fn open(path: &Path) -> Result<Catalog> {
        let conn = Connection::open(path).map_err(|e| err(path, e))?;
        let cat = Catalog {
            conn,
            path: path.to_path_buf(),
        };
        cat.conn
            .busy_timeout(Duration::from_secs(30))
            .map_err(|e| err(path, e))?;
        cat.conn
            .execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
            )
            .map_err(|e| err(path, e))?;
        cat.conn
            .execute_batch(include_str!("schema.sql"))
            .map_err(|e| err(path, e))?;
        Ok(cat)
    }

    /// Opens an existing catalog for reading only.
    pub fn open_read(path: &Path) -> Result<Catalog> {
        if !path.exists() {
            return Err(Error::NoPack {
                path: path.to_path_buf(),
            });
        }
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| err(path, e))?;
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(|e| err(path, e))?;
        Ok(Catalog {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The underlying connection (for the relay's tables).
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Maps a SQLite error to [`Error::Catalog`] for this file.
    pub fn err(&self, e: rusqlite::Error) -> Error {
        err(&self.path, e)
    }

    /// A metadata value.
    pub fn meta(&self, key: &str) -> Result<Option<String>> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Sets a metadata value.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Moves the write-ahead log into the database file and truncates it, so a
    /// big build does not leave a WAL the size of its transaction behind.
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(|e| self.err(e))
    }

    /// The committed build generation (0 before the first build).
    pub fn generation(&self) -> Result<u64> {
        Ok(self
            .meta("generation")?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    }

    /// Every file of the last committed build.
    pub fn files(&self) -> Result<HashMap<String, FileRow>> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, size, mtime_ns, sha256, chars FROM files")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    FileRow {
                        size: r.get::<_, i64>(1)? as u64,
                        mtime_ns: r.get(2)?,
                        sha256: r.get(3)?,
                        chars: r.get::<_, i64>(4)? as usize,
                    },
                ))
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// Runs `f` in one transaction, committing when it returns `Ok`.
    pub fn transaction<T>(&mut self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| err(&path, e))?;
        let out = f(&Tx {
            tx: &tx,
            path: &path,
        })?;
        tx.commit().map_err(|e| err(&path, e))?;
        Ok(out)
    }

    /// A chunk by ID.
    pub fn chunk(&self, id: &str) -> Result<Option<Chunk>> {
        let row: Option<(String, Vec<u8>)> = self
            .conn
            .query_row("SELECT meta, body FROM chunks WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(|e| self.err(e))?;
        row.map(|(m, b)| decode(&self.path, &m, &b)).transpose()
    }

    /// The chunk now at the same document and heading path as a vanished ID.
    pub fn chunk_at(&self, doc: &str, title_path: &[String]) -> Result<Option<Chunk>> {
        let row: Option<(String, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT meta, body FROM chunks WHERE doc = ?1 AND title_hash = ?2 ORDER BY ordinal LIMIT 1",
                params![doc, title_hash(title_path)],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        row.map(|(m, b)| decode(&self.path, &m, &b)).transpose()
    }

    /// Where a retired ID was: `(doc, title_path)`.
    pub fn retired(&self, id: &str) -> Result<Option<(String, Vec<String>)>> {
        self.conn
            .query_row(
                "SELECT doc, title_path FROM retired WHERE id = ?1",
                [id],
                |r| {
                    let tp: String = r.get(1)?;
                    Ok((r.get(0)?, serde_json::from_str(&tp).unwrap_or_default()))
                },
            )
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

    /// Metadata of every committed chunk in `scope`, in document order.
    pub fn chunk_metas(&self, scope: &str) -> Result<Vec<ChunkMeta>> {
        self.metas(
            "SELECT id, doc, title_path, token_est FROM chunks WHERE scope = ?1 ORDER BY doc, ordinal",
            params![scope],
        )
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
    pub fn for_each_chunk(&self, mut f: impl FnMut(&Chunk) -> Result<()>) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare("SELECT meta, body FROM chunks WHERE scope = 'docs' ORDER BY doc, ordinal")
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let meta = row
                .get_ref(0)
                .and_then(|v| Ok(v.as_str()?))
                .map_err(|e| self.err(e))?;
            let body = row
                .get_ref(1)
                .and_then(|v| Ok(v.as_blob()?))
                .map_err(|e| self.err(e))?;
            f(&decode(&self.path, meta, body)?)?;
        }
        Ok(())
    }

    /// Code chunks whose metadata mentions `needle` (case-insensitive); the
    /// caller filters on the parsed symbol.
    pub fn code_chunks_mentioning(&self, needle: &str) -> Result<Vec<Chunk>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT meta, body FROM chunks WHERE scope = 'docs' AND instr(meta, '\"symbol\"') > 0
                 AND instr(lower(meta), lower(?1)) > 0 ORDER BY doc, ordinal",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([needle], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?))
            })
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (meta, body) = row.map_err(|e| self.err(e))?;
            out.push(decode(&self.path, &meta, &body)?);
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
}

/// A write transaction.
pub struct Tx<'a> {
    tx: &'a rusqlite::Transaction<'a>,
    path: &'a Path,
}

impl Tx<'_> {
    pub(crate) fn err(&self, e: rusqlite::Error) -> Error {
        err(self.path, e)
    }

    /// The raw transaction (for the relay's tables).
    pub fn conn(&self) -> &Connection {
        self.tx
    }

    /// Inserts (or replaces) the chunks of one document at generation `gen`.
    pub fn put_chunks(&self, chunks: &[Chunk], gen_: u64, scope: &str) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT OR REPLACE INTO chunks(id, doc, ordinal, gen, title_path, title_hash, token_est, scope, meta, body)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )
            .map_err(|e| self.err(e))?;
        for (ordinal, c) in chunks.iter().enumerate() {
            let bad = |e: serde_json::Error| {
                Error::Invalid(format!("cannot encode chunk `{}`: {e}", c.id))
            };
            let meta = serde_json::to_string(&Chunk {
                text: String::new(),
                ..c.clone()
            })
            .map_err(bad)?;
            let tp = serde_json::to_string(&c.title_path).map_err(bad)?;
            let body = lz4_flex::compress_prepend_size(c.text.as_bytes());
            stmt.execute(params![
                c.id,
                c.doc,
                ordinal as i64,
                gen_ as i64,
                tp,
                title_hash(&c.title_path),
                c.token_est as i64,
                scope,
                meta,
                body
            ])
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Removes chunks of `doc` written before generation `gen_`.
    pub fn drop_old_chunks(&self, doc: &str, gen_: u64) -> Result<()> {
        self.tx
            .prepare_cached("DELETE FROM chunks WHERE doc = ?1 AND gen < ?2")
            .and_then(|mut s| s.execute(params![doc, gen_ as i64]))
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Remembers where the old chunks of `doc` were before they are dropped.
    pub fn retire_old_chunks(&self, doc: &str, gen_: u64) -> Result<()> {
        self.tx
            .prepare_cached(
                // `id` is the primary key: a chunk this build wrote again was
                // replaced at generation ?2, so `gen < ?2` leaves only vanished IDs.
                "INSERT OR REPLACE INTO retired(id, doc, title_path, title_hash, gen)
                 SELECT id, doc, title_path, title_hash, ?2 FROM chunks
                 WHERE doc = ?1 AND gen < ?2",
            )
            .and_then(|mut s| s.execute(params![doc, gen_ as i64]))
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Removes rows of builds that never committed (generation above `committed`).
    pub fn drop_uncommitted(&self, committed: u64) -> Result<()> {
        self.tx
            .execute("DELETE FROM chunks WHERE gen > ?1", [committed as i64])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Records a file as of this build.
    pub fn put_file(&self, path: &str, row: &FileRow) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO files(path, size, mtime_ns, sha256, chars) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    path,
                    row.size as i64,
                    row.mtime_ns,
                    row.sha256,
                    row.chars as i64
                ])
            })
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Forgets a removed file.
    pub fn drop_file(&self, path: &str) -> Result<()> {
        self.tx
            .execute("DELETE FROM files WHERE path = ?1", [path])
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Forgets every docs chunk older than `gen_` and every file row (a full
    /// rebuild re-records all files and wrote its chunks at `gen_`).
    pub fn drop_docs_before(&self, gen_: u64) -> Result<()> {
        self.tx
            .execute(
                "DELETE FROM chunks WHERE scope = 'docs' AND gen < ?1",
                [gen_ as i64],
            )
            .and_then(|_| self.tx.execute("DELETE FROM files", []))
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Sets a metadata value inside the transaction.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        self.tx
            .execute(
                "INSERT INTO meta(key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
}

fn decode(path: &Path, meta: &str, body: &[u8]) -> Result<Chunk> {
    let bad = |message: String| Error::BadPack {
        path: path.to_path_buf(),
        message: format!(
            "a catalog chunk row is damaged ({message}); rebuild with `ctx build --full`"
        ),
    };
    let mut chunk: Chunk = serde_json::from_str(meta).map_err(|e| bad(e.to_string()))?;
    let text = lz4_flex::decompress_size_prepended(body).map_err(|e| bad(e.to_string()))?;
    chunk.text = String::from_utf8(text).map_err(|e| bad(e.to_string()))?;
    Ok(chunk)
}

/// 63-bit hash of the normalized title path (indexed instead of the string).
pub fn title_hash(title_path: &[String]) -> i64 {
    let hex = crate::hash::sha1_hex(id::normalize_title_path(title_path).as_bytes());
    i64::from_str_radix(&hex[..15], 16).unwrap_or(0)
}

fn err(path: &Path, source: rusqlite::Error) -> Error {
    Error::Catalog {
        path: path.to_path_buf(),
        source,
    }
}
