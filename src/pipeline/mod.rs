//! `build`: the one function that runs the whole flow — lock, sources, chunk,
//! catalog, index, pack.
//!
//! Crash consistency rests on a build *generation* `g`:
//! 1. new chunk rows are written with `gen = g` (transaction 1);
//! 2. the index commits with payload `g`;
//! 3. old rows are dropped and `meta.generation = g` (transaction 2);
//! 4. the pack is replaced atomically, then `meta.pack_generation = g`.
//!
//! A build killed anywhere leaves the previous state readable (searches see the
//! old index snapshot, whose rows are still in the catalog). The next build sees
//! rows above the committed generation and removes them; if the index payload
//! differs from the catalog's generation it rebuilds everything; if the pack's
//! generation lags it rewrites the pack.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::catalog::{Catalog, FileRow};
use crate::chunk::{self, Chunk, ChunkOptions};
use crate::config::Settings;
use crate::error::{Error, Result, Warning};
use crate::index::SearchIndex;
use crate::pack::lock::{FileLock, LockKind};
use crate::pack::{self, store};
use crate::segment::Segment;
use crate::sources::{self, SourceEntry};

mod pack_out;

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
    /// Stage name: walk, chunk, catalog, index, commit, pack. The catalog rows
    /// are written while the index is fed, so `index` includes `catalog`.
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

/// A file read and chunked by this build.
struct Fresh {
    entry: SourceEntry,
    row: FileRow,
    chunks: Vec<Chunk>,
    notes: Vec<crate::chunk::ChunkNote>,
}

enum Outcome {
    Touched(SourceEntry, FileRow),
    Fresh(Fresh),
    Skipped(Warning),
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
    Ok(pack::validate::read_disk(
        &walked.files,
        settings.max_file_bytes,
    ))
}

/// The settings that, when changed, invalidate every chunk.
fn settings_signature(settings: &Settings) -> String {
    format!(
        "{}|{}|{:?}|{:?}|{}|{:?}",
        pack::generator_version(),
        settings.max_chunk_tokens,
        settings.include,
        settings.exclude,
        settings.index_code,
        settings.code_extensions
    )
}

