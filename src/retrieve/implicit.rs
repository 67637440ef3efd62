//! Go's implicit interfaces: nothing in a type names the interface it
//! satisfies, so its implementors are the types whose methods cover, by
//! name, every method the interface requires. An interface's requirements
//! include those of the interfaces it embeds, and a struct has the methods
//! of the types it embeds. Signatures are not compared.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::attached::{Attached, Relation, declaration};
use crate::catalog::Catalog;
use crate::chunk::{Chunk, Symbol};
use crate::error::Result;

/// How deep struct embedding is followed: far past what Go code nests.
const MAX_EMBEDDING: usize = 8;

/// A Go type by (package directory, name).
type Key<'a> = (&'a str, &'a str);

/// A type that embeds others: each embedded name with the required methods
/// of the interface it names (none when it names no interface).
type Embedder<'a> = (Key<'a>, Vec<(&'a str, Vec<&'a str>)>);

/// The pack's Go symbols (first parts only, without text), read in one scan
/// and indexed for the questions below.
struct GoSymbols<'a> {
    /// Interfaces by name, in document order.
    interfaces: HashMap<&'a str, Vec<(&'a Chunk, &'a Symbol)>>,
    /// Methods by name: their receiver type's key.
    methods: HashMap<&'a str, Vec<Key<'a>>>,
    /// Other types (structs, named types) by key: every definition, since
    /// build-tagged files (`fd_unix.go`, `fd_windows.go`) define one twice.
    types: HashMap<Key<'a>, Vec<(&'a Chunk, &'a Symbol)>>,
    /// The files holding each type's methods.
    method_files: HashMap<Key<'a>, BTreeSet<&'a str>>,
}

impl<'a> GoSymbols<'a> {
    fn new(chunks: &'a [Chunk]) -> GoSymbols<'a> {
        let mut go = GoSymbols {
            interfaces: HashMap::new(),
            methods: HashMap::new(),
            types: HashMap::new(),
            method_files: HashMap::new(),
        };
        for c in chunks.iter().filter(|c| !c.is_later_part()) {
            let Some(s) = &c.symbol else { continue };
            match s.kind.as_str() {
                "interface" => go.interfaces.entry(&s.name).or_default().push((c, s)),
                "method" => {
                    if let Some((receiver, _)) = s.qualified.rsplit_once('.') {
                        let key = (dir(&c.doc), receiver);
                        go.methods.entry(&s.name).or_default().push(key);
                        go.method_files.entry(key).or_default().insert(&c.doc);
                    }
                }
                _ => go
                    .types
                    .entry((dir(&c.doc), &s.name))
                    .or_default()
                    .push((c, s)),
            }
        }
        go
    }

    /// The methods `owner` (defined in `package`) requires: its own and
    /// those of the interfaces it embeds ([`Self::interface`]). `None` when
    /// an embedded interface is not found.
    fn method_set(&self, owner: &'a Symbol, package: &'a str) -> Option<BTreeSet<&'a str>> {
        let mut set: BTreeSet<&str> = owner.requires.iter().map(String::as_str).collect();
        let mut seen: BTreeSet<Key<'a>> = BTreeSet::from([(package, owner.name.as_str())]);
        let mut todo: Vec<Key<'a>> = owner
            .supers
            .iter()
            .map(|name| (package, name.as_str()))
            .collect();
        while let Some((package, name)) = todo.pop() {
            if !seen.insert((package, name)) {
                continue;
            }
            // The language's own interfaces are in no package of the pack.
            match name {
                "error" => {
                    set.insert("Error");
                    continue;
                }
                "any" => continue,
                _ => {}
            }
            let (c, s) = self.interface(name, package)?;
            set.extend(s.requires.iter().map(String::as_str));
            todo.extend(
                s.supers
                    .iter()
                    .map(|embedded| (dir(&c.doc), embedded.as_str())),
            );
        }
        Some(set)
    }

