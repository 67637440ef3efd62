//! A segment is one project directory; everything ctx writes lives in its `_ctx/`.
//!
//! Resolution of the `-s/--segment` argument:
//! - with `$CTX_ROOT` set, a bare name is looked up under that root; a name that
//!   could escape it (`..`, `a/../../b`, an absolute path, NUL, empty) is refused;
//! - otherwise the argument is a directory path;
//! - without an argument, the nearest ancestor of the working directory that has a
//!   `_ctx/` folder, else the working directory itself.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Result};

/// Name of the folder that holds everything ctx writes.
pub const CTX_DIR: &str = "_ctx";

/// One project directory and the paths ctx uses inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The project directory (canonical).
    pub root: PathBuf,
    /// A sanitized name for the segment (its directory name).
    pub name: String,
}

impl Segment {
    /// Resolves the segment argument (see the module docs).
    pub fn resolve(arg: Option<&str>, cwd: &Path, ctx_root: Option<&Path>) -> Result<Segment> {
        let dir = match (arg, ctx_root) {
            (Some(name), Some(root)) => {
                check_name(name)?;
                if name.contains('/') || name.contains('\\') {
                    check_relative_path(name)?;
                }
                root.join(name)
            }
            (Some(path), None) => {
                check_not_empty_or_nul(path)?;
                cwd.join(path)
            }
            (None, _) => cwd
                .ancestors()
                .find(|a| a.join(CTX_DIR).is_dir())
                .unwrap_or(cwd)
                .to_path_buf(),
        };
        Segment::open(&dir, arg.unwrap_or(""))
    }

    /// Opens the directory `dir` as a segment.
    pub fn open(dir: &Path, shown_as: &str) -> Result<Segment> {
        let shown = if shown_as.is_empty() {
            dir.display().to_string()
        } else {
            shown_as.to_string()
        };
        let root = dir.canonicalize().map_err(|e| Error::BadSegment {
            name: shown.escape_debug().to_string(),
            reason: format!(
                "`{}` cannot be opened ({e}); pass an existing project directory",
                dir.display()
            ),
        })?;
        if !root.is_dir() {
            return Err(Error::BadSegment {
                name: shown.escape_debug().to_string(),
                reason: "not a directory; pass a project directory".into(),
            });
        }
        let raw = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "root".into());
        Ok(Segment {
            name: sanitize_name(&raw),
            root,
        })
    }

    /// `<root>/_ctx`.
    pub fn ctx_dir(&self) -> PathBuf {
        self.root.join(CTX_DIR)
    }
    /// The pack file.
    pub fn pack_path(&self) -> PathBuf {
        self.ctx_dir().join("context_pack.json")
    }
    /// The SQLite catalog.
    pub fn db_path(&self) -> PathBuf {
        self.ctx_dir().join("context.db")
    }
    /// The tantivy index directory.
    pub fn index_dir(&self) -> PathBuf {
        self.ctx_dir().join("index")
    }
    /// The re-ranker's vector cache.
    pub fn vectors_path(&self) -> PathBuf {
        self.ctx_dir().join("vectors.db")
    }
    /// Where boxed relay values live.
    pub fn relay_dir(&self) -> PathBuf {
        self.ctx_dir().join("relay")
    }
    /// Optional settings file.
    pub fn config_path(&self) -> PathBuf {
        self.ctx_dir().join("ctx.toml")
    }
    /// Optional autopilot configuration (YAML front matter).
    pub fn session_md(&self) -> PathBuf {
        self.root.join("session.md")
    }
    /// Held for a whole build.
    pub fn build_lock(&self) -> PathBuf {
        self.ctx_dir().join(".build.lock")
    }
    /// Held by the one watcher of the segment.
    pub fn autopilot_lock(&self) -> PathBuf {
        self.ctx_dir().join(".autopilot.lock")
    }
    /// The watcher's JSON-lines log.
    pub fn autopilot_log(&self) -> PathBuf {
        self.ctx_dir().join("autopilot.log")
    }
}

fn check_not_empty_or_nul(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::BadSegment {
            name: String::new(),
            reason: "the segment is empty; pass a project directory or a segment name".into(),
        });
    }
    if name.contains('\0') {
        return Err(Error::BadSegment {
            name: name.escape_debug().to_string(),
            reason: "it contains a NUL byte".into(),
        });
    }
    Ok(())
}

/// Refuses names that could escape `$CTX_ROOT`.
pub fn check_name(name: &str) -> Result<()> {
    check_not_empty_or_nul(name)?;
    let refuse = |reason: &str| {
        Err(Error::BadSegment {
            name: name.escape_debug().to_string(),
            reason: reason.to_string(),
        })
    };
    if Path::new(name).is_absolute() || name.starts_with('\\') {
        return refuse("an absolute path where a segment name under $CTX_ROOT is expected");
    }
    if name == ".." || name == "." {
        return refuse("`.` and `..` are not segment names");
    }
    Ok(())
}

fn check_relative_path(name: &str) -> Result<()> {
    let mut depth: i64 = 0;
    for component in Path::new(name).components() {
        match component {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => {
                depth -= 1;
                if depth < 0 {
                    return Err(Error::BadSegment {
                        name: name.escape_debug().to_string(),
                        reason: "it leads outside $CTX_ROOT".into(),
                    });
                }
            }
            _ => {
                return Err(Error::BadSegment {
                    name: name.escape_debug().to_string(),
                    reason: "an absolute path where a segment name under $CTX_ROOT is expected"
                        .into(),
                });
            }
        }
    }
    if name.split(['/', '\\']).any(|c| c == "..") {
        return Err(Error::BadSegment {
            name: name.escape_debug().to_string(),
            reason: "`..` is not allowed in a segment name".into(),
        });
    }
    Ok(())
}

/// A display-safe segment name: `[A-Za-z0-9_.-]`, other characters become `-`.
pub fn sanitize_name(raw: &str) -> String {
    let s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let s = s.trim_matches('.').to_string();
    if s.is_empty() { "segment".into() } else { s }
}

/// True when `name` is already in sanitized form.
pub fn is_sanitized(name: &str) -> bool {
    !name.is_empty() && sanitize_name(name) == name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_names_are_refused_under_root() {
        let root = std::env::temp_dir();
        for bad in ["..", "a/../../b", "/etc", "", "a\0b", "../x"] {
            let err = Segment::resolve(Some(bad), &root, Some(&root)).unwrap_err();
            assert!(matches!(err, Error::BadSegment { .. }), "{bad:?}: {err}");
        }
    }

    #[test]
    fn sanitizing() {
        assert_eq!(sanitize_name("my project"), "my-project");
        assert_eq!(sanitize_name(".."), "segment");
        assert!(is_sanitized("k8s-enhancements"));
        assert!(!is_sanitized("a b"));
    }
}
