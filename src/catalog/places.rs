//! Where chunks sit in their document: the chunks holding some lines, a
//! document's last line, and the parts next to a part of a split block.

use rusqlite::{OptionalExtension, params};

use super::Catalog;
use crate::chunk::Chunk;
use crate::error::Result;

impl Catalog {
    /// Calls `f` with each chunk of `doc` holding some of the 1-based lines
    /// `[first, last]`, in order.
    pub fn for_each_chunk_in_lines(
        &self,
        doc: &str,
        [first, last]: [usize; 2],
        f: impl FnMut(&Chunk) -> Result<()>,
    ) -> Result<()> {
        self.for_each_chunk_where(
            "doc = ?1 AND scope = 'docs' AND l1 >= ?2 AND l0 <= ?3",
            params![doc, first as i64, last as i64],
            f,
        )
    }

    /// The last line of `doc` that a chunk holds (0 when it has none).
    pub fn last_line_of(&self, doc: &str) -> Result<usize> {
        let n: Option<i64> = self
            .conn
            .prepare_cached("SELECT max(l1) FROM chunks WHERE doc = ?1 AND scope = 'docs'")
            .and_then(|mut s| s.query_row(params![doc], |r| r.get(0)))
            .map_err(|e| self.err(e))?;
        Ok(n.unwrap_or(0).max(0) as usize)
    }

    /// The ID of the part of a split block or symbol in `doc` that ends at
    /// byte `at`: chunks tile a document, so it is the part before the one
    /// starting there.
    pub fn part_ending_at(&self, doc: &str, at: usize) -> Result<Option<String>> {
        self.part_where(doc, "b1", at)
    }

    /// The ID of the part in `doc` that starts at byte `at`: the part after
    /// the one ending there.
    pub fn part_starting_at(&self, doc: &str, at: usize) -> Result<Option<String>> {
        self.part_where(doc, "b0", at)
    }

    fn part_where(&self, doc: &str, edge: &str, at: usize) -> Result<Option<String>> {
        self.conn
            .prepare_cached(&format!(
                "SELECT id FROM chunks WHERE doc = ?1 AND part IS NOT NULL AND {edge} = ?2 LIMIT 1"
            ))
            .and_then(|mut s| {
                s.query_row(params![doc, at as i64], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| self.err(e))
    }
}
