//! A build's writes in the order that keeps it crash-consistent (see the
//! parent module): the chunk rows of the new generation, then the index
//! commit, then the catalog's files and generation.

use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use super::read::{Fresh, Seen};
use super::{Clock, now_ns, skips};
use crate::catalog::Catalog;
use crate::error::Result;
use crate::index::{IndexWriter, SearchIndex};

/// What [`commit`] commits.
pub(super) struct Commit<'a> {
    /// The generation committed before this build.
    pub(super) committed: u64,
    /// This build's generation.
    pub(super) generation: u64,
    /// A full rebuild: every older row of the project's docs goes.
    pub(super) full: bool,
    /// Only the pack is rewritten: no new generation.
    pub(super) nothing_changed: bool,
    /// The catalog writer began the generation.
    pub(super) rows_written: bool,
    /// The files read: rechunked or only touched.
    pub(super) seen: &'a Seen,
    /// The files skipped, saved with the generation.
    pub(super) skips: &'a mut skips::Skips,
    /// The files gone.
    pub(super) removed: &'a [String],
    /// The settings the chunks were made with.
    pub(super) signature: &'a str,
}

/// Commits the index, then the catalog's files and generation (dropping the
/// rows of the generation before): steps 2 and 3 of the parent module's order.
pub(super) fn commit(
    index: &SearchIndex,
    catalog: &mut Catalog,
    writer: Option<IndexWriter>,
    c: Commit<'_>,
    clock: &mut Clock,
    chunking: Duration,
) -> Result<()> {
    if !c.nothing_changed {
        // The index commits only after the rows (a build killed in between
        // leaves the index behind, which forces a full rebuild).
        let mut w = match writer {
            Some(w) => w,
            None => start_writer(index, 0, c.full)?,
        };
        for doc in c.removed {
            w.delete_doc(doc);
        }
        w.commit(c.generation)?;
    }
    clock.lap("index");
    if let Some(p) = clock.phases.last_mut() {
        // The stage's wall time, less the chunking done within it.
        p.seconds = (p.seconds - chunking.as_secs_f64()).max(0.0);
    }
    catalog.transaction(|tx| {
        // No changed file reached the catalog writer, which begins the
        // generation; removals and touched files still make one.
        if !c.rows_written && !c.nothing_changed {
            tx.begin_generation(c.committed, c.generation)?;
        }
        if c.full {
            tx.drop_docs_before(c.generation)?;
        }
        for (e, row) in &c.seen.changed {
            tx.retire_old_chunks(&e.rel, c.generation)?;
            tx.drop_old_chunks(&e.rel, c.generation)?;
            tx.put_file(&e.rel, row)?;
        }
        for (e, row) in &c.seen.touched {
            tx.put_file(&e.rel, row)?;
        }
        for doc in c.removed {
            tx.retire_old_chunks(doc, c.generation)?;
            tx.drop_old_chunks(doc, c.generation)?;
            tx.drop_file(doc)?;
        }
        c.skips.save(tx)?;
        tx.set_meta("generation", &c.generation.to_string())?;
        tx.set_meta("settings", c.signature)?;
        tx.set_meta("last_build_ns", &now_ns().to_string())
    })?;
    clock.lap("commit");
    Ok(())
}

/// The index writer of a build that changes something; a full build first
/// drops every record of the project's docs.
pub(super) fn start_writer(index: &SearchIndex, bytes: u64, full: bool) -> Result<IndexWriter> {
    let mut writer = index.writer(bytes)?;
    if full {
        writer.delete_scope("docs");
    }
    Ok(writer)
}

/// Writes the chunk rows of the batches `receive` brings, all in one
/// transaction that begins `generation`, and returns the time it took (`None`
/// when no batch came: nothing was written).
pub(super) fn write_rows(
    catalog: &mut Catalog,
    receive: Receiver<Arc<Vec<Fresh>>>,
    committed: u64,
    generation: u64,
) -> Result<Option<Duration>> {
    let Ok(first) = receive.recv() else {
        return Ok(None);
    };
    let mut busy = Duration::ZERO;
    catalog.transaction(|tx| {
        let started = Instant::now();
        tx.begin_generation(committed, generation)?;
        busy += started.elapsed();
        for batch in std::iter::once(first).chain(receive.iter()) {
            let started = Instant::now();
            for f in batch.iter() {
                tx.put_chunks(&f.chunks, generation, "docs")?;
            }
            busy += started.elapsed();
        }
        Ok(())
    })?;
    Ok(Some(busy))
}
