//! `ctx build`, `ctx validate`, `ctx stats`.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use super::{Cli, open};
use crate::catalog::Catalog;
use crate::error::{Error, Warning, WarningKind};
use crate::index::SearchIndex;
use crate::index::packages::aliases;
use crate::pack;
use crate::pipeline::{self, BuildOptions, BuildReport, Progress};
use crate::segment::Segment;
use crate::surface::output::{Printer, sanitize};

/// Arguments of `ctx build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Seconds to wait for another build of this segment before failing.
    #[arg(long, default_value_t = 30, value_name = "SECS")]
    pub lock_timeout: u64,
    /// Rebuild everything instead of only what changed.
    #[arg(long)]
    pub full: bool,
    /// Print the wall time of each build stage to stderr (a pack written
    /// while the index commits is an `early pack`, and `pack` counts what was
    /// left of it after the commit; `compact` rewrites a catalog that a large
    /// rebuild left a quarter free).
    #[arg(long)]
    pub timings: bool,
}

/// An indicatif bar that appears only for builds with many files on a terminal.
struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn inc(&self) {
        self.0.inc(1);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

pub(super) fn build(cli: &Cli, p: &Printer, args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let bar = (!p.quiet && !p.json && std::io::stderr().is_terminal()).then(|| {
        let pb = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(8));
        pb.set_style(
            ProgressStyle::with_template("{spinner} chunking {pos}/{len} files {wide_bar} {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar(pb)
    });
    let report = pipeline::build(
        &seg,
        &settings,
        &BuildOptions {
            lock_timeout: Duration::from_secs(args.lock_timeout),
            full: args.full,
            progress: bar.as_ref().map(|b| b as &dyn Progress),
            refresh_only: false,
        },
    )?;
    if let Some(b) = &bar {
        b.finish();
    }
    print_report(p, &seg, &report);
    if args.timings && !p.json {
        let stages: Vec<String> = report
            .phases
            .iter()
            .map(|ph| format!("{} {:.0} ms", ph.name, ph.seconds * 1000.0))
            .collect();
        p.note(&format!("timings: {}", stages.join(", ")));
    }
    Ok(ExitCode::SUCCESS)
}

fn print_report(p: &Printer, seg: &Segment, r: &BuildReport) {
    if p.json {
        #[derive(Serialize)]
        struct Out<'a> {
            segment: &'a str,
            pack: String,
            #[serde(flatten)]
            report: &'a BuildReport,
            mb_per_s: f64,
        }
        p.json(&Out {
            segment: &seg.name,
            pack: seg.pack_path().display().to_string(),
            report: r,
            mb_per_s: mb_per_s(r),
        });
        return;
    }
    print_warnings(p, &r.warnings);
    let what = if r.noop {
        "up to date".to_string()
    } else {
        format!(
            "{} changed, {} removed{}",
            r.changed,
            r.removed,
            if r.full { " (full rebuild)" } else { "" }
        )
    };
    p.text(&format!(
        "{} {}: {}, {}, ~{} tokens, {}; {} in {:.2}s{}\n",
        p.accent("built"),
        sanitize(&seg.root.display().to_string()),
        counted(r.files, "file"),
        counted(r.chunks, "chunk"),
        r.tokens,
        counted(r.warnings.len(), "warning"),
        what,
        r.seconds,
        // A rate over a few kilobytes, or over nothing read, says nothing;
        // nor does one over files this build did not read.
        if r.changed == 0 || r.read_bytes < 1_000_000 {
            String::new()
        } else {
            format!(" ({:.1} MB/s)", mb_per_s(r))
        }
    ));
}

/// Warnings a build lists one by one. Past this many they are counted by
/// kind, one line each with an example (`-v` lists them all): a build of a
/// crate registry warned about 1,009 files, ~47,000 tokens for an agent that
/// only asked for a build.
const LISTED_WARNINGS: usize = 20;

fn print_warnings(p: &Printer, warnings: &[Warning]) {
    if warnings.len() <= LISTED_WARNINGS || p.verbose > 0 {
        for w in warnings {
            p.warn(&w.to_string());
        }
        return;
    }
    for kind in WarningKind::ALL {
        let mut of = warnings.iter().filter(|w| w.kind == kind);
        if let Some(first) = of.next() {
            let n = 1 + of.count();
            p.warn(&format!("{}, such as {first}", kind.summary(n)));
        }
    }
    p.note(&format!(
        "({} warnings in all: `ctx build -v` lists them, `ctx --json build` with their kinds)",
        warnings.len()
    ));
}

/// Skipped files `ctx stats` lists by name; JSON has them all.
const LISTED_SKIPS: usize = 10;

/// "1 file", "2 files".
fn counted(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        _ => format!("{n} {noun}s"),
    }
}

