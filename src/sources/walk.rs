//! Walking a segment with the `ignore` crate (the walker ripgrep uses).
//!
//! `.gitignore` is honoured even outside a git repository, `_ctx/` is never
//! entered, symlinks are followed only while they stay inside the segment, and a
//! symlink loop is reported once and skipped.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::UNIX_EPOCH;

use globset::{Glob, GlobSet, GlobSetBuilder};

use super::manifest::{self, MANIFESTS, Package};
use crate::config::Settings;
use crate::error::{Error, Result, Warning, WarningKind};
use crate::segment::CTX_DIR;

/// A file selected for indexing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEntry {
    /// Path relative to the segment root, `/`-separated.
    pub rel: String,
    /// Absolute path.
    pub abs: PathBuf,
    /// Size in bytes at walk time.
    pub size: u64,
    /// Modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
}

/// The result of a walk: files in path order and what was skipped.
#[derive(Debug, Default)]
pub struct Walked {
    /// Selected files, sorted by `rel`.
    pub files: Vec<SourceEntry>,
    /// Things skipped with a reason.
    pub warnings: Vec<Warning>,
    /// Directories below the root holding a package manifest (`Cargo.toml`,
    /// `package.json`, …), sorted: the members of a workspace or monorepo.
    pub packages: Vec<Package>,
    /// Every directory entered (`""` is the root) with its mtime, and every
    /// ignore file in them with its size and mtime, in no order: what
    /// [`super::unchanged::WalkState`] records.
    pub seen: Seen,
}

/// Directories and ignore files a walk saw (see [`Walked::seen`]).
#[derive(Debug, Default)]
pub struct Seen {
    /// `(path, mtime_ns)`.
    pub dirs: Vec<(String, i64)>,
    /// `(path, size, mtime_ns)`.
    pub ignores: Vec<(String, u64, i64)>,
    /// The package manifests found, `(path, size, mtime_ns)`.
    pub manifests: Vec<(String, u64, i64)>,
}

/// The ignore files a walk reads in each directory (`.git/info/exclude`
/// only at the root; `git_global` is off).
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

impl Seen {
    /// Adds directory `rel` of `root` (following symlinks) and its ignore files.
    fn add(&mut self, root: &Path, rel: &str) {
        let join = |name: &str| match rel {
            "" => name.to_string(),
            _ => format!("{rel}/{name}"),
        };
        let names = IGNORE_FILES
            .iter()
            .copied()
            .chain(rel.is_empty().then_some(".git/info/exclude"));
        for name in names {
            let path = join(name);
            if let Some((size, mtime)) = stat(&root.join(&path)) {
                self.ignores.push((path, size, mtime));
            }
        }
        // A directory gone since it was read makes a state that never holds.
        let mtime = stat(&root.join(rel)).map_or(i64::MAX, |(_, m)| m);
        self.dirs.push((rel.to_string(), mtime));
    }
}

/// Size and mtime of `path` (following symlinks), if it exists.
pub(super) fn stat(path: &Path) -> Option<(u64, i64)> {
    std::fs::metadata(path)
        .ok()
        .map(|m| (m.len(), mtime_ns(&m)))
}

/// Modification time in ns since the Unix epoch (0 when unknown).
pub(super) fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

fn globset(patterns: &[String], what: &str) -> Result<GlobSet> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        let glob = Glob::new(p).map_err(|e| {
            Error::Invalid(format!("invalid {what} glob `{p}` in _ctx/ctx.toml: {e}"))
        })?;
        b.add(glob);
    }
    b.build()
        .map_err(|e| Error::Invalid(format!("invalid {what} globs: {e}")))
}

/// Selects the files of `root` to index according to `settings`.
///
/// `extra` decides about files the include globs do not match (used for code
/// files of supported languages); it gets the relative path.
///
/// Directories are read on several threads: a walk of a large tree is mostly
/// `getdents` and `stat` calls (three per directory just to look for ignore
/// files), and they overlap well. The result is sorted afterwards.
pub fn walk(
    root: &Path,
    settings: &Settings,
    extra: &(dyn Fn(&str) -> bool + Sync),
) -> Result<Walked> {
    let include = globset(&settings.include, "include")?;
    let exclude = globset(&settings.exclude, "exclude")?;
    let warnings = Arc::new(Mutex::new(Vec::new()));
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .follow_links(true)
        .require_git(false)
        .git_global(false)
        .hidden(true)
        .threads(WALK_THREADS);
    let filter_root = root.to_path_buf();
    let filter_warnings = Arc::clone(&warnings);
    builder.filter_entry(move |entry| {
        if entry.depth() == 1 && entry.file_name() == CTX_DIR {
            return false;
        }
        // Checked here, not after: a skipped directory must not be descended.
        if entry.path_is_symlink() {
            let inside = entry
                .path()
                .canonicalize()
                .is_ok_and(|real| real.starts_with(&filter_root));
            if !inside {
                push_warning(
                    &filter_warnings,
                    &filter_root,
                    entry.path(),
                    WarningKind::SymlinkOutside,
                    "symlink leads outside the segment; not followed".into(),
                );
                return false;
            }
        }
        true
    });
    let files = Mutex::new(Vec::new());
    let packages = Mutex::new(Vec::new());
    let mut root_seen = Seen::default();
    root_seen.add(root, "");
    let seen = Mutex::new(root_seen);
    let select = Select {
        root,
        include: &include,
        exclude: &exclude,
        extra,
        warnings: &warnings,
        packages: &packages,
        seen: &seen,
    };
    builder.build_parallel().run(|| {
        Box::new(|result| {
            if let Some(file) = select.entry(result)
                && let Ok(mut files) = files.lock()
            {
                files.push(file);
            }
            ignore::WalkState::Continue
        })
    });
    let mut files = files.into_inner().unwrap_or_default();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    let packages = manifest::merge(packages.into_inner().unwrap_or_default());
    let mut warnings = warnings.lock().map(|w| w.clone()).unwrap_or_default();
    // Threads finish in any order; the report should not.
    warnings.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    Ok(Walked {
        files,
        warnings,
        packages,
        seen: seen.into_inner().unwrap_or_default(),
    })
}

