//! `build`: the one function that runs the whole flow — lock, sources, chunk,
//! catalog, index, pack.
//!
//! Crash consistency rests on a build *generation* `g`:
//! 1. new chunk rows are written with `gen = g` (transaction 1);
//! 2. the index commits with payload `g`;
//! 3. old rows are dropped and `meta.generation = g` (transaction 2);
//! 4. the pack is replaced atomically, then `meta.pack_generation = g`.
//!
//! When the pack on disk is the committed one, what step 4 writes is known
//! before step 2, and the pack is written alongside steps 2 and 3; it is
//! recorded only after them. A build killed or failing there leaves a new pack
//! the catalog did not record, which the next build rewrites.
//!
//! A build killed anywhere leaves the previous state readable (searches see the
//! old index snapshot, whose rows are still in the catalog). The next build sees
//! rows above the committed generation and removes them; if the index payload
//! differs from the catalog's generation it rebuilds everything; if the pack's
//! generation lags it rewrites the pack.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::catalog::Catalog;
use crate::chunk::{self, ChunkOptions};
use crate::config::Settings;
use crate::error::{Error, Result, Warning};
use crate::index::{IndexWriter, SearchIndex};
use crate::pack::lock::{FileLock, LockKind};
use crate::pack::{self, store};
use crate::segment::Segment;
use crate::sources::{self, SourceEntry};
use commit::{Commit, start_writer, write_rows};
use read::{Fresh, Seen, note_warning};

mod commit;
mod pack_out;
mod read;
mod repair;
mod skips;
mod walking;

/// Receives build progress (the CLI draws a bar with it).
pub trait Progress: Sync {
    /// The number of files that will be read.
    fn start(&self, total: u64);
    /// One more file read.
    fn inc(&self);
    /// Done.
    fn finish(&self);
}

/// How to build.
pub struct BuildOptions<'a> {
    /// How long to wait for another build's lock.
    pub lock_timeout: Duration,
    /// Ignore what the catalog knows and rebuild everything.
    pub full: bool,
    /// Progress sink, if any.
    pub progress: Option<&'a dyn Progress>,
    /// Bring only what search reads (catalog and index) up to date, and write
    /// the pack file only when there is none: the implicit refresh before a
    /// search should not pay for rewriting a large pack. The next plain build
    /// sees the pack's generation lag and rewrites it.
    pub refresh_only: bool,
}

impl Default for BuildOptions<'_> {
    fn default() -> Self {
        BuildOptions {
            lock_timeout: Duration::from_secs(30),
            full: false,
            progress: None,
            refresh_only: false,
        }
    }
}

/// What a build did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct BuildReport {
    /// Indexed files.
    pub files: usize,
    /// Chunks in the pack.
    pub chunks: usize,
    /// Sum of chunk token estimates.
    pub tokens: usize,
    /// Bytes of indexed files.
    pub bytes: u64,
    /// Bytes of the files this build read and indexed or found unchanged
    /// (their size or mtime had changed, or it was a full rebuild), skipped
    /// files aside: what its rate is over.
    pub read_bytes: u64,
    /// Files (re)chunked by this build.
    pub changed: usize,
    /// Files dropped by this build.
    pub removed: usize,
    /// Nothing had changed; nothing was written.
    pub noop: bool,
    /// Whether everything was rebuilt.
    pub full: bool,
    /// Skipped files and chunker notes.
    pub warnings: Vec<Warning>,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Build generation now committed.
    pub generation: u64,
    /// Wall time of each stage, in order (`ctx build --timings`).
    pub phases: Vec<Phase>,
}

/// The wall time of one build stage.
#[derive(Debug, Clone, Serialize)]
pub struct Phase {
    /// Stage name: walk, chunk, catalog, index, commit, pack, early pack and
    /// compact (the catalog rewritten without its free pages).
    /// The catalog rows are written while the index is fed, so `index`
    /// includes `catalog`. `early pack` is a pack written alongside the index
    /// commit, start to end; `pack` then counts what was left of it after the
    /// commit.
    pub name: &'static str,
    /// Seconds.
    pub seconds: f64,
}

/// Records stage boundaries.
struct Clock {
    last: Instant,
    phases: Vec<Phase>,
}

impl Clock {
    fn new() -> Clock {
        Clock {
            last: Instant::now(),
            phases: Vec::new(),
        }
    }

    /// Ends the stage `name` now.
    fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.phases.push(Phase {
            name,
            seconds: (now - self.last).as_secs_f64(),
        });
        self.last = now;
    }
}

/// Whether `rel` is a code file ctx indexes by default (`index_code`), or one
/// mapped in `code_extensions`.
pub fn is_code(settings: &Settings, rel: &str) -> bool {
    settings.index_code
        && matches!(
            chunk::DocFormat::of(rel, &settings.code_extensions),
            chunk::DocFormat::Code(_)
        )
}

