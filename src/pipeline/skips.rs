//! Files a build finds but does not index. Reading one again each build would
//! cost what it cost the first time (a 4 MB minified bundle is read, hashed and
//! scanned before it is refused), and the refresh before every search is a
//! build: so a skip is remembered with the file's size and mtime and the
//! limit it was judged under, and the file is read again only when one changes.

use std::collections::HashMap;

use crate::catalog::{Catalog, Skip, Tx};
use crate::error::{Result, Warning, WarningKind};
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
        // A file that could not be read may become readable without its
        // mtime changing (`chmod`), and failing to read it again is cheap.
        if s.size != e.size || s.mtime_ns != e.mtime_ns || s.kind == WarningKind::Unreadable {
            return None;
        }
        self.now.push(s.clone());
        Some(Warning::file(&s.path, s.kind, &s.message))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rel: &str, size: u64, mtime_ns: i64) -> SourceEntry {
        SourceEntry {
            rel: rel.into(),
            abs: rel.into(),
            size,
            mtime_ns,
        }
    }

    fn skips(recorded: &[(&str, WarningKind)], usable: bool) -> Skips {
        Skips {
            before: recorded
                .iter()
                .map(|&(path, kind)| {
                    let s = Skip {
                        path: path.into(),
                        size: 10,
                        mtime_ns: 7,
                        kind,
                        message: "skipped: why".into(),
                    };
                    (s.path.clone(), s)
                })
                .collect(),
            usable,
            now: Vec::new(),
            limit: 100,
            limit_changed: false,
        }
    }

    #[test]
    fn a_skip_is_carried_while_the_file_stands_unless_it_was_unreadable() {
        let mut s = skips(
            &[
                ("a.md", WarningKind::Binary),
                ("b.md", WarningKind::Unreadable),
            ],
            true,
        );
        assert!(s.carry(&entry("a.md", 10, 7)).is_some());
        assert!(s.carry(&entry("a.md", 11, 7)).is_none(), "size changed");
        assert!(s.carry(&entry("a.md", 10, 8)).is_none(), "mtime changed");
        assert!(s.carry(&entry("b.md", 10, 7)).is_none(), "read again");
        assert!(s.carry(&entry("c.md", 10, 7)).is_none(), "never skipped");
        // Only a.md was carried, so the record changed (b.md went).
        assert!(s.changed());
        let mut full = skips(&[("a.md", WarningKind::Binary)], false);
        assert!(
            full.carry(&entry("a.md", 10, 7)).is_none(),
            "a full build reads all"
        );
    }
}
