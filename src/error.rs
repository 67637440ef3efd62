//! The library's error type and the warnings a build collects.
//!
//! Every message names the input that caused it and says what to do; the CLI
//! prints the message once, prefixed with `error:`.

use std::path::{Path, PathBuf};

/// Errors of the ctx library.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A segment argument that is not acceptable.
    #[error("invalid segment `{name}`: {reason}")]
    BadSegment {
        /// The argument as given (escaped for display).
        name: String,
        /// Why it is refused and what to do.
        reason: String,
    },
    /// An I/O failure on a named path.
    #[error("{action} `{path}`: {source}")]
    Io {
        /// What ctx was doing (`cannot read`, `cannot write`, …).
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A settings file that cannot be used.
    #[error("{path}{}: {message}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Config {
        /// The settings file.
        path: PathBuf,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// Another process holds a lock for longer than we may wait.
    #[error(
        "timed out after {waited_secs}s waiting for `{path}`, held by pid {holder}; another `ctx {what}` is running. Wait for it, or raise --lock-timeout"
    )]
    LockTimeout {
        /// The lock file.
        path: PathBuf,
        /// The holder's pid as it wrote it (`unknown` when unreadable).
        holder: String,
        /// Seconds waited.
        waited_secs: u64,
        /// Which command holds it (`build`, `autopilot`).
        what: &'static str,
    },
    /// A lock that is held and must not be waited for.
    #[error("`{path}` is held by pid {holder}: {message}")]
    LockHeld {
        /// The lock file.
        path: PathBuf,
        /// The holder's pid.
        holder: String,
        /// What that means for the user.
        message: String,
    },
    /// No pack has been built yet.
    #[error("no context pack at `{path}`; run `ctx build` first")]
    NoPack {
        /// Where the pack was expected.
        path: PathBuf,
    },
    /// A refresh found none of the indexed files (sources unmounted, moved, or
    /// a prebuilt pack shipped without them) and left the pack as it was.
    #[error(
        "no source files under `{}`, but the pack indexes {indexed} file{}; it was left as last built. If the sources moved, point -s at them; if they were removed on purpose, `ctx build` empties the pack",
        root.display(),
        if *indexed == 1 { "" } else { "s" }
    )]
    SourcesGone {
        /// The segment root.
        root: PathBuf,
        /// Files the catalog holds.
        indexed: usize,
    },
    /// A search of project files in a segment that has none.
    #[error("{}", nothing_indexed(root, *boxed, skipped))]
    NothingIndexed {
        /// The segment root.
        root: PathBuf,
        /// Whether tool outputs are boxed there.
        boxed: bool,
        /// The files the last build skipped, as `path: why`.
        skipped: Vec<String>,
    },
    /// A catalog written by another version of ctx, opened for reading.
    #[error(
        "catalog `{}` has layout {found}, this ctx reads layout {reads}; run `ctx build`",
        path.display()
    )]
    OldCatalog {
        /// The database file.
        path: PathBuf,
        /// Its layout.
        found: i64,
        /// The layout this ctx reads.
        reads: i64,
    },
    /// A pack file that cannot be read as a pack.
    #[error("context pack `{path}` cannot be read: {message}")]
    BadPack {
        /// The pack file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The catalog's file is not a database, or its pages are damaged.
    #[error(
        "catalog `{}` is damaged ({message}); run `ctx build --full`, which sets it aside as `{}.damaged` and rebuilds it from the sources (tool outputs boxed before can then no longer be resolved)",
        path.display(),
        path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()
    )]
    DamagedCatalog {
        /// The database file.
        path: PathBuf,
        /// SQLite's complaint.
        message: String,
    },
    /// SQLite failed.
    #[error("catalog `{path}`: {source}")]
    Catalog {
        /// The database file.
        path: PathBuf,
        /// The SQLite error.
        source: rusqlite::Error,
    },
    /// tantivy failed.
    #[error("index `{path}`: {message}")]
    Index {
        /// The index directory.
        path: PathBuf,
        /// The tantivy error, rendered.
        message: String,
    },
    /// A relay reference of another session was read by one that may read
    /// only its own; each surface says how to read it, if it can.
    #[error("reference `{reference}` belongs to another session (`{owner}`), not `{session}`")]
    OtherSession {
        /// The reference, `internal://<id>`.
        reference: String,
        /// The session that boxed it.
        owner: String,
        /// The reader's session.
        session: String,
    },
    /// A request that cannot be served as asked (unknown ID, bad argument…).
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(action: &'static str, path: impl AsRef<Path>, source: std::io::Error) -> Self {
        Error::Io {
            action,
            path: path.as_ref().to_path_buf(),
            source,
        }
    }
}

