//! `refs NAME --file PLACE`: the uses of one definition of a name that
//! several files define. A use counts when it is in the definition's own
//! file, or when its file's imports lead the path the line writes
//! (`Value`, `serde_json::Value`, `email.message.Message`) to that
//! definition (see [`Meaning`]); Go code by its package (the directory, or
//! `pkg.Name`), and languages whose imports are not read (C, C++, Markdown)
//! by the package rule of `ctx symbol`'s lists: the definition's package,
//! when that defines the name once.

use std::collections::{HashMap, HashSet};

use super::Retriever;
use super::aliases::Words;
use super::attached::unit;
use super::candidates::in_place;
use super::implicit::{dir, package_name};
use super::imports::{Imports, Meaning, written_in};
use super::modpath::Places;
use super::refs::defines;
use crate::chunk::Chunk;
use crate::error::{Error, Result};

/// The uses of one definition: its document and the chunks that mean it.
pub(super) struct OfDefinition {
    /// The defining document.
    pub doc: String,
    /// The chunks meaning it, by ID; `None` when no other file defines the
    /// name, so every use means it.
    pub ids: Option<HashSet<String>>,
}

impl Retriever {
    /// Of `chunks` (those using `name` as a word, definitions included), the
    /// ones that mean the definition of `name` in `place`.
    pub(super) fn uses_of_definition(
        &self,
        name: &str,
        place: &str,
        chunks: &[Chunk],
        words: &Words,
    ) -> Result<OfDefinition> {
        let place = self.place(place)?;
        let defining: Vec<&Chunk> = chunks.iter().filter(|c| defines(c, name)).collect();
        let mut owners: Vec<&Chunk> = defining
            .iter()
            .copied()
            .filter(|c| in_place(&c.doc, &place))
            .collect();
        owners.dedup_by(|a, b| a.doc == b.doc);
        let owner = match owners.as_slice() {
            [one] => *one,
            [] => {
                let mut docs: Vec<&str> = defining.iter().map(|c| c.doc.as_str()).collect();
                docs.dedup();
                let known = match docs.is_empty() {
                    true => format!(
                        "`{name}` has no definition in this pack; without a file, its uses by name are listed"
                    ),
                    false => format!(
                        "`{name}` is defined in {}: give one of them as the file",
                        docs.join(", ")
                    ),
                };
                return Err(Error::Invalid(format!(
                    "no definition of `{name}` in `{place}`; {known}"
                )));
            }
            several => {
                let docs: Vec<&str> = several.iter().map(|c| c.doc.as_str()).collect();
                return Err(Error::Invalid(format!(
                    "`{place}` holds {} definitions of `{name}` ({}): give the file",
                    docs.len(),
                    docs.join(", ")
                )));
            }
        };
        let owner_doc = owner.doc.clone();
        let lang = owner.lang.clone().unwrap_or_default();
        let others: Vec<&str> = defining
            .iter()
            .map(|c| c.doc.as_str())
            .filter(|d| *d != owner_doc)
            .collect();
        if others.is_empty() {
            return Ok(OfDefinition {
                doc: owner_doc,
                ids: None,
            });
        }
        let packages = self.catalog.packages()?;
        let mut places = Places::new(&packages, self.root_names());
        let defined = defining
            .iter()
            .map(|c| (c.doc.as_str(), c.lang.as_deref()))
            .collect::<Vec<_>>();
        let mut meaning = Meaning::new(&owner_doc, name, &lang, defined, &mut places, &packages);
        let home = unit(&owner_doc, &packages);
        let home_defines_once = !others.iter().any(|d| unit(d, &packages) == home);
        let go_package = package_name(dir(&owner_doc));
        let users: Vec<(&str, Option<&str>)> = chunks
            .iter()
            .filter(|c| c.doc != owner_doc && !others.contains(&c.doc.as_str()))
            .map(|c| (c.doc.as_str(), c.lang.as_deref()))
            .collect();
        let imports = self.imports_of(&users)?;
        let mut kept = HashSet::new();
        for c in chunks {
            let keep = if c.doc == owner_doc {
                true
            } else if others.contains(&c.doc.as_str()) {
                false
            } else {
                let names = words.names(&c.doc);
                let written: Vec<Vec<String>> = c
                    .text
                    .lines()
                    .filter(|l| words.of(&c.doc).is_match(l))
                    .flat_map(|l| names.iter().flat_map(move |n| written_in(l, n)))
                    .collect();
                match (imports.get(&c.doc), c.lang.as_deref()) {
                    (Some(file_imports), _) => meaning.leads(&c.doc, file_imports, &written),
                    (None, Some("go")) => {
                        dir(&c.doc) == dir(&owner_doc)
                            || written
                                .iter()
                                .any(|w| w.len() >= 2 && w[w.len() - 2] == go_package)
                    }
                    (None, _) => home_defines_once && unit(&c.doc, &packages) == home,
                }
            };
            if keep {
                kept.insert(c.id.clone());
            }
        }
        Ok(OfDefinition {
            doc: owner_doc,
            ids: Some(kept),
        })
    }

    /// The imports of each of `files` (document, language; repeats are
    /// fine) in a language whose imports are read, from its code outside
    /// its symbols, read in one pass over the catalog.
    pub(super) fn imports_of(
        &self,
        files: &[(&str, Option<&str>)],
    ) -> Result<HashMap<String, Imports>> {
        let mut read: Vec<(&str, &str)> = files
            .iter()
            .filter_map(|&(doc, lang)| lang.filter(|l| Imports::reads(l)).map(|l| (doc, l)))
            .collect();
        read.sort_unstable();
        read.dedup();
        let docs: Vec<&str> = read.iter().map(|&(doc, _)| doc).collect();
        let mut between = self.catalog.outside_symbols(&docs)?;
        let mut out = HashMap::new();
        for (doc, lang) in read {
            let text = between.remove(doc).unwrap_or_default();
            if let Some(imports) = Imports::read(lang, &text, doc) {
                out.insert(doc.to_string(), imports);
            }
        }
        Ok(out)
    }
}
