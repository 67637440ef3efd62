//! The SQLite catalog (`_ctx/context.db`, WAL): files, chunks, metadata.
//!
//! Relay boxes live in the same database (see [`boxes`]).
//!
//! WAL mode lets readers proceed while a build writes: a reader sees the last
//! committed transaction, never a partial one, and never waits for the writer.

pub mod boxes;
mod chunk_writes;
mod chunks;
mod places;
mod skipped;
mod spans;

pub use chunks::{ChunkReader, RawMeta, Retired};
pub use skipped::Skip;
pub use spans::PackSpan;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::chunk::{ChunkNote, id};
use crate::error::{Error, Result};
use crate::sources::Package;

/// Meta key of the package directories, one per line.
const PACKAGES_KEY: &str = "packages";

/// The catalog layout this ctx writes (`PRAGMA user_version`).
const LAYOUT: i64 = 9;

/// Older layouts a reader can use as they are: layout 8 only added an index
/// that builds use, and layout 9 where a retired ID stood among its
/// document's chunks (without it a stale ID is sent to the first chunk at its
/// heading), so `--no-build` commands need not ask for a build first.
const ALSO_READS: [i64; 2] = [7, 8];

/// Layouts that lack only tables, columns and indexes added since, brought
/// up in place.
const IN_PLACE: [i64; 3] = [5, 7, 8];

/// Share of the catalog's pages that may be free before a build compacts it
/// ([`Catalog::compact_if_sparse`]). Free pages are reused by the next build,
/// so a few edited files' worth is left alone; a full rebuild frees a third.
const SPARSE_SHARE: f64 = 0.25;

/// Free pages (4 KiB each) below which a catalog is never compacted: a small
/// catalog gains little from it.
const SPARSE_MIN_PAGES: u64 = 64;

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
    /// What chunking it noted (syntax errors, a fallback to lines), which
    /// later builds report again while the file is unchanged.
    pub notes: Vec<ChunkNote>,
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
    /// Its layout, [`LAYOUT`] or one of [`ALSO_READS`].
    layout: i64,
}

impl Catalog {
    /// Opens (creating if needed) the catalog for writing.
    pub fn open(path: &Path) -> Result<Catalog> {
        let conn = Connection::open(path).map_err(|e| err(path, e))?;
        let cat = Catalog {
            conn,
            path: path.to_path_buf(),
            layout: LAYOUT,
        };
        cat.conn
            .busy_timeout(Duration::from_secs(30))
            .map_err(|e| err(path, e))?;
        cat.conn
            .execute_batch(
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;
                 PRAGMA mmap_size=1073741824; PRAGMA cache_size=-65536;",
            )
            .map_err(|e| err(path, e))?;
        cat.migrate().map_err(|e| err(path, e))?;
        Ok(cat)
    }