fn mb_per_s(r: &BuildReport) -> f64 {
    if r.seconds > 0.0 {
        r.read_bytes as f64 / 1e6 / r.seconds
    } else {
        0.0
    }
}

pub(super) fn validate(cli: &Cli, p: &Printer) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    let problems = match pack::load(&seg.pack_path()) {
        Ok(pack) => {
            let disk = pipeline::disk_view(&seg, &settings)?;
            pack::validate::validate(&pack, Some(&disk))
        }
        Err(e @ Error::NoPack { .. }) => return Err(e.into()),
        Err(e) => vec![pack::validate::Problem {
            check: "schema",
            message: e.to_string(),
        }],
    };
    if p.json {
        p.json(&serde_json::json!({
            "valid": problems.is_empty(),
            "pack": seg.pack_path().display().to_string(),
            "problems": problems,
        }));
    } else if problems.is_empty() {
        p.text(&format!(
            "{} {}\n",
            p.accent("valid"),
            seg.pack_path().display()
        ));
    } else {
        p.text(&format!(
            "{} problem(s) in {}:\n",
            problems.len(),
            seg.pack_path().display()
        ));
        for pr in &problems {
            p.text(&format!("- [{}] {}\n", pr.check, sanitize(&pr.message)));
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn dir_size(path: &Path) -> u64 {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m.len(),
        Ok(m) if m.is_dir() => std::fs::read_dir(path)
            .map(|rd| rd.flatten().map(|e| dir_size(&e.path())).sum())
            .unwrap_or(0),
        _ => 0,
    }
}

pub(super) fn stats(cli: &Cli, p: &Printer) -> anyhow::Result<ExitCode> {
    let (seg, _) = open(cli)?;
    let catalog = Catalog::open_read(&seg.db_path())?;
    let (files, chunks, tokens) = catalog.counts()?;
    let last = catalog
        .meta("last_build_ns")?
        .and_then(|v| v.parse::<i64>().ok())
        .map(pack::rfc3339);
    let db = sqlite_size(&seg.db_path());
    let vectors = sqlite_size(&seg.vectors_path());
    let index = dir_size(&seg.index_dir());
    let pack_bytes = dir_size(&seg.pack_path());
    let indexed = catalog.files()?;
    let source_bytes: u64 = indexed.values().map(|f| f.size).sum();
    // Files chunking noted something about, by kind (a file once per kind).
    let noted: Vec<(WarningKind, usize)> = WarningKind::ALL
        .into_iter()
        .map(|k| {
            let n = indexed
                .values()
                .filter(|f| f.notes.iter().any(|n| n.kind == k))
                .count();
            (k, n)
        })
        .filter(|&(_, n)| n > 0)
        .collect();
    let generation = catalog.generation()?;
    let skipped = catalog.skipped()?;
    let packages = catalog.packages()?;
    // The index is derived data: stats still answer without one.
    let (records, deleted) = SearchIndex::open(&seg.index_dir())
        .and_then(|i| i.reader())
        .map(|r| r.deleted_records())
        .unwrap_or_default();
    if p.json {
        p.json(&serde_json::json!({
            "segment": seg.name, "files": files, "chunks": chunks, "tokens": tokens,
            "source_bytes": source_bytes, "catalog_bytes": db, "index_bytes": index,
            "index_records": records, "index_deleted_records": deleted,
            "pack_bytes": pack_bytes, "vector_cache_bytes": vectors,
            "last_build": last, "generation": generation,
            "noted": noted.iter().map(|(k, n)| (k.as_str().to_string(), serde_json::json!(n))).collect::<serde_json::Map<_, _>>(),
            "skipped": skipped.iter().map(|s| serde_json::json!({
                "path": s.path, "bytes": s.size, "reason": s.reason(),
            })).collect::<Vec<_>>(),
            "packages": packages.iter().map(|p| &p.dir).collect::<Vec<_>>(),
            "package_names": packages.iter().filter_map(|p| {
                let names = aliases(p);
                (!names.is_empty()).then(|| (p.dir.clone(), serde_json::json!(names)))
            }).collect::<serde_json::Map<_, _>>(),
        }));
    } else {
        let ratio = (db + index) as f64 / source_bytes.max(1) as f64;
        p.text(&format!(
            "segment {}\nfiles {files}\nchunks {chunks}\ntokens ~{tokens}\nsources {:.1} MB\ncatalog {:.1} MB, index {:.1} MB ({ratio:.2}x sources)\nindex records {records} ({deleted} deleted, awaiting a merge)\npack {:.1} MB\nlast build {} (generation {generation})\n",
            seg.name,
            source_bytes as f64 / 1e6,
            db as f64 / 1e6,
            index as f64 / 1e6,
            pack_bytes as f64 / 1e6,
            last.unwrap_or_else(|| "never".into()),
        ));
        for (k, n) in &noted {
            p.text(&format!("indexed with a note: {}\n", k.summary(*n)));
        }
        // The names a query can scope itself with (`ctx search "toml_edit: …"`).
        if !packages.is_empty() {
            let mut line = format!(
                "packages {} (a query naming one ranks it first): ",
                packages.len()
            );
            let shown: Vec<String> = packages
                .iter()
                .take(LISTED_PACKAGES)
                .map(|p| match aliases(p).as_slice() {
                    [] => p.dir.clone(),
                    names => format!("{} ({})", p.dir, names.join(", ")),
                })
                .collect();
            line.push_str(&shown.join(", "));
            if packages.len() > LISTED_PACKAGES {
                line.push_str(&format!(
                    ", … and {} more",
                    packages.len() - LISTED_PACKAGES
                ));
            }
            p.text(&format!("{line}\n"));
        }
        if !skipped.is_empty() {
            let mut out = format!(
                "skipped {} at the last build (not searched):\n",
                counted(skipped.len(), "file")
            );
            for s in skipped.iter().take(LISTED_SKIPS) {
                out.push_str(&format!("  {}: {}\n", s.path, s.reason()));
            }
            if skipped.len() > LISTED_SKIPS {
                out.push_str(&format!(
                    "  … and {} more (`ctx --json stats` lists them all)\n",
                    skipped.len() - LISTED_SKIPS
                ));
            }
            p.text(&out);
        }
        if vectors > 0 {
            let size = if vectors < 100_000 {
                format!("{} KB", vectors.div_ceil(1000))
            } else {
                format!("{:.1} MB", vectors as f64 / 1e6)
            };
            p.text(&format!(
                "vector cache {size} (re-ranking; deleting it only costs time)\n"
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Package directories `ctx stats` names before it only counts the rest.
const LISTED_PACKAGES: usize = 12;

/// Bytes of a SQLite database with its write-ahead log and index.
fn sqlite_size(db: &Path) -> u64 {
    let mut total = dir_size(db);
    for suffix in ["-wal", "-shm"] {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        total += dir_size(Path::new(&p));
    }
    total
}
