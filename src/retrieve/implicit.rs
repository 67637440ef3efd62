//! Go's implicit interfaces: nothing in a type names the interface it
//! satisfies, so its implementors are the types whose methods cover, by
//! name, every method the interface requires. An interface's requirements
//! include those of the interfaces it embeds, and a struct has the methods
//! of the types it embeds. Signatures are not compared.

use std::collections::{BTreeMap, BTreeSet};

use super::attached::{Attached, Relation, declaration};
use crate::catalog::Catalog;
use crate::chunk::{Chunk, Symbol};
use crate::error::Result;

/// How deep struct embedding is followed: far past what Go code nests.
const MAX_EMBEDDING: usize = 8;

/// What the pack has of one type, keyed by (package directory, type name):
/// the required methods it has, its own or promoted from a type it embeds,
/// the files of its own, and its definition once found.
#[derive(Default)]
struct Receiver {
    methods: BTreeSet<String>,
    files: BTreeSet<String>,
    definition: Option<Chunk>,
}

type Key = (String, String);

/// The types satisfying the interface `owner`, defined in `doc`, each listed
/// with the required methods it has, in document and line order. Empty when
/// the interface requires nothing or embeds an interface the pack does not
/// define (`io.Reader` of a project that does not vendor it): its method
/// set is then unknown.
pub fn implementors(catalog: &Catalog, owner: &Symbol, doc: &str) -> Result<Vec<Attached>> {
    let Some(required) = method_set(catalog, owner, dir(doc))? else {
        return Ok(Vec::new());
    };
    if required.is_empty() {
        return Ok(Vec::new());
    }
    let mut have: BTreeMap<Key, Receiver> = BTreeMap::new();
    for name in &required {
        for c in catalog.code_chunks_mentioning(name)? {
            let Some(s) = go_symbol(&c) else { continue };
            if s.kind != "method" || s.name != *name {
                continue;
            }
            if let Some((receiver, _)) = s.qualified.rsplit_once('.') {
                let entry = have
                    .entry((dir(&c.doc).to_string(), receiver.to_string()))
                    .or_default();
                entry.methods.insert(name.clone());
                entry.files.insert(c.doc.clone());
            }
        }
    }
    find_definitions(catalog, &mut have)?;
    promote(catalog, &mut have)?;
    let names: Vec<&str> = required.iter().map(String::as_str).collect();
    let mut out: Vec<Attached> = have
        .into_values()
        .filter(|r| r.methods.len() == required.len())
        .filter_map(|r| {
            let c = r.definition?;
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

/// The methods `owner` requires: its own and those of the interfaces it
/// embeds, each found by name in `package` first, then anywhere when the
/// pack defines it once. `None` when an embedded interface is not found.
fn method_set(
    catalog: &Catalog,
    owner: &Symbol,
    package: &str,
) -> Result<Option<BTreeSet<String>>> {
    let mut set: BTreeSet<String> = owner.requires.iter().cloned().collect();
    let mut seen: BTreeSet<Key> = BTreeSet::from([(package.to_string(), owner.name.clone())]);
    let mut todo: Vec<Key> = owner
        .supers
        .iter()
        .map(|name| (package.to_string(), name.clone()))
        .collect();
    while let Some((package, name)) = todo.pop() {
        if !seen.insert((package.clone(), name.clone())) {
            continue;
        }
        // The language's own interfaces are in no package of the pack.
        match name.as_str() {
            "error" => {
                set.insert("Error".to_string());
                continue;
            }
            "any" => continue,
            _ => {}
        }
        let defined = catalog.code_chunks_mentioning(&name)?;
        let defined: Vec<&Chunk> = defined
            .iter()
            .filter(|c| go_symbol(c).is_some_and(|s| s.kind == "interface" && s.name == name))
            .collect();
        let here = defined.iter().find(|c| dir(&c.doc) == package);
        let Some(c) = here.or(match defined.as_slice() {
            [one] => Some(one),
            _ => None,
        }) else {
            return Ok(None);
        };
        let Some(s) = &c.symbol else { return Ok(None) };
        set.extend(s.requires.iter().cloned());
        todo.extend(
            s.supers
                .iter()
                .map(|embedded| (dir(&c.doc).to_string(), embedded.clone())),
        );
    }
    Ok(Some(set))
}

/// Finds each type's definition: a type is most often defined beside its
/// methods, so their files are read first (each once), and the pack is
/// scanned for a type's name only when they do not hold it.
fn find_definitions(catalog: &Catalog, have: &mut BTreeMap<Key, Receiver>) -> Result<()> {
    let files: BTreeSet<String> = have
        .values()
        .filter(|r| r.definition.is_none())
        .flat_map(|r| r.files.iter().cloned())
        .collect();
    for file in files {
        catalog.for_each_chunk_of(&file, |c| {
            if let Some((_, r)) = have
                .iter_mut()
                .find(|(key, r)| r.definition.is_none() && is_definition(key, c))
            {
                r.definition = Some(c.clone());
            }
            Ok(())
        })?;
    }
    for (key, r) in have.iter_mut().filter(|(_, r)| r.definition.is_none()) {
        r.definition = catalog
            .code_chunks_mentioning(&key.1)?
            .into_iter()
            .find(|c| is_definition(key, c));
    }
    Ok(())
}

/// Gives each struct the methods of the types it embeds (`type Logged
/// struct { *File }` has `File`'s), adding the structs that have none of
/// their own, through chains of embedding. Embedding across packages
/// (`files.File`) is kept by bare name, which cannot tell two packages'
/// `File` apart, so only an embed within the type's own package counts.
fn promote(catalog: &Catalog, have: &mut BTreeMap<Key, Receiver>) -> Result<()> {
    let mut embedders: Vec<(Key, Vec<String>, Chunk)> = Vec::new();
    catalog.for_each_subtype_chunk(|c| {
        if let Some(s) = go_symbol(c).filter(|s| s.kind != "method" && s.kind != "interface") {
            let key = (dir(&c.doc).to_string(), s.name.clone());
            embedders.push((key, s.supers.clone(), c.clone()));
        }
        Ok(())
    })?;
    for _ in 0..MAX_EMBEDDING {
        let mut changed = false;
        for (key, embedded, c) in &embedders {
            let promoted: BTreeSet<String> = embedded
                .iter()
                .filter_map(|name| have.get(&(key.0.clone(), name.clone())))
                .flat_map(|r| r.methods.iter().cloned())
                .collect();
            if promoted.is_empty() {
                continue;
            }
            let r = have.entry(key.clone()).or_default();
            let before = r.methods.len();
            r.methods.extend(promoted);
            r.definition.get_or_insert_with(|| c.clone());
            changed |= r.methods.len() > before;
        }
        if !changed {
            break;
        }
    }
    Ok(())
}

/// Whether `c` defines the type `key` names (not a method, not an interface).
fn is_definition((package, receiver): &Key, c: &Chunk) -> bool {
    dir(&c.doc) == package
        && go_symbol(c)
            .is_some_and(|s| s.name == *receiver && s.kind != "method" && s.kind != "interface")
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
