//! A returned chunk that is one part of a block or symbol split to fit the
//! chunk budget: which part it is, and the parts next to it that the answer
//! lacks, so a listing or a function cut off mid-way does not pass for the
//! whole of it.

use std::collections::HashSet;

use serde::Serialize;

use super::{Fetched, Retriever};
use crate::error::Result;

/// A returned chunk's place among the parts of a split block or symbol.
#[derive(Debug, Clone, Serialize)]
pub struct PartOf {
    /// `[i, n]`: part `i` of `n`.
    pub index: [usize; 2],
    /// The ID of the part before it, unless this answer holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
    /// The ID of the part after it, unless this answer holds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

impl PartOf {
    /// `[part 1 of 2; next part: doc:…]`, when a neighbouring part is missing
    /// from the answer: a part cut off mid-function reads as the whole of it.
    pub fn note(&self) -> Option<String> {
        let [i, n] = self.index;
        let mut out = format!("[part {i} of {n}");
        if let Some(p) = &self.previous {
            out.push_str(&format!("; previous part: {p}"));
        }
        if let Some(next) = &self.next {
            out.push_str(&format!("; next part: {next}"));
        }
        out.push(']');
        (self.previous.is_some() || self.next.is_some()).then_some(out)
    }
}

impl Fetched {
    /// [`PartOf::note`] of this chunk, when it is a part with a neighbour
    /// the answer lacks.
    pub fn part_note(&self) -> Option<String> {
        self.part.as_ref().and_then(PartOf::note)
    }
}

/// Where a returned chunk sits: its bytes in its document, and its part
/// (`None` also for a part shown as an outline entry).
pub(super) struct Placed {
    pub bytes: [usize; 2],
    pub part: Option<[usize; 2]>,
}

impl Retriever {
    /// Sets the [`PartOf`] of each part among `chunks` (`placed` in the same
    /// order). A neighbour the answer holds, found by the bytes where chunks
    /// meet, needs neither a pointer nor a lookup: a whole file's parts cost
    /// no query.
    pub(super) fn place_parts(&self, chunks: &mut [Fetched], placed: &[Placed]) -> Result<()> {
        let starts: HashSet<(&str, usize)> = chunks
            .iter()
            .zip(placed)
            .map(|(c, p)| (c.doc.as_str(), p.bytes[0]))
            .collect();
        let ends: HashSet<(&str, usize)> = chunks
            .iter()
            .zip(placed)
            .map(|(c, p)| (c.doc.as_str(), p.bytes[1]))
            .collect();
        let mut parts = Vec::with_capacity(chunks.len());
        for (c, p) in chunks.iter().zip(placed) {
            let Some(index @ [i, n]) = p.part else {
                parts.push(None);
                continue;
            };
            let [b0, b1] = p.bytes;
            let previous = if i > 1 && !ends.contains(&(c.doc.as_str(), b0)) {
                self.catalog.part_ending_at(&c.doc, b0)?
            } else {
                None
            };
            let next = if i < n && !starts.contains(&(c.doc.as_str(), b1)) {
                self.catalog.part_starting_at(&c.doc, b1)?
            } else {
                None
            };
            parts.push(Some(PartOf {
                index,
                previous,
                next,
            }));
        }
        for (c, part) in chunks.iter_mut().zip(parts) {
            c.part = part;
        }
        Ok(())
    }
}
