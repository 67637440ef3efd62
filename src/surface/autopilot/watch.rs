//! File events: a recursive `notify` watcher behind `notify-debouncer-full`, and
//! the filter that decides which paths are changes to the segment.
//!
//! The watcher never triggers itself: everything a round writes is under `_ctx/`,
//! which the filter drops, as it drops hidden paths (the walker skips them too),
//! gitignored paths and editors' temp files. Reads are not changes: inotify
//! reports every `open` a build makes, so access events other than
//! close-after-write are dropped too.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::Duration;

use ignore::gitignore::Gitignore;
use notify_debouncer_full::notify::event::{AccessKind, AccessMode};
use notify_debouncer_full::notify::{
    self, EventKind, PollWatcher, RecommendedWatcher, RecursiveMode,
};
use notify_debouncer_full::{
    DebounceEventResult, DebouncedEvent, NoCache, RecommendedCache, new_debouncer_opt,
};

use crate::segment::CTX_DIR;

/// What the watcher's threads send to the main loop.
pub(super) enum Msg {
    /// A debounced batch of events, or watcher errors.
    Fs(DebounceEventResult),
    /// SIGINT, SIGTERM or SIGHUP arrived.
    Signal(i32),
}

/// How changes are noticed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The OS's notifications (inotify on Linux).
    Events,
    /// Rescanning the tree at an interval.
    Poll,
}

impl Backend {
    /// `events` or `poll`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Events => "events",
            Backend::Poll => "poll",
        }
    }
}

/// A running debounced watcher; dropping it stops it.
pub(super) struct Watch {
    backend: Backend,
    /// The debouncer, held only to keep it running (it stops on drop).
    _debouncer: Box<dyn std::any::Any>,
}

/// How often the debouncer looks for expired events: the crate's own choice of a
/// quarter of the debounce, capped so a long debounce adds at most 250 ms. The
/// debouncer thread wakes at every tick even when idle; measured on a 2-core VM a
/// wake-up costs ~40 µs, so a 50 ms tick (200 ms debounce) is ~0.08 % of a core.
fn tick(debounce: Duration) -> Duration {
    (debounce / 4).clamp(Duration::from_millis(2), Duration::from_millis(250))
}

/// How often `--poll` (or the fallback) rescans: each scan stats every file, so not
/// more often than 4 times a second however short the debounce.
pub(super) fn poll_interval(debounce: Duration) -> Duration {
    debounce.clamp(Duration::from_millis(250), Duration::from_secs(5))
}

impl Watch {
    /// Watches `root` recursively with OS events.
    pub(super) fn events(
        root: &Path,
        debounce: Duration,
        tx: Sender<Msg>,
    ) -> notify::Result<Watch> {
        let mut debouncer = new_debouncer_opt::<_, RecommendedWatcher, RecommendedCache>(
            debounce,
            Some(tick(debounce)),
            move |result| {
                let _ = tx.send(Msg::Fs(result));
            },
            RecommendedCache::new(),
            notify::Config::default(),
        )?;
        debouncer.watch(root, RecursiveMode::Recursive)?;
        Ok(Watch {
            backend: Backend::Events,
            _debouncer: Box::new(debouncer),
        })
    }

    /// Watches `root` by rescanning it every [`poll_interval`].
    pub(super) fn poll(root: &Path, debounce: Duration, tx: Sender<Msg>) -> notify::Result<Watch> {
        let mut debouncer = new_debouncer_opt::<_, PollWatcher, NoCache>(
            debounce,
            Some(tick(debounce)),
            move |result| {
                let _ = tx.send(Msg::Fs(result));
            },
            NoCache,
            notify::Config::default().with_poll_interval(poll_interval(debounce)),
        )?;
        debouncer.watch(root, RecursiveMode::Recursive)?;
        Ok(Watch {
            backend: Backend::Poll,
            _debouncer: Box::new(debouncer),
        })
    }

    /// Which backend this is.
    pub(super) fn backend(&self) -> Backend {
        self.backend
    }
}

/// True when `error` means the OS ran out of watches or inotify instances, which
/// polling does not need (`fs.inotify.max_user_watches`, `max_user_instances`).
pub(super) fn is_watch_limit(error: &notify::Error) -> bool {
    match &error.kind {
        notify::ErrorKind::MaxFilesWatch => true,
        notify::ErrorKind::Io(e) => {
            e.raw_os_error() == Some(rustix::io::Errno::MFILE.raw_os_error())
                || e.raw_os_error() == Some(rustix::io::Errno::NOSPC.raw_os_error())
        }
        _ => false,
    }
}

