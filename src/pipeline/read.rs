//! Reading, hashing and chunking the files a build must look at, in batches.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::Progress;
use super::skips;
use crate::catalog::FileRow;
use crate::chunk::{self, Chunk, ChunkOptions};
use crate::config::Settings;
use crate::error::{Warning, WarningKind};
use crate::sources::{self, SourceEntry};

/// A file read and chunked by this build.
pub(super) struct Fresh {
    pub entry: SourceEntry,
    pub row: FileRow,
    pub chunks: Vec<Chunk>,
}

/// What reading one file gave.
pub(super) enum Outcome {
    /// Its size or mtime changed but its content did not.
    Touched(SourceEntry, FileRow),
    Fresh(Fresh),
    /// Not indexed, and why.
    Skipped(SourceEntry, Warning),
}

/// The files whose size or mtime differ from what the catalog `known` holds
/// (all of them when it holds nothing), or that are over `max_bytes`.
pub(super) fn pending<'a>(
    files: &'a [SourceEntry],
    known: &HashMap<String, FileRow>,
    max_bytes: u64,
) -> Vec<&'a SourceEntry> {
    files
        .iter()
        .filter(|e| !unchanged(e, known, max_bytes))
        .collect()
}

/// Whether the catalog `known` holds `e` at its current size and mtime, and
/// the size limit `max_bytes` still admits it (a limit lowered since it was
/// indexed drops it).
pub(super) fn unchanged(e: &SourceEntry, known: &HashMap<String, FileRow>, max_bytes: u64) -> bool {
    e.size <= max_bytes
        && known
            .get(&e.rel)
            .is_some_and(|k| k.size == e.size && k.mtime_ns == e.mtime_ns)
}

/// `files` in order, cut into runs of about `max_bytes` (a larger file is a
/// run of its own).
pub(super) fn batches<'a>(files: &[&'a SourceEntry], max_bytes: u64) -> Vec<Vec<&'a SourceEntry>> {
    let mut out: Vec<Vec<&SourceEntry>> = Vec::new();
    let mut bytes = 0;
    for &f in files {
        match out.last_mut() {
            Some(last) if bytes + f.size <= max_bytes || last.is_empty() => {
                bytes += f.size;
                last.push(f);
            }
            _ => {
                bytes = f.size;
                out.push(vec![f]);
            }
        }
    }
    out
}

/// Reads, hashes and chunks `todo` on all cores; outcomes in `todo`'s order.
pub(super) fn read_and_chunk(
    todo: &[&SourceEntry],
    known: &HashMap<String, FileRow>,
    settings: &Settings,
    opts: &ChunkOptions,
    progress: Option<&dyn Progress>,
) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::with_capacity(todo.len()));
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(todo.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut local = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(entry) = todo.get(i) else { break };
                    local.push((i, process(entry, known.get(&entry.rel), settings, opts)));
                    if let Some(p) = progress {
                        p.inc();
                    }
                }
                if let Ok(mut r) = results.lock() {
                    r.extend(local);
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
}

/// Why a build skips code file `rel` as generated or minified, if it does.
pub(super) fn generated(settings: &Settings, rel: &str, text: &str) -> Option<String> {
    let format = chunk::DocFormat::of(rel, &settings.code_extensions);
    matches!(format, chunk::DocFormat::Code(_))
        .then(|| chunk::code::is_probably_generated(text))
        .flatten()
}

/// `entry` skipped, with the warning saying why.
fn skipped(entry: &SourceEntry, kind: WarningKind, message: String) -> Outcome {
    Outcome::Skipped(entry.clone(), Warning::file(&entry.rel, kind, message))
}

fn process(
    entry: &SourceEntry,
    known: Option<&FileRow>,
    settings: &Settings,
    opts: &ChunkOptions,
) -> Outcome {
    let loaded = match sources::read_source(entry, settings.max_file_bytes) {
        Ok(l) => l,
        Err((kind, message)) => return skipped(entry, kind, message),
    };
    let mut row = FileRow {
        size: entry.size,
        mtime_ns: entry.mtime_ns,
        sha256: loaded.sha256,
        chars: loaded.text.chars().count(),
        notes: Vec::new(),
    };
    if let Some(k) = known.filter(|k| k.sha256 == row.sha256) {
        row.notes = k.notes.clone();
        return Outcome::Touched(entry.clone(), row);
    }
    if let Some(reason) = generated(settings, &entry.rel, &loaded.text) {
        return skipped(
            entry,
            WarningKind::Generated,
            format!("skipped: looks generated or minified ({reason})"),
        );
    }
    let format = chunk::DocFormat::of(&entry.rel, &settings.code_extensions);
    let chunked = chunk::chunk_document(&entry.rel, &loaded.text, format, opts);
    row.notes = chunked.notes;
    Outcome::Fresh(Fresh {
        entry: entry.clone(),
        row,
        chunks: chunked.chunks,
    })
}

/// What the batches of a build found, file by file.
#[derive(Default)]
pub(super) struct Seen {
    /// Files whose content changed (their chunks are dropped once written,
    /// unless kept).
    pub(super) changed: Vec<(SourceEntry, FileRow)>,
    /// Files whose content did not change (only size or mtime did).
    pub(super) touched: Vec<(SourceEntry, FileRow)>,
    /// Files that could not be read, and what chunking noted.
    pub(super) warnings: Vec<Warning>,
    /// Batches whose chunks stay in memory for the pack.
    pub(super) kept: Vec<Arc<Vec<Fresh>>>,
}

impl Seen {
    /// Records `outcomes` (the skipped files in `skips`) and returns the
    /// changed files among them.
    pub(super) fn take(&mut self, outcomes: Vec<Outcome>, skips: &mut skips::Skips) -> Vec<Fresh> {
        let mut fresh = Vec::new();
        for outcome in outcomes {
            match outcome {
                Outcome::Touched(e, row) => {
                    self.warnings
                        .extend(row.notes.iter().map(|n| note_warning(&e.rel, n)));
                    self.touched.push((e, row));
                }
                Outcome::Fresh(f) => fresh.push(f),
                Outcome::Skipped(e, w) => {
                    skips.add(&e, &w);
                    self.warnings.push(w);
                }
            }
        }
        fresh
    }

    /// Records a written batch: whole when `keep`, else without its chunks.
    pub(super) fn keep(&mut self, batch: Arc<Vec<Fresh>>, keep: bool) {
        for f in batch.iter() {
            self.changed.push((f.entry.clone(), f.row.clone()));
            self.warnings
                .extend(f.row.notes.iter().map(|n| note_warning(&f.entry.rel, n)));
        }
        if keep {
            self.kept.push(batch);
        }
    }
}

/// The build warning of what chunking noted about `path`.
pub(super) fn note_warning(path: &str, n: &chunk::ChunkNote) -> Warning {
    Warning {
        path: path.to_string(),
        line: n.line,
        message: n.message.clone(),
        kind: n.kind,
    }
}
