//! Rows of boxed relay values.

use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use super::{Catalog, Tx};
use crate::error::Result;

/// A boxed value as recorded in the catalog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BoxRow {
    /// Opaque ID (the part after `internal://`).
    pub id: String,
    /// Session the value belongs to.
    pub session: String,
    /// Tool that produced it.
    pub tool: String,
    /// When the value was last boxed (a value boxed again reuses its box), ns
    /// since the epoch; `ctx relay gc` counts age from here.
    pub created_ns: i64,
    /// Size in bytes.
    pub bytes: u64,
    /// Size in Unicode characters.
    pub chars: u64,
    /// Estimated tokens.
    pub tokens: u64,
    /// Lines.
    pub lines: u64,
    /// SHA-256 of the bytes.
    pub sha256: String,
    /// `json`, `html`, `markdown` or `text`.
    pub media: String,
    /// File path relative to `_ctx/relay/`.
    pub file: String,
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<BoxRow> {
    Ok(BoxRow {
        id: r.get(0)?,
        session: r.get(1)?,
        tool: r.get(2)?,
        created_ns: r.get(3)?,
        bytes: r.get::<_, i64>(4)? as u64,
        chars: r.get::<_, i64>(5)? as u64,
        tokens: r.get::<_, i64>(6)? as u64,
        lines: r.get::<_, i64>(7)? as u64,
        sha256: r.get(8)?,
        media: r.get(9)?,
        file: r.get(10)?,
    })
}

const COLUMNS: &str =
    "id, session, tool, created_ns, bytes, chars, tokens, lines, sha256, media, file";

impl Catalog {
    /// A box by ID.
    pub fn box_row(&self, id: &str) -> Result<Option<BoxRow>> {
        self.conn()
            .query_row(
                &format!("SELECT {COLUMNS} FROM boxes WHERE id = ?1"),
                [id],
                row,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// The latest box of `session` holding the value of `tool` whose SHA-256
    /// is `sha256`. A scan: a session's boxes number in the thousands at
    /// most, and an index would change the catalog's layout.
    pub fn box_with_content(
        &self,
        session: &str,
        tool: &str,
        sha256: &str,
    ) -> Result<Option<BoxRow>> {
        self.conn()
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM boxes WHERE session = ?1 AND tool = ?2 AND sha256 = ?3
                     ORDER BY created_ns DESC LIMIT 1"
                ),
                [session, tool, sha256],
                row,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Boxes created before `before_ns`.
    pub fn boxes_before(&self, before_ns: i64) -> Result<Vec<BoxRow>> {
        let mut stmt = self
            .conn()
            .prepare(&format!(
                "SELECT {COLUMNS} FROM boxes WHERE created_ns < ?1 ORDER BY created_ns"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([before_ns], row).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }

    /// The files of all boxes (paths relative to `_ctx/relay/`).
    pub fn box_files(&self) -> Result<std::collections::HashSet<String>> {
        let mut stmt = self
            .conn()
            .prepare("SELECT file FROM boxes")
            .map_err(|e| self.err(e))?;
        let rows = stmt.query_map([], |r| r.get(0)).map_err(|e| self.err(e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| self.err(e))
    }
}

impl Tx<'_> {
    /// Records a box.
    pub fn put_box(&self, b: &BoxRow) -> Result<()> {
        self.conn()
            .execute(
                &format!("INSERT OR REPLACE INTO boxes({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"),
                params![
                    b.id, b.session, b.tool, b.created_ns, b.bytes as i64, b.chars as i64,
                    b.tokens as i64, b.lines as i64, b.sha256, b.media, b.file
                ],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Records that a box's value was boxed again at `now_ns`.
    pub fn touch_box(&self, id: &str, now_ns: i64) -> Result<()> {
        self.conn()
            .execute(
                "UPDATE boxes SET created_ns = ?2 WHERE id = ?1",
                params![id, now_ns],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Forgets a box and its chunks.
    pub fn drop_box(&self, id: &str) -> Result<()> {
        self.conn()
            .execute("DELETE FROM boxes WHERE id = ?1", [id])
            .map_err(|e| self.err(e))?;
        self.drop_doc(&format!("relay/{id}"))
    }
}
