//! Go's implicit interfaces: nothing in a type names the interface it
//! satisfies, so its implementors are the types whose methods cover, by
//! name, every method the interface requires. An interface's requirements
//! include those of the interfaces it embeds, and a struct has the methods
//! of the types it embeds. An embedded `pkg.Name` is the type of the pack
//! directory whose package is `pkg` (by Go's convention, the directory's
//! name). Signatures are not compared.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::attached::{Attached, Relation, declaration};
use crate::catalog::Catalog;
use crate::chunk::code::super_name;
use crate::chunk::{Chunk, Symbol};
use crate::error::Result;

/// How deep struct embedding is followed: far past what Go code nests.
const MAX_EMBEDDING: usize = 8;

/// A Go type by (package directory, name).
type Key<'a> = (&'a str, &'a str);

/// A type that embeds others: each embedded type (when the pack has it) with
/// the required methods of the interface it names (none when it names no
/// interface).
type Embedder<'a> = (Key<'a>, Vec<(Option<Key<'a>>, Vec<&'a str>)>);

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
    /// The directories defining a type or interface of each name.
    packages: HashMap<&'a str, BTreeSet<&'a str>>,
}

impl<'a> GoSymbols<'a> {
    fn new(chunks: &[&'a Chunk]) -> GoSymbols<'a> {
        let mut go = GoSymbols {
            interfaces: HashMap::new(),
            methods: HashMap::new(),
            types: HashMap::new(),
            method_files: HashMap::new(),
            packages: HashMap::new(),
        };
        for &c in chunks.iter().filter(|c| !c.is_later_part()) {
            let Some(s) = &c.symbol else { continue };
            if s.kind != "method" {
                go.packages.entry(&s.name).or_default().insert(dir(&c.doc));
            }
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
            .map(|written| (package, written.as_str()))
            .collect();
        while let Some((package, written)) = todo.pop() {
            // The language's own interfaces are in no package of the pack.
            match written {
                "error" => {
                    set.insert("Error");
                    continue;
                }
                "any" => continue,
                _ => {}
            }
            let (c, s) = self.interface(written, package)?;
            if !seen.insert((dir(&c.doc), s.name.as_str())) {
                continue;
            }
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
    /// type it embeds (`type Logged struct { *File }` has `File`'s, and
    /// `struct { *files.File }` those of `File` in the package `files`),
    /// through chains of embedding, and those of an interface it embeds.
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
                        (self.resolve(e, package), from_interface)
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
                    .flat_map(|(e, from_interface)| match e.and_then(|e| have.get(&e)) {
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

    /// The interface `written` (`Reader`, `io.Reader`) as code in `package`
    /// refers to it: the one of the package it names, or for a bare name the
    /// one in `package`; `None` when that package's type of that name is no
    /// interface; else the only one the pack defines (a package whose
    /// directory has another name, `yaml` in `go-yaml`, is not found by name).
    fn interface(&self, written: &str, package: &str) -> Option<&(&'a Chunk, &'a Symbol)> {
        let defined = self
            .interfaces
            .get(super_name(written))
            .map_or(&[][..], Vec::as_slice);
        if let Some((package, name)) = self.resolve(written, package) {
            let found = defined.iter().find(|(c, _)| dir(&c.doc) == package);
            // A type of that package that is no interface (an embedded struct)
            // is not some other package's interface.
            let other_type = || self.packages.get(name).is_some_and(|d| d.contains(package));
            if found.is_some() || other_type() {
                return found;
            }
        }
        match defined {
            [only] => Some(only),
            _ => None,
        }
    }

    /// The type `written` (`File`, `files.File`) as code in `package` refers
    /// to it: `package`'s own, or the one of the only directory whose package
    /// is the qualifier. `None` when the pack has no such package, or two.
    fn resolve(&self, written: &'a str, package: &'a str) -> Option<Key<'a>> {
        let Some((qualifier, name)) = written.rsplit_once('.') else {
            return Some((package, written));
        };
        let mut dirs = self
            .packages
            .get(name)?
            .iter()
            .filter(|d| package_name(d) == qualifier);
        let found = dirs.next()?;
        dirs.next().is_none().then_some((found, name))
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
pub fn implementors(
    catalog: &Catalog,
    named: &dyn Fn(&str) -> Result<Vec<String>>,
    owner: &Symbol,
    doc: &str,
) -> Result<Vec<Attached>> {
    if owner.requires.is_empty() && owner.supers.is_empty() {
        return Ok(Vec::new());
    }
    let mut pool = Pool::new(catalog, named);
    for t in &owner.supers {
        pool.interface_chain(super_name(t))?;
    }
    let Some(wanted) = GoSymbols::new(&pool.sorted())
        .method_set(owner, dir(doc))
        .map(|set| {
            set.into_iter()
                .map(String::from)
                .collect::<BTreeSet<String>>()
        })
    else {
        return Ok(Vec::new());
    };
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    pool.covering(&wanted)?;
    let chunks = pool.sorted();
    let go = GoSymbols::new(&chunks);
    let required: BTreeSet<&str> = wanted.iter().map(String::as_str).collect();
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

/// The Go symbols that bear on an interface's implementors, read through
/// the index by name instead of a scan of every Go symbol in the pack (which
/// grows with the pack: 60 ms on 12,933 chunks of Go's standard library).
/// Each name is read with all it stands for (every type, interface and
/// method of that name, and every type declaring or embedding it), so what
/// [`GoSymbols`] concludes from the pool is what it would from the pack.
struct Pool<'a> {
    catalog: &'a Catalog,
    /// The IDs of the symbol chunks named by a key ([`crate::index::name_key`]).
    named: &'a dyn Fn(&str) -> Result<Vec<String>>,
    /// Each key read, with its Go chunks' IDs.
    read: HashMap<String, Vec<String>>,
    /// The Go chunks read, first parts only, by ID.
    chunks: HashMap<String, Chunk>,
    /// The keys whose chunks were searched for more names to read.
    followed: BTreeSet<String>,
}

impl<'a> Pool<'a> {
    fn new(catalog: &'a Catalog, named: &'a dyn Fn(&str) -> Result<Vec<String>>) -> Pool<'a> {
        Pool {
            catalog,
            named,
            read: HashMap::new(),
            chunks: HashMap::new(),
            followed: BTreeSet::new(),
        }
    }

    /// The Go chunks named `name`, read once.
    fn read(&mut self, name: &str) -> Result<Vec<String>> {
        let key = crate::index::name_key(name);
        if let Some(ids) = self.read.get(&key) {
            return Ok(ids.clone());
        }
        let found = self
            .catalog
            .symbols_by_id(&(self.named)(&key)?)?
            .into_iter()
            .filter(|c| c.lang.as_deref() == Some("go") && !c.is_later_part());
        let mut ids = Vec::new();
        for c in found {
            ids.push(c.id.clone());
            self.chunks.entry(c.id.clone()).or_insert(c);
        }
        self.read.insert(key, ids.clone());
        Ok(ids)
    }

    /// Reads `name` and, through every interface of that name, the
    /// interfaces it embeds: what a method set is made of.
    fn interface_chain(&mut self, name: &str) -> Result<()> {
        let mut todo = vec![name.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(name) = todo.pop() {
            if !seen.insert(crate::index::name_key(&name)) {
                continue;
            }
            for id in self.read(&name)? {
                let Some(s) = self.chunks.get(&id).and_then(|c| c.symbol.as_ref()) else {
                    continue;
                };
                if s.kind == "interface" && s.name.eq_ignore_ascii_case(&name) {
                    todo.extend(s.supers.iter().map(|t| super_name(t).to_string()));
                }
            }
        }
        Ok(())
    }

    /// Reads what decides which types cover the methods `wanted`: the
    /// methods of those names and their receivers, the interfaces declaring
    /// them, and the types and interfaces embedding any of these, through
    /// chains (with what each of them embeds, and each interface's own
    /// chain).
    fn covering(&mut self, wanted: &BTreeSet<String>) -> Result<()> {
        let mut todo: Vec<String> = wanted.iter().cloned().collect();
        while let Some(name) = todo.pop() {
            let key = crate::index::name_key(&name);
            if !self.followed.insert(key.clone()) {
                continue;
            }
            let mut embedded = Vec::new();
            let mut chains = Vec::new();
            for id in self.read(&name)? {
                let Some(s) = self.chunks.get(&id).and_then(|c| c.symbol.as_ref()) else {
                    continue;
                };
                let embeds = s
                    .supers
                    .iter()
                    .any(|t| crate::index::name_key(super_name(t)) == key);
                match s.kind.as_str() {
                    "method" if wanted.contains(&s.name) => {
                        if let Some((receiver, _)) = s.qualified.rsplit_once('.') {
                            todo.push(receiver.to_string());
                        }
                    }
                    "method" => {}
                    "interface" if embeds || s.requires.iter().any(|m| wanted.contains(m)) => {
                        todo.push(s.name.clone());
                        chains.push(s.name.clone());
                    }
                    _ if embeds => {
                        todo.push(s.name.clone());
                        embedded.extend(s.supers.iter().map(|t| super_name(t).to_string()));
                    }
                    _ => {}
                }
            }
            for name in chains {
                self.interface_chain(&name)?;
            }
            for name in embedded {
                self.read(&name)?;
            }
        }
        Ok(())
    }

    /// The chunks read, in document order, as the catalog keeps them.
    fn sorted(&self) -> Vec<&Chunk> {
        let mut out: Vec<&Chunk> = self.chunks.values().collect();
        out.sort_by(|a, b| (&a.doc, a.lines).cmp(&(&b.doc, b.lines)));
        out
    }
}

/// The directory of `doc`: a Go package.
pub(super) fn dir(doc: &str) -> &str {
    doc.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The package name code gives the directory `dir` by Go's convention: its
/// last element, or the one before a major version (`yaml` of `yaml/v3`).
pub(super) fn package_name(dir: &str) -> &str {
    let mut parts = dir.rsplit('/');
    let last = parts.next().unwrap_or(dir);
    let is_version =
        last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    match parts.next() {
        Some(before) if is_version => before,
        _ => last,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory's package is its name, or the name before a major
    /// version; `dir` of a file at the root is the root.
    #[test]
    fn package_names_of_directories() {
        assert_eq!(package_name("net/http"), "http");
        assert_eq!(package_name("io"), "io");
        assert_eq!(package_name("gopkg/yaml/v3"), "yaml");
        assert_eq!(package_name("tools/v"), "v");
        assert_eq!(package_name("v2"), "v2");
        assert_eq!(package_name("a/v2x"), "v2x");
        assert_eq!(dir("net/http/server.go"), "net/http");
        assert_eq!(dir("main.go"), "");
    }
}
