//! Vectors already computed, kept on disk (`_ctx/vectors.db`) so that a
//! section or question encoded once costs a lookup the next time.
//!
//! The cache is an optimisation and nothing depends on it: when it cannot be
//! opened or written (a read-only pack, a full disk, a writer holding it), the
//! re-ranker encodes as if it were empty. Entries are keyed by the model's
//! fingerprint and the SHA-256 of the exact text encoded, so an edited section
//! simply misses; the oldest entries go once the cache holds [`CAPACITY`].

use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, params};
use sha2::{Digest, Sha256};

/// Most vectors kept (about 60 MB for a 384-dimension model).
pub const CAPACITY: i64 = 40_000;

/// Longest a search waits for another process writing the cache.
const BUSY: Duration = Duration::from_millis(250);

/// An open vector cache.
pub struct VectorCache {
    conn: Connection,
}

/// The key of `text`: its SHA-256.
pub fn key(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

impl VectorCache {
    /// Opens (creating if needed) the cache at `path`; `None` when it cannot.
    pub fn open(path: &Path) -> Option<VectorCache> {
        let conn = Connection::open(path).ok()?;
        conn.busy_timeout(BUSY).ok()?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS vectors (
                 model TEXT NOT NULL,
                 key BLOB NOT NULL,
                 vec BLOB NOT NULL
             );
             CREATE UNIQUE INDEX IF NOT EXISTS vectors_key ON vectors (model, key);",
        )
        .ok()?;
        Some(VectorCache { conn })
    }

    /// The cached vectors of `keys` under `model`, `None` where absent.
    pub fn get(&self, model: &str, keys: &[[u8; 32]]) -> Vec<Option<Vec<f32>>> {
        let Ok(mut stmt) = self
            .conn
            .prepare_cached("SELECT vec FROM vectors WHERE model = ?1 AND key = ?2")
        else {
            return vec![None; keys.len()];
        };
        keys.iter()
            .map(|k| {
                stmt.query_row(params![model, &k[..]], |r| r.get::<_, Vec<u8>>(0))
                    .ok()
                    .and_then(|b| decode(&b))
            })
            .collect()
    }

    /// Stores `entries` under `model` in one transaction, then drops the
    /// oldest entries past [`CAPACITY`]. Failure only loses the caching.
    pub fn put(&self, model: &str, entries: &[([u8; 32], &[f32])]) {
        if entries.is_empty() {
            return;
        }
        let _ = self.try_put(model, entries);
    }

    fn try_put(&self, model: &str, entries: &[([u8; 32], &[f32])]) -> rusqlite::Result<()> {
        // The connection is this cache's alone and nothing else opens a
        // transaction on it, so the shared-reference form is safe here.
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut stmt = tx.prepare_cached(
                "INSERT OR REPLACE INTO vectors (model, key, vec) VALUES (?1, ?2, ?3)",
            )?;
            for (k, v) in entries {
                stmt.execute(params![model, &k[..], encode(v)])?;
            }
        }
        let rows: i64 = tx.query_row("SELECT count(*) FROM vectors", [], |r| r.get(0))?;
        if rows > CAPACITY {
            // A quarter at once, so that a full cache is not trimmed on every write.
            tx.execute(
                "DELETE FROM vectors WHERE rowid IN
                     (SELECT rowid FROM vectors ORDER BY rowid LIMIT ?1)",
                params![rows - CAPACITY + CAPACITY / 4],
            )?;
        }
        tx.commit()
    }
}

fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// `None` for a blob that is not whole `f32`s (a damaged entry is a miss).
fn decode(b: &[u8]) -> Option<Vec<f32>> {
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return None;
    }
    Some(
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(cache: &VectorCache) -> i64 {
        cache
            .conn
            .query_row("SELECT count(*) FROM vectors", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn stores_and_returns_vectors_by_model_and_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vectors.db");
        let cache = VectorCache::open(&path).unwrap();
        let (a, b) = (key("alpha"), key("beta"));
        cache.put("m1", &[(a, &[1.0, -2.5][..])]);
        assert_eq!(cache.get("m1", &[a, b]), vec![Some(vec![1.0, -2.5]), None]);
        assert_eq!(cache.get("m2", &[a]), vec![None], "another model misses");
        drop(cache);
        let again = VectorCache::open(&path).unwrap();
        assert_eq!(again.get("m1", &[a]), vec![Some(vec![1.0, -2.5])]);
    }

    #[test]
    fn drops_the_oldest_entries_past_capacity() {
        let dir = tempfile::tempdir().unwrap();
        let cache = VectorCache::open(&dir.path().join("vectors.db")).unwrap();
        let keys: Vec<[u8; 32]> = (0..CAPACITY + 1).map(|i| key(&i.to_string())).collect();
        let v = [0.5f32];
        let entries: Vec<([u8; 32], &[f32])> = keys.iter().map(|k| (*k, &v[..])).collect();
        cache.put("m", &entries);
        assert_eq!(rows(&cache), CAPACITY - CAPACITY / 4);
        assert_eq!(
            cache.get("m", &[keys[0]]),
            vec![None],
            "the first stored went"
        );
        let last = keys[keys.len() - 1];
        assert_eq!(cache.get("m", &[last]), vec![Some(vec![0.5])]);
    }

    #[test]
    fn a_damaged_entry_is_a_miss() {
        assert_eq!(decode(&[1, 2, 3]), None);
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&1.0f32.to_le_bytes()), Some(vec![1.0]));
    }

    #[test]
    fn an_unopenable_path_gives_no_cache() {
        let dir = tempfile::tempdir().unwrap();
        assert!(VectorCache::open(&dir.path().join("missing/dir/vectors.db")).is_none());
    }
}
