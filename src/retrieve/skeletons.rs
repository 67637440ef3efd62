//! The skeletons `get --mode skeleton` shows. A code chunk's is cut from its
//! file's skeleton, not made from the chunk alone: a container's own chunk
//! ends before its first member with a chunk and its last member's chunk
//! holds the container's `}`, so neither parses on its own, and a container
//! cut from the file shows the members it declares (required methods,
//! prototypes, fields) instead of `{ … }` over them.

use std::ops::Range;

use super::Retriever;
use super::file_outline::{skeleton, without_blank_start};
use super::locate::Item;
use crate::chunk::ChunkKind;
use crate::chunk::code::{language_by_name, skeletons_of_parts};
use crate::error::Result;

impl Retriever {
    /// The skeleton of each of `found`'s chunks. A chunk of a file's
    /// outline that the file's skeleton leaves empty (a later part of a
    /// body elided in its first) stays empty; one asked for by ID, and any
    /// chunk whose file cannot be put together again, is made on its own.
    pub(super) fn skeletons(&self, found: &[Item]) -> Result<Vec<String>> {
        let mut out: Vec<Option<String>> = vec![None; found.len()];
        let mut docs: Vec<&str> = Vec::new();
        for (c, _, _) in found {
            if c.kind == ChunkKind::Code && !docs.contains(&c.doc.as_str()) {
                docs.push(&c.doc);
            }
        }
        for doc in docs {
            let of_doc: Vec<usize> = (0..found.len())
                .filter(|&i| found[i].0.doc == doc && found[i].0.kind == ChunkKind::Code)
                .collect();
            let Some(lang) = of_doc
                .first()
                .and_then(|&i| found[i].0.lang.as_deref())
                .and_then(language_by_name)
            else {
                continue;
            };
            let Some(text) = self.file_text(doc)? else {
                continue;
            };
            let parts: Vec<Range<usize>> = of_doc
                .iter()
                .map(|&i| found[i].0.bytes[0]..found[i].0.bytes[1])
                .collect();
            let Some(skeletons) = skeletons_of_parts(&text, lang, &parts) else {
                continue;
            };
            for (&i, shape) in of_doc.iter().zip(skeletons) {
                if shape.trim().is_empty() && !found[i].2 {
                    continue;
                }
                out[i] = Some(without_blank_start(&shape).to_string());
            }
        }
        Ok(found
            .iter()
            .zip(out)
            .map(|((c, _, _), shape)| shape.unwrap_or_else(|| skeleton(c)))
            .collect())
    }

    /// The text of `doc` put together from its chunks, which tile it;
    /// `None` when they do not (a pack written by another chunker).
    fn file_text(&self, doc: &str) -> Result<Option<String>> {
        let mut text = String::new();
        let mut tiled = true;
        self.catalog.for_each_chunk_of(doc, |c| {
            tiled &= c.bytes[0] == text.len() && c.bytes[1] == c.bytes[0] + c.text.len();
            text.push_str(&c.text);
            Ok(())
        })?;
        Ok((tiled && !text.is_empty()).then_some(text))
    }
}