/// The files a build of `seg` would index now, read once each, as
/// [`pack::validate::validate`] takes them.
pub fn disk_view(
    seg: &Segment,
    settings: &Settings,
) -> Result<std::collections::BTreeMap<String, Vec<u8>>> {
    let walked = sources::walk(&seg.root, settings, &|rel| is_code(settings, rel))?;
    let mut disk = pack::validate::read_disk(&walked.files, settings.max_file_bytes);
    // A code file the build skips as generated is no source of the pack
    // either (read_disk leaves out the files it cannot read).
    disk.retain(|rel, bytes| {
        !std::str::from_utf8(bytes).is_ok_and(|text| read::generated(settings, rel, text).is_some())
    });
    Ok(disk)
}

/// The settings that, when changed, invalidate every chunk.
fn settings_signature(settings: &Settings) -> String {
    format!(
        "{}|analyzer {}|chunker {}|signals {}|{}|{:?}|{:?}|{}|{:?}",
        pack::generator_version(),
        crate::index::tokenizer::ANALYZER_VERSION,
        crate::chunk::CHUNKER_VERSION,
        crate::index::signals::SIGNALS_VERSION,
        settings.max_chunk_tokens,
        settings.include,
        settings.exclude,
        settings.index_code,
        settings.code_extensions
    )
}

/// Builds or refreshes the pack of `seg` (incrementally unless `opts.full`).
/// A full build sets a damaged catalog aside and starts a new one.
pub fn build(seg: &Segment, settings: &Settings, opts: &BuildOptions<'_>) -> Result<BuildReport> {
    build_and_open(seg, settings, opts).map(|(report, _)| report)
}

/// The index and the catalog a build committed to, still open.
pub struct Opened {
    /// The index, whose reader a search can reload instead of opening it.
    pub index: SearchIndex,
    /// The build's catalog connection: a search reading through it instead
    /// of opening the file again (and closing this one, the last, which
    /// closes the WAL) saves 0.6 ms.
    pub catalog: Catalog,
}

/// [`build`], returning the index and catalog it committed to, which a
/// search can read through instead of opening them again.
pub fn build_and_open(
    seg: &Segment,
    settings: &Settings,
    opts: &BuildOptions<'_>,
) -> Result<(BuildReport, Opened)> {
    repair::setting_aside_damaged_catalog(seg, opts, || build_once(seg, settings, opts))
}