    /// The required methods each type has: its own, those promoted from a
    /// type it embeds in its package (`type Logged struct { *File }` has
    /// `File`'s), through chains of embedding, and those of an interface it
    /// embeds. An embedded struct of another package (`files.File`) is kept
    /// by bare name, which cannot tell two packages' `File` apart, so it
    /// does not count.
    fn coverage(&self, required: &BTreeSet<&'a str>) -> BTreeMap<Key<'a>, BTreeSet<&'a str>> {
        let mut have: BTreeMap<Key<'a>, BTreeSet<&'a str>> = BTreeMap::new();
        for &name in required {
            for &key in self.methods.get(name).into_iter().flatten() {
                have.entry(key).or_default().insert(name);
            }
        }
        // Each embedded name with the required methods of the interface it
        // names, looked up once: a type of the package by that name, when
        // it has methods, takes precedence as the passes below find them.
        let embedders: Vec<Embedder<'a>> = self
            .types
            .iter()
            .flat_map(|(&key, all)| all.iter().map(move |(_, s)| (key, *s)))
            .filter(|(_, s)| !s.supers.is_empty())
            .map(|((package, name), s)| {
                let embedded = s
                    .supers
                    .iter()
                    .map(|e| {
                        let from_interface = self
                            .interface(e, package)
                            .and_then(|(c, i)| self.method_set(i, dir(&c.doc)))
                            .map(|set| set.intersection(required).copied().collect())
                            .unwrap_or_default();
                        (e.as_str(), from_interface)
                    })
                    .collect();
                ((package, name), embedded)
            })
            .collect();
        for _ in 0..MAX_EMBEDDING {
            let mut changed = false;
            for ((package, name), embedded) in &embedders {
                let promoted: Vec<&str> = embedded
                    .iter()
                    .flat_map(|(e, from_interface)| match have.get(&(*package, *e)) {
                        Some(methods) => methods.iter().copied().collect(),
                        None => from_interface.clone(),
                    })
                    .collect();
                if promoted.is_empty() {
                    continue;
                }
                let own = have.entry((package, name)).or_default();
                let before = own.len();
                own.extend(promoted);
                changed |= own.len() > before;
            }
            if !changed {
                break;
            }
        }
        have
    }

    /// The interface `name` as code in `package` refers to it: the one in
    /// that package, else the only one the pack defines.
    fn interface(&self, name: &str, package: &str) -> Option<&(&'a Chunk, &'a Symbol)> {
        let defined = self.interfaces.get(name).map_or(&[][..], Vec::as_slice);
        match defined.iter().find(|(c, _)| dir(&c.doc) == package) {
            Some(found) => Some(found),
            None => match defined {
                [only] => Some(only),
                _ => None,
            },
        }
    }

    /// The definition of the type `key`: the one beside its methods when
    /// build tags define it in several files, else the first.
    fn definition(&self, key: Key<'a>) -> Option<&(&'a Chunk, &'a Symbol)> {
        let all = self.types.get(&key)?;
        let files = self.method_files.get(&key);
        all.iter()
            .find(|(c, _)| files.is_some_and(|f| f.contains(c.doc.as_str())))
            .or(all.first())
    }
}

/// The types satisfying the interface `owner`, defined in `doc`, each listed
/// with the required methods it has, by package and type name
/// ([`super::attached::collect`] orders the whole list). Empty when the
/// interface requires nothing or embeds an interface the pack does not
/// define (`io.Reader` of a project that does not vendor it): its method set
/// is then unknown.
pub fn implementors(catalog: &Catalog, owner: &Symbol, doc: &str) -> Result<Vec<Attached>> {
    if owner.requires.is_empty() && owner.supers.is_empty() {
        return Ok(Vec::new());
    }
    let chunks = catalog.symbols_in("go")?;
    let go = GoSymbols::new(&chunks);
    let Some(required) = go.method_set(owner, dir(doc)) else {
        return Ok(Vec::new());
    };
    if required.is_empty() {
        return Ok(Vec::new());
    }
    let names: Vec<&str> = required.iter().copied().collect();
    let out: Vec<Attached> = go
        .coverage(&required)
        .into_iter()
        .filter(|(_, methods)| methods.len() == required.len())
        .filter_map(|(key, _)| {
            let (c, s) = go.definition(key)?;
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
    Ok(out)
}

/// The directory of `doc`: a Go package.
fn dir(doc: &str) -> &str {
    doc.rsplit_once('/').map_or("", |(d, _)| d)
}
