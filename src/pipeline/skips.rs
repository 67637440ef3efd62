//! Files a build finds but does not index. Reading one again each build would
//! cost what it cost the first time (a 4 MB minified bundle is read, hashed and
//! scanned before it is refused), and the refresh before every search is a
//! build: so a skip is remembered with the file's size and mtime and the
//! limit it was judged under, and the file is read again only when one changes.

use std::collections::HashMap;

use crate::catalog::{Catalog, Skip, Tx};
use crate::error::{Result, Warning};
use crate::sources::SourceEntry;

/// Meta key of the `max_file_bytes` the recorded skips were judged under.
const LIMIT_KEY: &str = "skip_limit";

/// The skips the last build recorded and those of this build.
pub(super) struct Skips {
    /// Recorded by the last build, by path.
    before: HashMap<String, Skip>,
    /// Whether those may be carried over without reading the files again.
    usable: bool,
    /// Found or carried over by this build.
    now: Vec<Skip>,
    limit: u64,
    /// Whether the recorded limit differs from this build's.
    limit_changed: bool,
}

impl Skips {
    /// The skips recorded in `catalog`, to be carried over unless the build
    /// is `full` or the file size limit is not the one they were judged under.
    pub fn load(catalog: &Catalog, limit: u64, full: bool) -> Result<Skips> {
        let recorded = catalog.meta(LIMIT_KEY)?.and_then(|v| v.parse::<u64>().ok());
        let limit_changed = recorded != Some(limit);
        let before = catalog
            .skipped()?
            .into_iter()
            .map(|s| (s.path.clone(), s))
            .collect();
        Ok(Skips {
            before,
            usable: !full && !limit_changed,
            now: Vec::new(),
            limit,
            limit_changed,
        })
    }

    /// Whether `e` was skipped at its current size and mtime; if so it is
    /// skipped again without being read, and its warning is returned.
    pub fn carry(&mut self, e: &SourceEntry) -> Option<Warning> {
        let s = self.before.get(&e.rel).filter(|_| self.usable)?;
        if s.size != e.size || s.mtime_ns != e.mtime_ns {
            return None;
        }
        self.now.push(s.clone());
        Some(warning(s))
    }

    /// Records that this build read `e` and skipped it with `warning`.
    pub fn add(&mut self, e: &SourceEntry, warning: &Warning) {
        self.now.push(Skip {
            path: e.rel.clone(),
            size: e.size,
            mtime_ns: e.mtime_ns,
            kind: warning.kind,
            message: warning.message.clone(),
        });
    }

    /// Whether this build's skips differ from those recorded.
    pub fn changed(&self) -> bool {
        self.limit_changed
            || self.now.len() != self.before.len()
            || self
                .now
                .iter()
                .any(|s| self.before.get(&s.path).is_none_or(|b| b != s))
    }

    /// Records this build's skips in `tx` (when they changed).
    pub fn save(&mut self, tx: &Tx<'_>) -> Result<()> {
        if !self.changed() {
            return Ok(());
        }
        self.now.sort_by(|a, b| a.path.cmp(&b.path));
        tx.replace_skipped(&self.now)?;
        tx.set_meta(LIMIT_KEY, &self.limit.to_string())
    }
}

/// The build warning of a skip.
fn warning(s: &Skip) -> Warning {
    Warning {
        path: s.path.clone(),
        line: None,
        message: s.message.clone(),
        kind: s.kind,
    }
}