/// Builds or refreshes the pack of `seg` (incrementally unless `opts.full`).
pub fn build(seg: &Segment, settings: &Settings, opts: &BuildOptions<'_>) -> Result<BuildReport> {
    let started = Instant::now();
    let mut clock = Clock::new();
    store::ensure_dir(&seg.ctx_dir())?;
    let _lock = FileLock::acquire(&seg.build_lock(), LockKind::Build, opts.lock_timeout)?;
    store::remove_stale_temps(&seg.ctx_dir());

    let walked = sources::walk(&seg.root, settings, &|rel| is_code(settings, rel))?;
    let mut warnings = walked.warnings;
    let mut catalog = Catalog::open(&seg.db_path())?;
    catalog.defer_checkpoints()?;
    let index = SearchIndex::open_or_create(&seg.index_dir())?;
    let committed = catalog.generation()?;
    let signature = settings_signature(settings);
    let full = opts.full
        || index.generation()? != committed
        || catalog.meta("settings")?.as_deref() != Some(signature.as_str());
    let known = if full {
        HashMap::new()
    } else {
        catalog.files()?
    };

    let chunk_opts = ChunkOptions {
        max_chunk_tokens: settings.max_chunk_tokens,
    };
    clock.lap("walk");
    let outcomes = read_and_chunk(&walked.files, &known, settings, &chunk_opts, opts.progress);
    clock.lap("chunk");

    let mut fresh = Vec::new();
    let mut touched = Vec::new();
    let mut present: HashSet<String> = HashSet::new();
    for outcome in outcomes {
        match outcome {
            Outcome::Touched(e, row) => {
                present.insert(e.rel.clone());
                touched.push((e, row));
            }
            Outcome::Fresh(f) => {
                present.insert(f.entry.rel.clone());
                fresh.push(f);
            }
            Outcome::Skipped(w) => warnings.push(w),
        }
    }
    for e in &walked.files {
        if known
            .get(&e.rel)
            .is_some_and(|k| k.size == e.size && k.mtime_ns == e.mtime_ns)
        {
            present.insert(e.rel.clone());
        }
    }
    let removed: Vec<String> = known
        .keys()
        .filter(|k| !present.contains(*k))
        .cloned()
        .collect();
    for f in &fresh {
        warnings.extend(f.notes.iter().map(|n| Warning {
            path: f.entry.rel.clone(),
            line: n.line,
            message: n.message.clone(),
        }));
    }

    let pack_intact = pack_out::pack_intact(seg, &catalog)?;
    let pack_current = pack_intact
        && catalog
            .meta("pack_generation")?
            .and_then(|v| v.parse().ok())
            == Some(committed);
    let nothing_changed = fresh.is_empty() && touched.is_empty() && removed.is_empty() && !full;
    let skip_pack = opts.refresh_only && seg.pack_path().exists();
    if nothing_changed && (pack_current || skip_pack) {
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
        return Ok(BuildReport {
            files,
            chunks,
            tokens,
            bytes: walked.files.iter().map(|f| f.size).sum(),
            noop: true,
            warnings,
            seconds: started.elapsed().as_secs_f64(),
            generation: committed,
            phases: clock.phases,
            ..BuildReport::default()
        });
    }

    // A pack-only rewrite commits no new rows: bumping the generation there
    // would leave the index behind the catalog and force a full rebuild.
    let generation = if nothing_changed {
        committed
    } else {
        committed + 1
    };
    if !nothing_changed {
        // The catalog rows and the index records are independent work: write
        // them on two cores, and commit the index only after the rows (a build
        // killed in between leaves the index behind, which forces a full rebuild).
        let mut writer = index.writer(fresh.iter().map(|f| f.entry.size).sum())?;
        let (rows, indexed) = std::thread::scope(|s| {
            let rows = s.spawn(|| {
                let started = Instant::now();
                catalog
                    .transaction(|tx| {
                        tx.begin_generation(committed, generation)?;
                        for f in &fresh {
                            tx.put_chunks(&f.chunks, generation, "docs")?;
                        }
                        Ok(())
                    })
                    .map(|()| started.elapsed())
            });
            let indexed = (|| -> Result<()> {
                if full {
                    writer.delete_scope("docs");
                }
                for doc in fresh.iter().map(|f| &f.entry.rel).chain(removed.iter()) {
                    writer.delete_doc(doc);
                }
                for f in &fresh {
                    for c in &f.chunks {
                        writer.add(c, "docs")?;
                    }
                }
                Ok(())
            })();
            let rows = rows
                .join()
                .unwrap_or_else(|_| Err(Error::Invalid("the catalog writer panicked".into())));
            (rows, indexed)
        });
        clock.phases.push(Phase {
            name: "catalog",
            seconds: rows?.as_secs_f64(),
        });
        indexed?;
        writer.commit(generation)?;
        clock.lap("index");
    }
    catalog.transaction(|tx| {
        if full {
            tx.drop_docs_before(generation)?;
        }
        for f in &fresh {
            tx.retire_old_chunks(&f.entry.rel, generation)?;
            tx.drop_old_chunks(&f.entry.rel, generation)?;
            tx.put_file(&f.entry.rel, &f.row)?;
        }
        for (e, row) in &touched {
            tx.put_file(&e.rel, row)?;
        }
        for doc in &removed {
            tx.retire_old_chunks(doc, generation)?;
            tx.drop_old_chunks(doc, generation)?;
            tx.drop_file(doc)?;
        }
        tx.set_meta("generation", &generation.to_string())?;
        tx.set_meta("settings", &signature)?;
        tx.set_meta("last_build_ns", &now_ns().to_string())
    })?;
    clock.lap("commit");

    // The pack is written on one core: move this build's WAL into the
    // database file on the other meanwhile.
    let db_path = seg.db_path();
    let written = std::thread::scope(|s| {
        s.spawn(|| Catalog::checkpoint_passive(&db_path));
        if skip_pack {
            return Ok(None);
        }
        let memory: pack_out::InMemory<'_> = fresh
            .iter()
            .map(|f| (f.entry.rel.as_str(), f.chunks.as_slice()))
            .collect();
        pack_out::write_pack(
            seg,
            settings,
            &mut catalog,
            generation,
            pack_intact,
            &memory,
        )
        .map(Some)
    })?;
    // Best effort: a reader holding an old snapshot can block truncation, which
    // only costs disk until the next build.
    let _ = catalog.checkpoint();
    clock.lap("pack");
    if let Some(p) = opts.progress {
        p.finish();
    }
    let (files, chunks, tokens) = match written {
        Some(w) => (w.files, w.chunks, w.tokens),
        None => catalog.counts()?,
    };
    catalog.set_meta("counts", &format!("{files} {chunks} {tokens}"))?;
    Ok(BuildReport {
        files,
        chunks,
        tokens,
        bytes: walked.files.iter().map(|f| f.size).sum(),
        changed: fresh.len(),
        removed: removed.len(),
        noop: false,
        full,
        warnings,
        seconds: started.elapsed().as_secs_f64(),
        generation,
        phases: clock.phases,
    })
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Reads, hashes and chunks the files that may have changed, on all cores.
fn read_and_chunk(
    files: &[SourceEntry],
    known: &HashMap<String, FileRow>,
    settings: &Settings,
    opts: &ChunkOptions,
    progress: Option<&dyn Progress>,
) -> Vec<Outcome> {
    let todo: Vec<&SourceEntry> = files
        .iter()
        .filter(|e| {
            !known
                .get(&e.rel)
                .is_some_and(|k| k.size == e.size && k.mtime_ns == e.mtime_ns)
        })
        .collect();
    if let Some(p) = progress {
        p.start(todo.len() as u64);
    }
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

fn process(
    entry: &SourceEntry,
    known: Option<&FileRow>,
    settings: &Settings,
    opts: &ChunkOptions,
) -> Outcome {
    let loaded = match sources::read_source(entry, settings.max_file_bytes) {
        Ok(l) => l,
        Err(message) => {
            return Outcome::Skipped(Warning {
                path: entry.rel.clone(),
                line: None,
                message,
            });
        }
    };
    let row = FileRow {
        size: entry.size,
        mtime_ns: entry.mtime_ns,
        sha256: loaded.sha256,
        chars: loaded.text.chars().count(),
    };
    if known.is_some_and(|k| k.sha256 == row.sha256) {
        return Outcome::Touched(entry.clone(), row);
    }
    let format = chunk::DocFormat::of(&entry.rel, &settings.code_extensions);
    if matches!(format, chunk::DocFormat::Code(_))
        && let Some(reason) = chunk::code::is_probably_generated(&loaded.text)
    {
        return Outcome::Skipped(Warning {
            path: entry.rel.clone(),
            line: None,
            message: format!("skipped: looks generated or minified ({reason})"),
        });
    }
    let chunked = chunk::chunk_document(&entry.rel, &loaded.text, format, opts);
    Outcome::Fresh(Fresh {
        entry: entry.clone(),
        row,
        chunks: chunked.chunks,
        notes: chunked.notes,
    })
}
