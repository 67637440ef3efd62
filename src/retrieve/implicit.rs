//! Go's implicit interfaces: nothing in a type names the interface it
//! satisfies, so its implementors are the types whose methods cover, by
//! name, every method the interface requires. Signatures are not compared,
//! and an interface that embeds others is skipped (its own list of methods
//! is not its whole method set).

use std::collections::{BTreeMap, BTreeSet};

use super::attached::{Attached, Relation, declaration};
use crate::catalog::Catalog;
use crate::chunk::{Chunk, Symbol};
use crate::error::Result;

/// What the pack has of one receiver type, keyed by (package directory,
/// type name): the required methods it defines and the files they are in.
#[derive(Default)]
struct Receiver<'a> {
    methods: BTreeSet<&'a str>,
    files: BTreeSet<String>,
}

/// The types satisfying the interface `owner` (a Go interface that requires
/// methods and embeds nothing), each listed with the required methods it
/// has, in document and line order.
pub fn implementors(catalog: &Catalog, owner: &Symbol) -> Result<Vec<Attached>> {
    if owner.requires.is_empty() || !owner.supers.is_empty() {
        return Ok(Vec::new());
    }
    let mut have: BTreeMap<(String, String), Receiver<'_>> = BTreeMap::new();
    for required in &owner.requires {
        for c in catalog.code_chunks_mentioning(required)? {
            let Some(s) = go_symbol(&c) else { continue };
            if s.kind != "method" || s.name != *required {
                continue;
            }
            if let Some((receiver, _)) = s.qualified.rsplit_once('.') {
                let entry = have
                    .entry((dir(&c.doc).to_string(), receiver.to_string()))
                    .or_default();
                entry.methods.insert(required.as_str());
                entry.files.insert(c.doc.clone());
            }
        }
    }
    // The receivers with every required method, and their definitions:
    // a type is most often defined beside its methods, so their files are
    // read first (each once), and the pack is scanned for a type's name
    // only when they do not hold it.
    have.retain(|_, r| r.methods.len() == owner.requires.len());
    let is_definition = |(package, receiver): &(String, String), c: &Chunk| {
        dir(&c.doc) == package
            && go_symbol(c)
                .is_some_and(|s| s.name == *receiver && s.kind != "method" && s.kind != "interface")
    };
    let files: BTreeSet<&String> = have.values().flat_map(|r| &r.files).collect();
    let mut found: BTreeMap<&(String, String), Chunk> = BTreeMap::new();
    for file in files {
        catalog.for_each_chunk_of(file, |c| {
            if let Some(key) = have.keys().find(|key| is_definition(key, c)) {
                found.entry(key).or_insert_with(|| c.clone());
            }
            Ok(())
        })?;
    }
    for key in have.keys() {
        if !found.contains_key(key)
            && let Some(c) = catalog
                .code_chunks_mentioning(&key.1)?
                .into_iter()
                .find(|c| is_definition(key, c))
        {
            found.insert(key, c);
        }
    }
    let names: Vec<&str> = owner.requires.iter().map(String::as_str).collect();
    let mut out: Vec<Attached> = found
        .into_values()
        .filter_map(|c| {
            let s = c.symbol.as_ref()?;
            Some(Attached {
                id: c.id.clone(),
                line: super::attached::impl_line(&declaration(s), &names),
                symbol: s.qualified.clone(),
                doc: c.doc.clone(),
                lines: s.lines.unwrap_or(c.lines),
                relation: Relation::Subtype,
            })
        })
        .collect();
    out.sort_by(|a, b| (&a.doc, a.lines[0]).cmp(&(&b.doc, b.lines[0])));
    Ok(out)
}

/// The symbol of a Go chunk (its first part), if it has one.
fn go_symbol(c: &Chunk) -> Option<&Symbol> {
    c.symbol
        .as_ref()
        .filter(|_| !c.is_later_part() && c.lang.as_deref() == Some("go"))
}

/// The directory of `doc`: a Go package.
fn dir(doc: &str) -> &str {
    doc.rsplit_once('/').map_or("", |(d, _)| d)
}