fn build_once(
    seg: &Segment,
    settings: &Settings,
    opts: &BuildOptions<'_>,
) -> Result<(BuildReport, Opened)> {
    let started = Instant::now();
    let mut clock = Clock::new();
    store::ensure_dir(&seg.ctx_dir())?;
    let _lock = FileLock::acquire(&seg.build_lock(), LockKind::Build, opts.lock_timeout)?;
    store::remove_stale_temps(&seg.ctx_dir());

    let mut catalog = Catalog::open(&seg.db_path())?;
    catalog.defer_checkpoints()?;
    let signature = settings_signature(settings);
    // The packages found are a ranking hint, not indexed content: a manifest
    // added beside unchanged files counts at once, and an interrupted build
    // loses nothing by it.
    let (walked, rows) = walking::files(seg, settings, &catalog, &signature, opts.refresh_only)?;
    // An implicit refresh must not turn a pack into an empty one because its
    // sources are out of reach; an explicit build may.
    if opts.refresh_only && walked.files.is_empty() {
        let indexed = catalog.files()?.len();
        if indexed > 0 {
            return Err(Error::SourcesGone {
                root: seg.root.clone(),
                indexed,
            });
        }
    }
    let (index, damage) = SearchIndex::open_repairing(&seg.index_dir())?;
    let committed = catalog.generation()?;
    let full = opts.full
        || index.generation()? != committed
        || catalog.meta("settings")?.as_deref() != Some(signature.as_str());
    let known = match (full, rows) {
        (true, _) => HashMap::new(),
        (false, Some(rows)) => rows,
        (false, None) => catalog.files()?,
    };

    let chunk_opts = ChunkOptions {
        max_chunk_tokens: settings.max_chunk_tokens,
    };
    let mut skips = skips::Skips::load(&catalog, settings.max_file_bytes, full)?;
    clock.lap("walk");
    let mut carried = Vec::new();
    let todo: Vec<&SourceEntry> = read::pending(&walked.files, &known, settings.max_file_bytes)
        .into_iter()
        .filter(|e| match skips.carry(e) {
            Some(w) => {
                carried.push(w);
                false
            }
            None => true,
        })
        .collect();
    let todo_bytes: u64 = todo.iter().map(|e| e.size).sum();
    // Files are read in batches of `build_batch_bytes`. Each batch's chunks
    // go to the catalog and the index and are dropped, so a build's memory does
    // not grow with the corpus (1 GB of Markdown held at once peaked at 2.4 GB;
    // in 128 MiB batches, 830 MiB).
    // A build of one batch keeps its chunks for the pack, which otherwise reads
    // them back from the catalog.
    let batches = read::batches(&todo, settings.build_batch_bytes);
    if let Some(p) = opts.progress {
        p.start(todo.len() as u64);
    }
    let pack_intact = pack_out::pack_intact(seg, &catalog)?;
    let pack_current = pack_intact
        && catalog
            .meta("pack_generation")?
            .and_then(|v| v.parse().ok())
            == Some(committed);

    // Each batch is read and chunked, then its rows go to the catalog on one
    // thread while its records go to the index on this one. The writers start
    // with the first changed file: a build that finds none writes nothing.
    let generation = committed + 1;
    let mut seen = Seen::default();
    let mut writer: Option<IndexWriter> = None;
    let mut chunking = Duration::ZERO;
    // A refresh that finds nothing to read starts no catalog writer thread.
    let rows = if batches.is_empty() {
        None
    } else {
        std::thread::scope(|s| {
            let (send, receive) = std::sync::mpsc::sync_channel::<Arc<Vec<Fresh>>>(0);
            let catalog = &mut catalog;
            let rows = s.spawn(move || write_rows(catalog, receive, committed, generation));
            let fed = (|| -> Result<()> {
                for batch in &batches {
                    let started = Instant::now();
                    let outcomes =
                        read::read_and_chunk(batch, &known, settings, &chunk_opts, opts.progress);
                    chunking += started.elapsed();
                    let fresh = seen.take(outcomes, &mut skips);
                    if fresh.is_empty() {
                        continue;
                    }
                    let w = match &mut writer {
                        Some(w) => w,
                        None => writer.insert(start_writer(&index, todo_bytes, full)?),
                    };
                    let fresh = Arc::new(fresh);
                    // A closed channel means the catalog writer failed; its error
                    // is the one to report.
                    if send.send(Arc::clone(&fresh)).is_err() {
                        break;
                    }
                    for f in fresh.iter() {
                        w.delete_doc(&f.entry.rel);
                        for c in &f.chunks {
                            w.add(c, "docs")?;
                        }
                    }
                    seen.keep(fresh, batches.len() == 1);
                }
                Ok(())
            })();
            drop(send);
            let rows = rows
                .join()
                .unwrap_or_else(|_| Err(Error::Invalid("the catalog writer panicked".into())));
            fed.and(rows)
        })?
    };
    clock.phases.push(Phase {
        name: "chunk",
        seconds: chunking.as_secs_f64(),
    });
    if let Some(busy) = rows {
        clock.phases.push(Phase {
            name: "catalog",
            seconds: busy.as_secs_f64(),
        });
    }

    let mut warnings = walked.warnings;
    warnings.extend(damage.map(repair::index_rebuilt));
    warnings.append(&mut carried);
    let unchanged: Vec<&SourceEntry> = walked
        .files
        .iter()
        .filter(|e| read::unchanged(e, &known, settings.max_file_bytes))
        .collect();
    // What chunking noted about a file is reported by every build while the
    // file stands unchanged (as cargo replays a cached crate's warnings), so
    // two builds of one tree report the same.
    for e in &unchanged {
        if let Some(row) = known.get(&e.rel) {
            warnings.extend(row.notes.iter().map(|n| note_warning(&e.rel, n)));
        }
    }
    let mut present: HashSet<&str> = unchanged.iter().map(|e| e.rel.as_str()).collect();
    present.extend(seen.changed.iter().map(|(e, _)| e.rel.as_str()));
    present.extend(seen.touched.iter().map(|(e, _)| e.rel.as_str()));
    let removed: Vec<String> = known
        .keys()
        .filter(|k| !present.contains(k.as_str()))
        .cloned()
        .collect();
    warnings.append(&mut seen.warnings);
    // By file, whichever build first noticed them.
    warnings.sort_by(|a, b| a.path.cmp(&b.path));
    // What the build read and indexed (or found unchanged): a skipped file
    // is not indexing work, and a rate over its size would flatter the build.
    let read_bytes: u64 = seen
        .changed
        .iter()
        .chain(&seen.touched)
        .map(|(e, _)| e.size)
        .sum();

    let nothing_changed =
        seen.changed.is_empty() && seen.touched.is_empty() && removed.is_empty() && !full;
    let skip_pack = opts.refresh_only && seg.pack_path().exists();
    if nothing_changed && (pack_current || skip_pack) {
        // A file skipped for the first time changes nothing else.
        if skips.changed() {
            catalog.transaction(|tx| skips.save(tx))?;
        }
        // The counts recorded by the last build: a search's refresh should not
        // scan every chunk row to say nothing changed.
        let recorded = catalog.meta("counts")?.and_then(|v| {
            let n: Vec<usize> = v.split(' ').filter_map(|x| x.parse().ok()).collect();
            (n.len() == 3).then(|| (n[0], n[1], n[2]))
        });
        let (files, chunks, tokens) = match recorded {
            Some(c) => c,
            None => catalog.counts()?,
        };
        let report = BuildReport {
            files,
            chunks,
            tokens,
            bytes: walked.files.iter().map(|f| f.size).sum(),
            read_bytes,
            noop: true,
            warnings,
            seconds: started.elapsed().as_secs_f64(),
            generation: committed,
            phases: clock.phases,
            ..BuildReport::default()
        };
        return Ok((report, Opened { index, catalog }));
    }

    // A pack-only rewrite commits no new rows: bumping the generation there
    // would leave the index behind the catalog and force a full rebuild.
    let generation = if nothing_changed {
        committed
    } else {
        generation
    };
    let memory: pack_out::InMemory<'_> = seen
        .kept
        .iter()
        .flat_map(|batch| batch.iter())
        .map(|f| (f.entry.rel.as_str(), f.chunks.as_slice()))
        .collect();
    // A pack intact and current on disk is the committed state, so what this
    // build's pack lists is known before the commit: it is written on another
    // core while the index commits (mostly waiting on fsyncs), which a
    // one-file rebuild would otherwise pay for one after the other.
    let ahead = if !nothing_changed && !full && !skip_pack && pack_intact && pack_current {
        let changes = pack_out::Changes {
            changed: &seen.changed,
            touched: &seen.touched,
            removed: &removed,
        };
        pack_out::Contents::ahead(&catalog, &known, &changes, &memory, generation)?
    } else {
        None
    };
    let early = std::thread::scope(|s| -> Result<_> {
        let early = ahead.map(|contents| {
            s.spawn(|| {
                let started = Instant::now();
                let unrecorded = pack_out::write_pack(seg, settings, None, contents, &memory)?;
                Ok((unrecorded, started.elapsed()))
            })
        });
        let done = commit::commit(
            &index,
            &mut catalog,
            writer,
            Commit {
                committed,
                generation,
                full,
                nothing_changed,
                rows_written: rows.is_some(),
                seen: &seen,
                skips: &mut skips,
                removed: &removed,
                signature: &signature,
            },
            &mut clock,
            chunking,
        );
        let early = early.map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::Invalid("the pack writer panicked".into())))
        });
        done.map(|()| early)
    })?;

    // Move this build's WAL into the database file on the other core while
    // the pack, unless it was written early, is written on this one.
    let db_path = seg.db_path();
    let written = std::thread::scope(|s| {
        s.spawn(|| Catalog::checkpoint_passive(&db_path));
        if skip_pack {
            return Ok(None);
        }
        let unrecorded = match early {
            Some(Ok((u, took))) => {
                clock.phases.push(Phase {
                    name: "early pack",
                    seconds: took.as_secs_f64(),
                });
                u
            }
            // Written again from the catalog, now committed: whatever stopped
            // the early writer (the pack vanished, a full disk) is met again
            // there and reported. Whether the pack on disk may still be copied
            // from is asked again: the early writer may have replaced it.
            _ => {
                let intact = pack_out::pack_intact(seg, &catalog)?;
                let contents = pack_out::Contents::committed(&catalog, intact)?;
                pack_out::write_pack(seg, settings, Some(&catalog), contents, &memory)?
            }
        };
        unrecorded.record(&mut catalog, generation).map(Some)
    })?;
    // Best effort: a reader holding an old snapshot can block truncation, which
    // only costs disk until the next build.
    let _ = catalog.checkpoint();
    clock.lap("pack");
    // Best effort too: a catalog left sparse loses nothing, and its free pages
    // are reused by the next build.
    if let Ok(true) = catalog.compact_if_sparse() {
        let _ = catalog.checkpoint();
        clock.lap("compact");
    }
    if let Some(p) = opts.progress {
        p.finish();
    }
    let (files, chunks, tokens) = match written {
        Some(w) => (w.files, w.chunks, w.tokens),
        None => catalog.counts()?,
    };
    catalog.set_meta("counts", &format!("{files} {chunks} {tokens}"))?;
    let report = BuildReport {
        files,
        chunks,
        tokens,
        bytes: walked.files.iter().map(|f| f.size).sum(),
        read_bytes,
        changed: seen.changed.len(),
        removed: removed.len(),
        noop: false,
        full,
        warnings,
        seconds: started.elapsed().as_secs_f64(),
        generation,
        phases: clock.phases,
    };
    Ok((report, Opened { index, catalog }))
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}
