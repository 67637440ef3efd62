//! The files the last build found but did not index, and why.

use rusqlite::params;

use super::{Catalog, Tx};
use crate::error::{Result, WarningKind};

/// A file the build skipped, at the size and mtime it had then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// Path relative to the segment root.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// Modification time in ns since the epoch.
    pub mtime_ns: i64,
    /// Why it was skipped.
    pub kind: WarningKind,
    /// Why it was skipped and what to do (the build's warning).
    pub message: String,
}

impl Skip {
    /// Why it was skipped, without the build warning's leading "skipped: ".
    pub fn reason(&self) -> &str {
        self.message
            .strip_prefix("skipped: ")
            .unwrap_or(&self.message)
    }
}

impl Catalog {
    /// The files the last build skipped, by path.
    pub fn skipped(&self) -> Result<Vec<Skip>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path, size, mtime_ns, kind, message FROM skipped ORDER BY path")
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(Skip {
                    path: r.get(0)?,
                    size: r.get::<_, i64>(1)? as u64,
                    mtime_ns: r.get(2)?,
                    // Only this version writes the table; a kind it does not
                    // know still names a file that was not read.
                    kind: WarningKind::parse(&r.get::<_, String>(3)?)
                        .unwrap_or(WarningKind::Unreadable),
                    message: r.get(4)?,
                })
            })
            .map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }
}

impl Tx<'_> {
    /// Replaces the list of skipped files with `skips`.
    pub fn replace_skipped(&self, skips: &[Skip]) -> Result<()> {
        self.tx
            .execute("DELETE FROM skipped", [])
            .map_err(|e| self.err(e))?;
        let mut stmt = self
            .tx
            .prepare_cached(
                "INSERT OR REPLACE INTO skipped(path, size, mtime_ns, kind, message) VALUES (?1, ?2, ?3, ?4, ?5)",
            )
            .map_err(|e| self.err(e))?;
        for s in skips {
            stmt.execute(params![
                s.path,
                s.size as i64,
                s.mtime_ns,
                s.kind.as_str(),
                s.message
            ])
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}
