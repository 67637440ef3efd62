//! Names close to one no symbol answers to: `WalkBuilder::buld` is most
//! likely `WalkBuilder::build`, and an agent that misremembers a name
//! should not have to search for it.

use super::Retriever;
use super::candidates::{canon, in_place, member_qualified};
use super::modpath::{Places, path_parts};
use crate::error::Result;
use crate::index::name_key;

/// At most this many similar names are offered.
const MAX_SIMILAR: usize = 5;

/// A last part this short is too close to too many names to correct.
const MIN_KEY_CHARS: usize = 4;

impl Retriever {
    /// Symbols whose name's last part is within an edit or two of `name`'s
    /// (two from 8 letters on; a transposition is one) once case and
    /// underscores are set aside (`MaxFilesize` is `max_filesize`), in `file` when
    /// given: those in a container named like `name`'s, or at a place its
    /// leading parts name (`serde_json::from_strr`), first, then the
    /// closest, each as `` `Walk::build` (src/walk.rs:592) ``.
    pub(super) fn similar_names(&self, name: &str, file: Option<&str>) -> Result<Vec<String>> {
        let wanted = canon(name);
        let (container, last) = wanted.rsplit_once('.').unwrap_or(("", &wanted));
        let key = name_key(last);
        let chars = key.chars().count();
        if chars < MIN_KEY_CHARS {
            return Ok(Vec::new());
        }
        let distance = if chars >= 8 { 2 } else { 1 };
        let ids = self.reader.symbols_named_like(&key, distance)?;
        let packages = self.catalog.packages()?;
        let mut places = Places::new(&packages, self.root_names());
        let path = path_parts(container);
        // (not in a container named so, not at a place the path names, edits,
        // parts of its name, name, what is shown)
        let mut found: Vec<(bool, bool, usize, usize, String, String)> = Vec::new();
        for c in self.catalog.chunks_by_id(&ids)? {
            // An impl block is named by its type, which its definition
            // answers to.
            let Some(sym) = c.symbol.as_ref().filter(|s| s.kind != "impl") else {
                continue;
            };
            if file.is_some_and(|f| !in_place(&c.doc, f)) {
                continue;
            }
            let lines = sym.lines.unwrap_or(c.lines);
            let at_place = !path.is_empty() && places.lead_to(&path, &c, true);
            let members = sym
                .declared
                .iter()
                .map(|m| (member_qualified(&c, sym, m), m.lines));
            for (qualified, lines) in std::iter::once((sym.qualified.clone(), lines)).chain(members)
            {
                let q = canon(&qualified);
                let (their_container, their_last) = q.rsplit_once('.').unwrap_or(("", &q));
                let edits = strsim::osa_distance(&name_key(their_last), &key);
                // The same key written another way (`MaxFilesize`,
                // `maxfilesize` for `max_filesize`) is the likeliest slip of
                // all; the very same name only failed for its container.
                if edits > usize::from(distance) || (edits == 0 && their_last == last) {
                    continue;
                }
                let in_container =
                    !container.is_empty() && their_container.eq_ignore_ascii_case(container);
                let place = format!("`{qualified}` ({}:{})", c.doc, lines[0]);
                let parts = q.split('.').count();
                found.push((!in_container, !at_place, edits, parts, qualified, place));
            }
        }
        found.sort();
        // A name once, where it is nearest.
        let mut seen = std::collections::HashSet::new();
        found.retain(|f| seen.insert(f.4.clone()));
        Ok(found
            .into_iter()
            .take(MAX_SIMILAR)
            .map(|(.., place)| place)
            .collect())
    }
}