/// A watcher error in words, with its paths in backticks (notify's own `Display`
/// prints them with `Debug`).
pub(super) fn describe(error: &notify::Error) -> String {
    let what = match &error.kind {
        notify::ErrorKind::Generic(message) => message.clone(),
        notify::ErrorKind::Io(e) => e.to_string(),
        notify::ErrorKind::PathNotFound => "no such path".into(),
        notify::ErrorKind::WatchNotFound => "no such watch".into(),
        notify::ErrorKind::InvalidConfig(_) => "invalid watcher configuration".into(),
        notify::ErrorKind::MaxFilesWatch => "the OS limit on file watches was reached".into(),
    };
    let paths: Vec<String> = error
        .paths
        .iter()
        .map(|p| format!("`{}`", p.display()))
        .collect();
    if paths.is_empty() {
        what
    } else {
        format!("{what} at {}", paths.join(", "))
    }
}

/// Errors not worth a log line: a path that vanished before the watcher got to it
/// (temp files and directories come and go), or errors about ignored paths only
/// (the poll watcher trips over `_ctx/index` temp files).
pub(super) fn is_noise(error: &notify::Error, filter: &Filter) -> bool {
    let vanished = match &error.kind {
        notify::ErrorKind::PathNotFound => true,
        notify::ErrorKind::Io(e) => e.kind() == std::io::ErrorKind::NotFound,
        _ => false,
    };
    vanished
        || (!error.paths.is_empty()
            && error
                .paths
                .iter()
                .all(|p| filter.classify(p) == Verdict::Ignore))
}

/// Whether a path is a change, and whether it changes the filter or the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Not part of the segment's sources.
    Ignore,
    /// A change.
    Change,
    /// A `.gitignore`/`.ignore` changed: a change, and the filter must be rebuilt.
    IgnoreRules,
    /// `session.md` changed: a change, and the configuration must be reloaded.
    Session,
}

/// Decides which paths under the segment are changes.
pub(super) struct Filter {
    root: PathBuf,
    /// Matchers of the segment's ignore files, deepest directory first, so the
    /// nearest file decides, as in git.
    ignores: Vec<Gitignore>,
}

/// Names of ignore files the walker honours (`require_git(false)`).
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

impl Filter {
    /// Reads every ignore file of the segment that the walker would see.
    pub(super) fn new(root: &Path) -> Filter {
        let mut ignores = Vec::new();
        let mut builder = ignore::WalkBuilder::new(root);
        builder
            .hidden(true)
            .require_git(false)
            .git_global(false)
            .follow_links(false)
            .filter_entry(|e| !(e.depth() == 1 && e.file_name() == CTX_DIR));
        for entry in builder.build().flatten() {
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                continue;
            }
            for name in IGNORE_FILES {
                let file = entry.path().join(name);
                if file.is_file() {
                    // A malformed line only loses that line, as in git.
                    let (matcher, _) = Gitignore::new(&file);
                    ignores.push(matcher);
                }
            }
        }
        let exclude = root.join(".git").join("info").join("exclude");
        if exclude.is_file() {
            let mut b = ignore::gitignore::GitignoreBuilder::new(root);
            let _ = b.add(&exclude);
            if let Ok(m) = b.build() {
                ignores.push(m);
            }
        }
        ignores.sort_by_key(|m| std::cmp::Reverse(m.path().components().count()));
        Filter {
            root: root.to_path_buf(),
            ignores,
        }
    }

    /// The verdict on one path reported by the watcher.
    pub(super) fn classify(&self, path: &Path) -> Verdict {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return Verdict::Ignore;
        };
        let names: Vec<&str> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => n.to_str(),
                _ => None,
            })
            .collect();
        let Some(file_name) = names.last() else {
            // The root itself (moved, removed, attributes): worth a round.
            return Verdict::Change;
        };
        if names.len() != rel.components().count() {
            // A non-UTF-8 name: the walker reports such files with a warning, so a
            // round is how the user hears of them.
            return Verdict::Change;
        }
        if names[0] == CTX_DIR {
            return Verdict::Ignore;
        }
        let parents_hidden = names[..names.len() - 1].iter().any(|n| n.starts_with('.'));
        if IGNORE_FILES.contains(file_name) && !parents_hidden {
            return Verdict::IgnoreRules;
        }
        if parents_hidden || file_name.starts_with('.') || is_editor_temp(file_name) {
            return Verdict::Ignore;
        }
        // A removed path cannot be stat'ed; as a file it still matches `dir/`
        // rules through its parents.
        let is_dir = path.is_dir();
        for matcher in &self.ignores {
            if !path.starts_with(matcher.path()) {
                continue;
            }
            let m = matcher.matched_path_or_any_parents(path, is_dir);
            if m.is_ignore() {
                return Verdict::Ignore;
            }
            if m.is_whitelist() {
                break;
            }
        }
        if names.len() == 1 && *file_name == "session.md" {
            return Verdict::Session;
        }
        Verdict::Change
    }
}

