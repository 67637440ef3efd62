//! Renamed imports in `refs`: a file that imports a name under another
//! (`use a::Polygon as Poly`, `from a import Polygon as P`, `import {
//! Polygon as Shape }`) uses it wherever it writes the other name.

use std::collections::HashMap;

use regex::Regex;

use super::Retriever;
use super::refs::{Ref, uses};
use crate::chunk::{Chunk, ChunkKind};
use crate::error::{Error, Result};

impl Retriever {
    /// The other names the files of `chunks` import `name` as, by document.
    /// Only a file with a line writing `name as …` has its imports read.
    pub(super) fn aliases(
        &self,
        name: &str,
        chunks: &[Chunk],
    ) -> Result<HashMap<String, Vec<String>>> {
        let renamed = word_regex(&format!(r"\b{}\s+as\s+[A-Za-z_$]", regex::escape(name)))?;
        let files: Vec<(&str, Option<&str>)> = chunks
            .iter()
            .filter(|c| c.kind == ChunkKind::Code && renamed.is_match(&c.text))
            .map(|c| (c.doc.as_str(), c.lang.as_deref()))
            .collect();
        let mut out = HashMap::new();
        for (doc, imports) in self.imports_of(&files)? {
            let names: Vec<String> = imports.aliases_of(name).map(str::to_string).collect();
            if !names.is_empty() {
                out.insert(doc, names);
            }
        }
        Ok(out)
    }
}

/// The words a use is found by: the name, and in files that import it
/// under other names, those too.
pub(super) struct Words {
    name: String,
    word: Regex,
    /// The files that import the name under other names, by document.
    aliased: HashMap<String, Aliased>,
}

/// The other names one file imports the name as.
struct Aliased {
    names: Vec<String>,
    /// The name or any of them, as a whole word.
    any: Regex,
    /// Any of them alone.
    only: Regex,
}

impl Words {
    pub(super) fn new(name: &str, aliases: HashMap<String, Vec<String>>) -> Result<Words> {
        let whole = |names: &[&str]| {
            let alternatives: Vec<String> = names.iter().map(|n| regex::escape(n)).collect();
            word_regex(&format!(r"\b(?:{})\b", alternatives.join("|")))
        };
        let mut aliased = HashMap::new();
        for (doc, names) in aliases {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let only = whole(&refs)?;
            let mut all = refs.clone();
            all.push(name);
            let any = whole(&all)?;
            aliased.insert(doc, Aliased { names, any, only });
        }
        Ok(Words {
            name: name.to_string(),
            word: whole(&[name])?,
            aliased,
        })
    }

    /// The regex of a use in `doc`.
    pub(super) fn of(&self, doc: &str) -> &Regex {
        self.aliased.get(doc).map_or(&self.word, |a| &a.any)
    }

    /// The names a use in `doc` may be written as, the name first.
    pub(super) fn names(&self, doc: &str) -> Vec<&str> {
        let mut names = vec![self.name.as_str()];
        if let Some(a) = self.aliased.get(doc) {
            names.extend(a.names.iter().map(String::as_str));
        }
        names
    }

    /// The lines of `c` using the name, as a [`Ref`] naming the alias its
    /// listed lines use, if any.
    pub(super) fn uses(&self, c: &Chunk) -> Option<Ref> {
        let mut r = uses(c, self.of(&c.doc))?;
        if let Some(a) = self.aliased.get(&c.doc) {
            r.via = r
                .hits
                .iter()
                .find_map(|h| a.only.find(&h.text))
                .map(|m| m.as_str().to_string());
        }
        Some(r)
    }
}

fn word_regex(pattern: &str) -> Result<Regex> {
    Regex::new(pattern).map_err(|e| Error::Invalid(format!("cannot look for `{pattern}`: {e}")))
}