    /// Brings an older layout to [`LAYOUT`]. Everything but relay boxes is
    /// derived data: it is dropped (tables and all, so a table whose columns
    /// changed is made anew) and the next build is a full one. The layouts of
    /// [`IN_PLACE`] lack only tables, columns and indexes added since, so they
    /// are brought up in place.
    fn migrate(&self) -> rusqlite::Result<()> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version == LAYOUT {
            return Ok(());
        }
        let has_chunks: bool = self.conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'chunks'",
            [],
            |r| r.get(0),
        )?;
        // Layout 7 added the `skipped` table and `files.notes`, layout 8 the
        // `pages_by_scope` index, layout 9 `retired.ordinal`; the schema
        // below creates the missing tables and indexes.
        if has_chunks && version == 5 {
            self.conn
                .execute_batch("ALTER TABLE files ADD COLUMN notes TEXT;")?;
        }
        if has_chunks && IN_PLACE.contains(&version) {
            // A migration cut short before the version was written runs again.
            let added: bool = self.conn.query_row(
                "SELECT count(*) > 0 FROM pragma_table_info('retired') WHERE name = 'ordinal'",
                [],
                |r| r.get(0),
            )?;
            if !added {
                self.conn
                    .execute_batch("ALTER TABLE retired ADD COLUMN ordinal INTEGER;")?;
            }
        } else if has_chunks {
            self.conn.execute_batch(
                "BEGIN;
                 DROP TABLE IF EXISTS chunks;
                 DROP TABLE IF EXISTS pages;
                 DROP TABLE IF EXISTS retired;
                 DROP TABLE IF EXISTS pack_spans;
                 DROP TABLE IF EXISTS files;
                 DROP TABLE IF EXISTS skipped;
                 DELETE FROM meta WHERE key IN ('settings', 'pack_generation', 'skip_limit');
                 COMMIT;",
            )?;
        }
        self.conn.execute_batch(include_str!("schema.sql"))?;
        self.conn
            .execute_batch(&format!("PRAGMA user_version = {LAYOUT};"))
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
        // Reads through the mapping instead of one pread per 4 KB page.
        conn.execute_batch("PRAGMA mmap_size=1073741824;")
            .map_err(|e| err(path, e))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| err(path, e))?;
        if version != LAYOUT && !ALSO_READS.contains(&version) {
            return Err(Error::OldCatalog {
                path: path.to_path_buf(),
                found: version,
                reads: LAYOUT,
            });
        }
        Ok(Catalog {
            conn,
            path: path.to_path_buf(),
            layout: version,
        })
    }

    /// Makes this connection refuse writes from now on (`PRAGMA query_only`),
    /// for a build's connection a search goes on reading through.
    pub fn read_only(&self) -> Result<()> {
        self.conn
            .execute_batch("PRAGMA query_only=1;")
            .map_err(|e| self.err(e))
    }

    /// Whether retired IDs record where they stood ([`LAYOUT`] 9).
    fn retired_ordinals(&self) -> bool {
        self.layout >= 9
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
        put_meta(&self.conn, key, value).map_err(|e| self.err(e))
    }

    /// The package directories the last build's walk found (see
    /// [`crate::sources::Walked::packages`]).
    pub fn packages(&self) -> Result<Vec<Package>> {
        Ok(self
            .meta(PACKAGES_KEY)?
            .map(|v| v.lines().map(Package::from_line).collect())
            .unwrap_or_default())
    }

    /// Records the package directories a walk found, when they changed.
    pub fn set_packages(&self, packages: &[Package]) -> Result<()> {
        if self.packages()? != packages {
            let lines: Vec<String> = packages.iter().map(Package::to_line).collect();
            self.set_meta(PACKAGES_KEY, &lines.join("\n"))?;
        }
        Ok(())
    }

    /// Moves the write-ahead log into the database file and truncates it, so a
    /// big build does not leave a WAL the size of its transaction behind.
    pub fn checkpoint(&self) -> Result<()> {
        self.conn
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE);")
            .map_err(|e| self.err(e))
    }

    /// Rewrites the catalog without its free pages (`VACUUM`) when they are
    /// more than [`SPARSE_SHARE`] of the file; returns whether it did.
    ///
    /// A build writes its rows beside the previous generation's, which searches
    /// of the old index snapshot still read, and drops the old ones after the
    /// index commits: after a full rebuild a third of the file is free pages,
    /// which SQLite reuses but never returns. Readers are not blocked: in WAL
    /// mode they keep the snapshot they started with.
    pub fn compact_if_sparse(&self) -> Result<bool> {
        let count = |pragma: &str| -> Result<u64> {
            self.conn
                .query_row(pragma, [], |r| r.get::<_, i64>(0))
                .map(|n| n.max(0) as u64)
                .map_err(|e| self.err(e))
        };
        let free = count("PRAGMA freelist_count")?;
        let pages = count("PRAGMA page_count")?;
        if free < SPARSE_MIN_PAGES || (free as f64) <= SPARSE_SHARE * pages as f64 {
            return Ok(false);
        }
        self.conn
            .execute_batch("VACUUM;")
            .map_err(|e| self.err(e))?;
        Ok(true)
    }

    /// Leaves checkpoints to [`Catalog::checkpoint`] and
    /// [`Catalog::checkpoint_passive`] for the life of this connection. At the
    /// commit of a build's rows SQLite would copy the whole WAL into the
    /// database file there and then, while the index is being built on every
    /// core; a build does it later, beside the pack writer, which leaves a
    /// core idle.
    pub fn defer_checkpoints(&self) -> Result<()> {
        self.conn
            .execute_batch("PRAGMA wal_autocheckpoint=0;")
            .map_err(|e| self.err(e))
    }

    /// Copies what it can of the WAL of the catalog at `path` into the
    /// database file on a connection of its own, without waiting for or
    /// blocking readers and writers (a passive checkpoint). Best effort, so
    /// failures are ignored: the WAL stays readable, and [`Catalog::checkpoint`]
    /// finishes the job.
    pub fn checkpoint_passive(path: &Path) {
        if let Ok(conn) = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        ) {
            let _ = conn.execute_batch("PRAGMA wal_checkpoint(PASSIVE);");
        }
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
            .prepare("SELECT path, size, mtime_ns, sha256, chars, notes FROM files")
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
                        // Notes are a report, not data: unreadable ones are none.
                        notes: r
                            .get::<_, Option<String>>(5)?
                            .and_then(|j| serde_json::from_str(&j).ok())
                            .unwrap_or_default(),
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

    /// Records a file as of this build.
    pub fn put_file(&self, path: &str, row: &FileRow) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO files(path, size, mtime_ns, sha256, chars, notes) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .and_then(|mut s| {
                let notes = match row.notes.as_slice() {
                    [] => None,
                    notes => serde_json::to_string(notes).ok(),
                };
                s.execute(params![
                    path,
                    row.size as i64,
                    row.mtime_ns,
                    row.sha256,
                    row.chars as i64,
                    notes
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

    /// Sets a metadata value inside the transaction.
    pub fn set_meta(&self, key: &str, value: &str) -> Result<()> {
        put_meta(self.tx, key, value).map_err(|e| self.err(e))
    }
}

/// Inserts or replaces one metadata row.
fn put_meta(conn: &Connection, key: &str, value: &str) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO meta(key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )
    .map(|_| ())
}

/// 63-bit hash of the normalized title path (indexed instead of the string).
pub fn title_hash(title_path: &[String]) -> i64 {
    let hex = crate::hash::sha1_hex(id::normalize_title_path(title_path).as_bytes());
    i64::from_str_radix(&hex[..15], 16).unwrap_or(0)
}

fn err(path: &Path, source: rusqlite::Error) -> Error {
    use rusqlite::ErrorCode::{DatabaseCorrupt, NotADatabase};
    match source.sqlite_error_code() {
        Some(DatabaseCorrupt | NotADatabase) => Error::DamagedCatalog {
            path: path.to_path_buf(),
            message: source.to_string(),
        },
        _ => Error::Catalog {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// Renames the damaged catalog at `path` (and its WAL and shared-memory
/// files) to `<name>.damaged…`, replacing an earlier one, so a new catalog can
/// be made and nothing is deleted.
pub fn set_aside(path: &Path) -> Result<PathBuf> {
    let aside = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    for ext in ["", "-wal", "-shm"] {
        let from = aside(ext);
        if from.exists() {
            let to = aside(&format!(".damaged{ext}"));
            std::fs::rename(&from, &to).map_err(|e| Error::io("cannot rename", &from, e))?;
        }
    }
    Ok(aside(".damaged"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_connection_made_read_only_still_reads_and_refuses_writes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let catalog = Catalog::open(&dir.path().join("context.db")).expect("open");
        catalog.set_meta("key", "one").expect("write");
        catalog.read_only().expect("read-only");
        assert_eq!(catalog.meta("key").expect("read").as_deref(), Some("one"));
        assert!(catalog.set_meta("key", "two").is_err());
        assert_eq!(catalog.meta("key").expect("read").as_deref(), Some("one"));
    }
}