/// Editors' scratch files: vim swap (`.swp`, `.swx`, `.swo`…) and its `4913`
/// write probe, backups (`~`), emacs autosaves (`#x#`), and `*.tmp`. Dotted ones
/// (`.#x`, `.x.swp`) are hidden and dropped before this.
fn is_editor_temp(name: &str) -> bool {
    name == "4913"
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name.ends_with(".tmp")
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with(".swo")
}

/// Changes gathered from one or more batches, waiting for a round.
#[derive(Debug, Default)]
pub(super) struct Pending {
    /// Changed paths under the segment.
    pub(super) paths: BTreeSet<PathBuf>,
    /// Why a round is due without changed paths (start-up staleness, a rescan).
    pub(super) reason: Option<String>,
    /// An ignore file changed.
    pub(super) ignore_rules: bool,
    /// `session.md` changed.
    pub(super) session: bool,
}

impl Pending {
    /// Nothing to do.
    pub(super) fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.reason.is_none()
    }

    /// Adds the changes of one debounced batch.
    pub(super) fn absorb(&mut self, events: &[DebouncedEvent], filter: &Filter) {
        for event in events {
            if event.need_rescan() {
                self.reason
                    .get_or_insert_with(|| "the OS dropped events; rescanning".into());
                continue;
            }
            if let EventKind::Access(kind) = event.kind
                && kind != AccessKind::Close(AccessMode::Write)
            {
                continue;
            }
            for path in &event.paths {
                match filter.classify(path) {
                    Verdict::Ignore => continue,
                    Verdict::Change => {}
                    Verdict::IgnoreRules => self.ignore_rules = true,
                    Verdict::Session => self.session = true,
                }
                self.paths.insert(path.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_verdicts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join(".gitignore"), "scratch/\n*.log\n").unwrap();
        std::fs::create_dir_all(root.join("docs/gen")).unwrap();
        std::fs::write(root.join("docs/.gitignore"), "gen/\n!keep.log\n").unwrap();
        std::fs::create_dir_all(root.join("scratch")).unwrap();
        let f = Filter::new(&root);
        let v = |rel: &str| f.classify(&root.join(rel));
        assert_eq!(v("README.md"), Verdict::Change);
        assert_eq!(v("docs/new/dir"), Verdict::Change);
        assert_eq!(v("session.md"), Verdict::Session);
        assert_eq!(v("docs/session.md"), Verdict::Change);
        assert_eq!(v(".gitignore"), Verdict::IgnoreRules);
        assert_eq!(v("docs/.gitignore"), Verdict::IgnoreRules);
        for ignored in [
            "_ctx/index/meta.json",
            "_ctx",
            ".git/index",
            ".git/.gitignore",
            "docs/.faq.md.swp",
            "docs/faq.md~",
            "docs/4913",
            "docs/.#faq.md",
            "docs/#faq.md#",
            "docs/x.tmp",
            "scratch/a.md",
            "scratch",
            "a.log",
            "docs/gen/x.md",
        ] {
            assert_eq!(v(ignored), Verdict::Ignore, "{ignored}");
        }
        assert_eq!(v("docs/keep.log"), Verdict::Change, "nearest file decides");
        assert_eq!(f.classify(Path::new("/elsewhere/a.md")), Verdict::Ignore);
    }

    #[test]
    fn watch_limit_errors() {
        let limit = notify::Error::new(notify::ErrorKind::MaxFilesWatch).add_path("/x/a".into());
        assert!(is_watch_limit(&limit));
        assert_eq!(
            describe(&limit),
            "the OS limit on file watches was reached at `/x/a`"
        );
        let nospc = notify::Error::io(std::io::Error::from_raw_os_error(
            rustix::io::Errno::NOSPC.raw_os_error(),
        ));
        assert!(is_watch_limit(&nospc));
        assert!(!is_watch_limit(&notify::Error::path_not_found()));
        let filter = Filter::new(Path::new("/x"));
        let gone = notify::Error::io(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(is_noise(&gone, &filter));
        let in_ctx = notify::Error::generic("boom").add_path("/x/_ctx/index/t".into());
        assert!(is_noise(&in_ctx, &filter));
        let real = notify::Error::generic("boom").add_path("/x/docs".into());
        assert!(!is_noise(&real, &filter));
    }

    #[test]
    fn ticks_are_bounded() {
        assert_eq!(tick(Duration::from_millis(200)), Duration::from_millis(50));
        assert_eq!(tick(Duration::from_secs(60)), Duration::from_millis(250));
        assert_eq!(tick(Duration::from_millis(10)), Duration::from_micros(2500));
        assert_eq!(
            poll_interval(Duration::from_millis(10)),
            Duration::from_millis(250)
        );
    }
}
