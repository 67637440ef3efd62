//! What an item given to `get` stands for: a chunk ID, an indexed file (all of
//! its chunks), or a file with lines as `search` prints them
//! (`docs/ops.md:12-30`, `src/walk.rs:40`): the chunks that hold those lines.

use super::Retriever;
use crate::chunk::{Chunk, id};
use crate::error::{Error, Result};

/// A chunk `get` was asked for: the chunk, the stale ID it replaces, and
/// whether it was asked for as part of a file (or of its lines).
pub(super) type Item = (Chunk, Option<String>, bool);

impl Retriever {
    /// The chunks one requested item stands for, in document order.
    pub(super) fn expand(&self, requested: &str) -> Result<Vec<Item>> {
        if id::parse(requested).is_some() {
            let (c, replaces) = self.lookup(requested)?;
            return Ok(vec![(c, replaces, false)]);
        }
        // A whole file first, so a file whose name ends like `:12` is still
        // a file.
        if let Some(doc) = self.indexed_file(requested)? {
            let mut chunks = Vec::new();
            self.catalog.for_each_chunk_of(&doc, |c| {
                chunks.push((c.clone(), None, true));
                Ok(())
            })?;
            return Ok(chunks);
        }
        let Some((path, lines)) = split_lines(requested) else {
            return Err(self.unknown(requested, requested)?);
        };
        let lines = lines
            .map_err(|why| Error::Invalid(format!("`{}`: {why}", requested.escape_debug())))?;
        let Some(doc) = self.indexed_file(path)? else {
            return Err(self.unknown(requested, path)?);
        };
        let mut chunks = Vec::new();
        self.catalog.for_each_chunk_in_lines(&doc, lines, |c| {
            chunks.push((c.clone(), None, true));
            Ok(())
        })?;
        if chunks.is_empty() {
            let last = self.catalog.last_line_of(&doc)?;
            return Err(Error::Invalid(format!(
                "`{}`: line {} is past the end of the file, whose last line is {last}",
                requested.escape_debug(),
                lines[0]
            )));
        }
        Ok(chunks)
    }

    /// The indexed document that `name` (a path in the project, or the end
    /// of one) names; `None` when none does, an error when several do.
    fn indexed_file(&self, name: &str) -> Result<Option<String>> {
        let relative = self.project_path(name);
        let name = relative.as_ref();
        if name.is_empty() {
            return Ok(None);
        }
        let mut docs = self.catalog.docs_named(name)?;
        // A whole path wins over the ends of longer ones (`README.md`).
        if docs.iter().any(|d| d == name) {
            docs.retain(|d| d == name);
        }
        match docs.len() {
            0 => Ok(None),
            1 => Ok(docs.pop()),
            n => Err(Error::Invalid(format!(
                "`{}` names {n} indexed files: {}; give more of the path",
                name.escape_debug(),
                docs.iter()
                    .take(5)
                    .map(|d| format!("`{d}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if n > 5 { ", …" } else { "" }
            ))),
        }
    }
}

/// How a chunk ID looks, for messages about something that is not one.
pub(super) const ID_SHAPE: &str =
    "IDs look like `operations:3fa9c2e1d0` (doc stem, colon, 10 hex digits)";

impl Retriever {
    /// The error for an item `get` cannot resolve, whose file part is
    /// `path`: a file the build skipped says why, anything else gets the
    /// shapes of what `get` takes.
    fn unknown(&self, requested: &str, path: &str) -> Result<Error> {
        if let Some(e) = self.not_indexed(requested, path)? {
            return Ok(e);
        }
        Ok(Error::Invalid(format!(
            "`{}` is neither a chunk ID nor an indexed file; {ID_SHAPE}, files like `docs/ops.md` or, for some of its lines, `docs/ops.md:12-30` (path in the project, as search prints it). Use `ctx search` to find them",
            requested.escape_debug()
        )))
    }
}

/// `path:N` or `path:N-M` as the path and the 1-based, inclusive lines; the
/// lines are an error (saying why) when they cannot be lines of a file.
/// `None` when `s` does not end in such a suffix.
fn split_lines(s: &str) -> Option<(&str, std::result::Result<[usize; 2], String>)> {
    let (path, suffix) = s.rsplit_once(':')?;
    let (a, b) = suffix.split_once('-').unwrap_or((suffix, suffix));
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
    if path.is_empty() || !digits(a) || !digits(b) {
        return None;
    }
    let lines = match (a.parse::<usize>(), b.parse::<usize>()) {
        (Ok(0), _) | (_, Ok(0)) => Err("lines count from 1".to_string()),
        (Ok(first), Ok(last)) if first > last => Err(format!(
            "the range {first}-{last} ends before it starts; write the first line first"
        )),
        (Ok(first), Ok(last)) => Ok([first, last]),
        _ => Err("a line number is too large".to_string()),
    };
    Some((path, lines))
}

#[cfg(test)]
mod tests {
    use super::split_lines;

    #[test]
    fn lines_after_a_path() {
        assert_eq!(
            split_lines("docs/a.md:12-30"),
            Some(("docs/a.md", Ok([12, 30])))
        );
        assert_eq!(split_lines("a.rs:7"), Some(("a.rs", Ok([7, 7]))));
        assert_eq!(split_lines("c:/x/a.md:3"), Some(("c:/x/a.md", Ok([3, 3]))));
        for not_lines in [
            "a.md",
            "a.md:",
            ":3",
            "a.md:x",
            "a.md:3-",
            "a.md:-3",
            "a.md:1-2-3",
        ] {
            assert_eq!(split_lines(not_lines), None, "{not_lines}");
        }
        let why = |s| {
            split_lines(s)
                .and_then(|(_, l)| l.err())
                .unwrap_or_default()
        };
        assert_eq!(why("a.md:0"), "lines count from 1");
        assert!(why("a.md:30-12").contains("ends before it starts"));
        assert!(why("a.md:99999999999999999999999").contains("too large"));
    }
}
