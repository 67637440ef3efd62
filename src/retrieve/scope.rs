//! What a search looks at: the index filter of its kinds, scope and `--doc`
//! glob; and what it cannot see, the files the last build skipped (too large,
//! not UTF-8, binary, minified). "No evidence" and "nothing indexed" name
//! those, so the reader looks at the file size limit or the file, not at the
//! question.

use globset::{GlobBuilder, GlobMatcher};

use super::{Retriever, Scope, SearchOptions};
use crate::catalog::Skip;
use crate::error::{Error, Result};
use crate::index::Filter;

/// How many skipped files a note names before it only counts the rest.
const NAMED: usize = 2;

/// The matcher of a `--doc` glob (separators are not special, so `*.md`
/// matches in subdirectories too).
pub(super) fn doc_matcher(glob: &str) -> Result<GlobMatcher> {
    Ok(GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map_err(|e| Error::Invalid(format!("invalid --doc glob `{glob}`: {e}")))?
        .compile_matcher())
}

impl Retriever {
    /// The index filter of `opts`. A `--doc` glob that matches no indexed
    /// document is an error naming what it could match.
    pub(super) fn filter(&self, opts: &SearchOptions) -> Result<Filter> {
        let docs = match &opts.doc_glob {
            None => None,
            Some(glob) => {
                let m = doc_matcher(glob)?;
                let files = self.catalog.files()?;
                let docs: Vec<String> = files.keys().filter(|d| m.is_match(d)).cloned().collect();
                // Searching no document would answer "no evidence", blaming the
                // question for a mistyped path, or for a file the build skipped.
                if docs.is_empty()
                    && let [first, ..] = self.skipped(Some(&m))?.as_slice()
                {
                    return Err(Error::Invalid(format!(
                        "the doc glob `{glob}` matches only files the build skipped, such as {}: {}",
                        first.path,
                        first.reason()
                    )));
                }
                if docs.is_empty() && !files.is_empty() {
                    let mut some: Vec<&String> = files.keys().collect();
                    some.sort();
                    let some: Vec<String> = some.iter().take(3).map(|d| format!("`{d}`")).collect();
                    return Err(Error::Invalid(format!(
                        "no indexed document matches the doc glob `{glob}`; globs match paths relative to the segment root, e.g. {}",
                        some.join(", ")
                    )));
                }
                Some(docs)
            }
        };
        Ok(Filter {
            kinds: opts.kinds.clone(),
            scope: match opts.scope {
                Scope::Docs => Some("docs".into()),
                Scope::Relay => Some("relay".into()),
                Scope::All => None,
            },
            docs,
            packages: Vec::new(),
        })
    }

    /// The files the last build skipped, those `doc` matches when given.
    pub(super) fn skipped(&self, doc: Option<&GlobMatcher>) -> Result<Vec<Skip>> {
        let mut skips = self.catalog.skipped()?;
        skips.retain(|s| doc.is_none_or(|m| m.is_match(&s.path)));
        Ok(skips)
    }

    /// The error for `requested` (a file, or a file's lines) when its file
    /// `path` (in the project, or the end of one) is one the build skipped,
    /// or one it read and found blank.
    pub(super) fn not_indexed(&self, requested: &str, path: &str) -> Result<Option<Error>> {
        let path = self.project_path(path);
        let tail = format!("/{path}");
        if let Some(s) = self
            .skipped(None)?
            .into_iter()
            .find(|s| s.path == path || s.path.ends_with(&tail))
        {
            return Ok(Some(Error::Invalid(format!(
                "`{}` is not indexed: the build skipped {} ({})",
                requested.escape_debug(),
                s.path,
                s.reason()
            ))));
        }
        // A file read and found blank is counted, yet has no chunk to return;
        // a name that some file with chunks answers to is not about a blank one.
        if !self.catalog.docs_named(&path)?.is_empty() {
            return Ok(None);
        }
        let files = self.catalog.files()?;
        let blank = files
            .keys()
            .filter(|f| **f == *path || f.ends_with(&tail))
            .min_by_key(|f| (**f != *path, f.len(), f.as_str()));
        Ok(blank.map(|f| {
            Error::Invalid(format!(
                "`{}` is indexed but has nothing to return: {f} is empty or only whitespace",
                requested.escape_debug()
            ))
        }))
    }

    /// What to add to a search without evidence when the build skipped files
    /// (those `doc` matches, when given): the answer may be in one of them.
    pub(super) fn skipped_note(&self, doc: Option<&str>) -> Result<Option<String>> {
        let matcher = doc.map(doc_matcher).transpose()?;
        let skipped = self.skipped(matcher.as_ref())?;
        Ok(skipped_note(&skipped))
    }
}

/// "the build skipped …, which search cannot see" for `skipped`.
fn skipped_note(skipped: &[Skip]) -> Option<String> {
    let named: Vec<String> = skipped
        .iter()
        .take(NAMED)
        .map(|s| format!("{} ({})", s.path, s.reason()))
        .collect();
    match skipped.len() {
        0 => None,
        1 => Some(format!(
            "the build skipped {}, so search cannot see it",
            named[0]
        )),
        n if n <= NAMED => Some(format!(
            "the build skipped {n} files, which search cannot see: {}",
            named.join("; ")
        )),
        n => Some(format!(
            "the build skipped {n} files, which search cannot see: {}; and {} more (`ctx stats` lists them)",
            named.join("; "),
            n - NAMED
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::WarningKind;

    fn skips(n: usize) -> Vec<Skip> {
        (0..n)
            .map(|i| Skip {
                path: format!("f{i}.md"),
                size: 10,
                mtime_ns: 0,
                kind: WarningKind::Binary,
                message: format!("skipped: binary file (NUL byte at offset {i})"),
            })
            .collect()
    }

    #[test]
    fn names_one_or_two_files_and_counts_the_rest() {
        assert_eq!(skipped_note(&[]), None);
        assert_eq!(
            skipped_note(&skips(1)).as_deref(),
            Some(
                "the build skipped f0.md (binary file (NUL byte at offset 0)), so search cannot see it"
            )
        );
        let two = skipped_note(&skips(2)).unwrap_or_default();
        assert!(two.starts_with("the build skipped 2 files, which search cannot see: f0.md ("));
        assert!(two.contains("; f1.md ("));
        let five = skipped_note(&skips(5)).unwrap_or_default();
        assert!(
            five.ends_with("; and 3 more (`ctx stats` lists them)"),
            "{five}"
        );
        assert!(!five.contains("f2.md"));
    }
}