/// Threads reading directories (two took a 690-directory walk from 16 to 12 ms;
/// more were not measured, and a walk is a small part of any build).
const WALK_THREADS: usize = 2;

/// What a walker thread needs to decide about one entry.
struct Select<'a> {
    root: &'a Path,
    include: &'a GlobSet,
    exclude: &'a GlobSet,
    extra: &'a (dyn Fn(&str) -> bool + Sync),
    warnings: &'a Mutex<Vec<Warning>>,
    packages: &'a Mutex<Vec<(String, Option<String>)>>,
    seen: &'a Mutex<Seen>,
}

impl Select<'_> {
    /// The entry as a selected file, or `None` (skipped, with a warning when
    /// it could not be read).
    fn entry(
        &self,
        result: std::result::Result<ignore::DirEntry, ignore::Error>,
    ) -> Option<SourceEntry> {
        let warn = |path: &Path, kind: WarningKind, message: String| {
            push_warning(self.warnings, self.root, path, kind, message)
        };
        let entry = match result {
            Ok(e) => e,
            Err(err) => {
                let path = error_path(&err).unwrap_or_else(|| self.root.to_path_buf());
                let (kind, message) = match loop_of(&err) {
                    Some(ancestor) => (
                        WarningKind::SymlinkLoop,
                        format!(
                            "symlink loop back to `{}`; skipped",
                            rel_of(self.root, &ancestor)
                        ),
                    ),
                    None => (
                        WarningKind::Unreadable,
                        format!("cannot read: {err}; skipped"),
                    ),
                };
                warn(&path, kind, message);
                return None;
            }
        };
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if entry.depth() > 0 {
                // Read here, on the walk's threads, not after it.
                let mut one = Seen::default();
                one.add(self.root, &rel_of(self.root, entry.path()));
                if let Ok(mut seen) = self.seen.lock() {
                    seen.dirs.append(&mut one.dirs);
                    seen.ignores.append(&mut one.ignores);
                }
            }
            return None;
        }
        if !kind.is_file() {
            return None;
        }
        let rel = rel_of(self.root, entry.path());
        // The root's own manifest names the whole segment, which tells no
        // part of it apart.
        if let Some((dir, name)) = rel.rsplit_once('/')
            && MANIFESTS.contains(&name)
            && !self.exclude.is_match(&rel)
        {
            // Stated before it is read: an edit in between moves the mtime
            // past the one recorded, and the next refresh reads it again.
            if let Some((size, mtime)) = stat(entry.path())
                && let Ok(mut seen) = self.seen.lock()
            {
                seen.manifests.push((rel.clone(), size, mtime));
            }
            let declared = manifest::declared_name(entry.path(), name);
            if let Ok(mut p) = self.packages.lock() {
                p.push((dir.to_string(), declared));
            }
        }
        let wanted = self.include.is_match(&rel) || (self.extra)(&rel);
        if !wanted || self.exclude.is_match(&rel) {
            return None;
        }
        let meta = match entry.metadata() {
            Ok(m) => m,
            Err(e) => {
                warn(
                    entry.path(),
                    WarningKind::Unreadable,
                    format!("cannot stat: {e}; skipped"),
                );
                return None;
            }
        };
        Some(SourceEntry {
            rel,
            abs: entry.path().to_path_buf(),
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
        })
    }
}

fn push_warning(
    warnings: &Mutex<Vec<Warning>>,
    root: &Path,
    path: &Path,
    kind: WarningKind,
    message: String,
) {
    if let Ok(mut w) = warnings.lock() {
        w.push(Warning::file(rel_of(root, path), kind, message));
    }
}

/// `path` relative to `root` with `/` separators (the path itself if outside).
pub fn rel_of(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

fn error_path(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

fn loop_of(err: &ignore::Error) -> Option<PathBuf> {
    match err {
        ignore::Error::Loop { ancestor, .. } => Some(ancestor.clone()),
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => loop_of(err),
        _ => None,
    }
}