/// The message of [`Error::NothingIndexed`]: when the build skipped every file
/// it found, which ones and why, since "no files" would send the reader to
/// the wrong directory.
fn nothing_indexed(root: &Path, boxed: bool, skipped: &[String]) -> String {
    let relay = if boxed {
        "; only boxed tool outputs are, which scope relay searches (`--scope relay`)"
    } else {
        ""
    };
    match skipped {
        [] => format!(
            "nothing is indexed in `{}`: it has no Markdown, text or code files ctx reads{relay}. Run ctx in your project's directory or pass `-s DIR` (what is read: `include` and `exclude` in _ctx/ctx.toml)",
            root.display()
        ),
        [only] => format!(
            "nothing is indexed in `{}`: the one file ctx would read was skipped{relay}: {only}",
            root.display()
        ),
        [first, rest @ ..] => format!(
            "nothing is indexed in `{}`: all {} files ctx would read were skipped{relay}; the first: {first} (`ctx stats` lists them)",
            root.display(),
            rest.len() + 1
        ),
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Something a build noticed and worked around; the build goes on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Warning {
    /// The file concerned, relative to the segment root when inside it.
    pub path: String,
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// What happened and what ctx did.
    pub message: String,
    /// What sort of warning it is, for counting many of them.
    pub kind: WarningKind,
}

/// What a [`Warning`] is about. A build of a large tree can warn about
/// hundreds of files (a crate registry: 597 generated or minified, 388 that
/// the grammar cannot fully parse), and a reader wants them counted by kind.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// Over `max_file_bytes`; skipped.
    TooLarge,
    /// Has a NUL byte; skipped.
    Binary,
    /// Not UTF-8; skipped.
    NotUtf8,
    /// Generated or minified code; skipped.
    Generated,
    /// Could not be read or stat'ed; skipped.
    Unreadable,
    /// A symlink leading outside the segment; not followed.
    SymlinkOutside,
    /// A symlink back to an ancestor directory; skipped.
    SymlinkLoop,
    /// Code the grammar could not fully parse; indexed by symbols anyway.
    SyntaxErrors,
    /// Code split by lines instead of symbols.
    ByLines,
    /// JSON that does not parse; chunked as text.
    NotJson,
    /// The search index could not be read; rebuilt in full.
    IndexRebuilt,
    /// The catalog was damaged; set aside and rebuilt (`build --full`).
    CatalogRebuilt,
}

impl WarningKind {
    /// Every kind, in the order a summary lists them.
    pub const ALL: [WarningKind; 12] = [
        WarningKind::TooLarge,
        WarningKind::Binary,
        WarningKind::NotUtf8,
        WarningKind::Generated,
        WarningKind::Unreadable,
        WarningKind::SymlinkOutside,
        WarningKind::SymlinkLoop,
        WarningKind::SyntaxErrors,
        WarningKind::ByLines,
        WarningKind::NotJson,
        WarningKind::IndexRebuilt,
        WarningKind::CatalogRebuilt,
    ];

    /// Its name in JSON and in the catalog.
    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::TooLarge => "too_large",
            WarningKind::Binary => "binary",
            WarningKind::NotUtf8 => "not_utf8",
            WarningKind::Generated => "generated",
            WarningKind::Unreadable => "unreadable",
            WarningKind::SymlinkOutside => "symlink_outside",
            WarningKind::SymlinkLoop => "symlink_loop",
            WarningKind::SyntaxErrors => "syntax_errors",
            WarningKind::ByLines => "by_lines",
            WarningKind::NotJson => "not_json",
            WarningKind::IndexRebuilt => "index_rebuilt",
            WarningKind::CatalogRebuilt => "catalog_rebuilt",
        }
    }

    /// The kind named `name` by [`WarningKind::as_str`].
    pub fn parse(name: &str) -> Option<WarningKind> {
        WarningKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// What `n` files of this kind did, as a summary line says it.
    pub fn summary(self, n: usize) -> String {
        let files = match n {
            1 => "1 file".to_string(),
            _ => format!("{n} files"),
        };
        let (were, have, are) = match n {
            1 => ("was", "has", "is"),
            _ => ("were", "have", "are"),
        };
        match self {
            WarningKind::TooLarge => format!("{files} {were} skipped as over max_file_bytes"),
            WarningKind::Binary => format!("{files} {were} skipped as binary"),
            WarningKind::NotUtf8 => format!("{files} {were} skipped as not UTF-8"),
            WarningKind::Generated => format!("{files} {were} skipped as generated or minified"),
            WarningKind::Unreadable => format!("{files} could not be read"),
            WarningKind::SymlinkOutside => {
                format!("{files} {are} symlinks leading outside the segment, not followed")
            }
            WarningKind::SymlinkLoop => format!("{files} {are} symlink loops, skipped"),
            WarningKind::SyntaxErrors => format!(
                "{files} {have} syntax errors the grammar could not parse; symbols near them may be incomplete"
            ),
            WarningKind::ByLines => format!("{files} {were} split by lines instead of symbols"),
            WarningKind::NotJson => format!("{files} {are} not valid JSON, chunked as plain text"),
            WarningKind::IndexRebuilt => {
                "the search index could not be read and was rebuilt".into()
            }
            WarningKind::CatalogRebuilt => "the damaged catalog was set aside and rebuilt".into(),
        }
    }
}

impl Warning {
    /// A warning about the whole file at `path` (no line).
    pub fn file(path: impl Into<String>, kind: WarningKind, message: impl Into<String>) -> Warning {
        Warning {
            path: path.into(),
            line: None,
            message: message.into(),
            kind,
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warning_kind_reads_back_from_its_name_and_counts_in_words() {
        for k in WarningKind::ALL {
            assert_eq!(WarningKind::parse(k.as_str()), Some(k));
            let json = serde_json::to_string(&k).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
        }
        assert_eq!(WarningKind::parse("nonsense"), None);
        assert_eq!(
            WarningKind::Binary.summary(1),
            "1 file was skipped as binary"
        );
        assert_eq!(
            WarningKind::SyntaxErrors.summary(3),
            "3 files have syntax errors the grammar could not parse; symbols near them may be incomplete"
        );
    }
}
