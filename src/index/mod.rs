//! The tantivy index under `_ctx/index/`: BM25 over headings, body, document
//! path and code symbols, one record per chunk, plus one record per document
//! with its whole text for document-level scores. Derived from the catalog;
//! safe to delete.

pub mod abbrev;
mod collect;
pub mod doctest;
pub mod everyday;
mod intent;
mod mentions;
mod named;
pub mod operators;
pub mod packages;
mod present;
mod query_words;
pub mod reader;
pub mod signals;
mod spelling;
mod term_cache;
pub mod terms;
pub mod tokenizer;
mod vocab;
mod within_doc;
pub mod writer;

use std::path::{Path, PathBuf};

use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::{Index, directory::MmapDirectory};

use crate::chunk::Symbol;
use crate::chunk::code::super_name;
use crate::error::{Error, Result};

pub use reader::{Filter, IndexReader, ScoredId};
pub use writer::IndexWriter;

/// The fields of the index.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// Chunk ID (stored, exact).
    pub id: Field,
    /// Document path (exact and stored; for per-document deletes, `--doc`
    /// filters and document-level scores).
    pub doc: Field,
    /// Record type: [`REC_CHUNK`] or [`REC_DOC`] (exact).
    pub rec: Field,
    /// Document path words.
    pub path: Field,
    /// The chunk's own (last) heading.
    pub leaf: Field,
    /// Headings between the document's title (first heading) and the leaf.
    pub anc: Field,
    /// Chunk text, as stemmed terms ([`terms`]).
    pub body: Field,
    /// Code symbol names and signatures (boosted).
    pub symbols: Field,
    /// The code symbol's qualified name alone, stemmed, so a query naming it
    /// is not diluted by the signature's parameter and type words.
    pub name: Field,
    /// [`signals`] flags of a chunk (fast field; absent on document records).
    pub flags: Field,
    /// `markdown`, `code`, `text`, `json` (exact).
    pub kind: Field,
    /// `docs` or `relay` (exact).
    pub scope: Field,
    /// Document record: the stemmed terms of all its chunks' text.
    pub dtext: Field,
    /// A symbol chunk's bare and qualified names as [`name_key`]s (exact), so
    /// a query naming the symbol can be told apart from one about its topic.
    pub key: Field,
    /// Every name a symbol chunk answers to, as [`name_key`]s (exact, never
    /// scored; see [`symbol_names`]): `ctx symbol` finds a name's chunks here
    /// instead of reading every symbol in the catalog.
    pub names: Field,
}

/// `rec` of a chunk record.
pub const REC_CHUNK: &str = "c";
/// `rec` of a document record (one per document, for document-level scores).
pub const REC_DOC: &str = "d";

fn text(analyzer: &str) -> TextOptions {
    // Frequencies without positions: BM25 needs no more, and positions would
    // roughly double the postings.
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(analyzer)
            .set_index_option(IndexRecordOption::WithFreqs),
    )
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let fields = Fields {
        id: b.add_text_field("id", STRING | STORED),
        doc: b.add_text_field("doc", STRING | STORED),
        rec: b.add_text_field("rec", STRING),
        path: b.add_text_field("path", text(tokenizer::PLAIN)),
        leaf: b.add_text_field("leaf", text(tokenizer::STEMMED)),
        anc: b.add_text_field("anc", text(tokenizer::STEMMED)),
        // Body and document text are analyzed by the writer (see [`terms`]).
        body: b.add_text_field("body", text(terms::TERMS)),
        symbols: b.add_text_field("symbols", text(tokenizer::PLAIN)),
        name: b.add_text_field("name", text(tokenizer::STEMMED)),
        flags: b.add_u64_field("flags", FAST),
        kind: b.add_text_field("kind", STRING),
        scope: b.add_text_field("scope", STRING),
        dtext: b.add_text_field("dtext", text(terms::TERMS)),
        key: b.add_text_field("key", STRING),
        names: b.add_text_field("names", STRING),
    };
    (b.build(), fields)
}

/// An opened index with its fields and analyzers registered.
pub struct SearchIndex {
    index: Index,
    fields: Fields,
    dir: PathBuf,
    /// The reader a build opened to check the committed state, kept for the
    /// search after it (reloaded first, so it sees what the build committed).
    checked: Option<tantivy::IndexReader>,
}

impl SearchIndex {
    /// Opens the index in `dir`, creating it when missing.
    pub fn open_or_create(dir: &Path) -> Result<SearchIndex> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
        let (schema, fields) = schema();
        let open = || MmapDirectory::open(dir).map_err(|e| index_err(dir, e));
        let mut mmap = open()?;
        if Index::exists(&mmap).map_err(|e| index_err(dir, e))? {
            let index = Index::open(mmap).map_err(|e| index_err(dir, e))?;
            if index.schema() == schema {
                return Ok(Self::with(index, fields, dir));
            }
            // An index written with other fields (an older ctx) is derived
            // data: drop it, and the generation check in the build rebuilds
            // it in full.
            drop(index);
            std::fs::remove_dir_all(dir).map_err(|e| Error::io("cannot remove", dir, e))?;
            std::fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))?;
            mmap = open()?;
        }
        let index =
            Index::create(mmap, schema, Default::default()).map_err(|e| index_err(dir, e))?;
        Ok(Self::with(index, fields, dir))
    }

    /// Opens the index in `dir` for a build, replacing it with an empty one
    /// when its committed state cannot be read (a segment file truncated or
    /// its footer damaged, `meta.json` unreadable): the index is derived from
    /// the catalog, so a full build restores it. Returns why it was replaced.
    pub fn open_repairing(dir: &Path) -> Result<(SearchIndex, Option<String>)> {
        let damage = match SearchIndex::open_or_create(dir) {
            Ok(mut index) => match index.committed() {
                Ok(reader) => {
                    index.checked = Some(reader);
                    return Ok((index, None));
                }
                Err(why) => why.to_string(),
            },
            Err(Error::Index { message, .. }) => message,
            Err(e) => return Err(e),
        };
        std::fs::remove_dir_all(dir).map_err(|e| Error::io("cannot remove", dir, e))?;
        Ok((SearchIndex::open_or_create(dir)?, Some(damage)))
    }

    /// A reader over the committed state; the error says why it cannot be
    /// read. Opening a reader opens every segment's files and checks their
    /// footers.
    fn committed(&self) -> tantivy::Result<tantivy::IndexReader> {
        self.index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()
    }

    /// Opens an existing index for reading.
    pub fn open(dir: &Path) -> Result<SearchIndex> {
        if !dir.join("meta.json").exists() {
            return Err(Error::NoPack {
                path: dir.to_path_buf(),
            });
        }
        let index = Index::open_in_dir(dir).map_err(|e| index_err(dir, damaged(e)))?;
        let (schema, fields) = schema();
        if index.schema() != schema {
            return Err(index_err(
                dir,
                "the index was written by another version of ctx; run `ctx build`",
            ));
        }
        Ok(Self::with(index, fields, dir))
    }

    fn with(index: Index, fields: Fields, dir: &Path) -> SearchIndex {
        index
            .tokenizers()
            .register(tokenizer::STEMMED, tokenizer::stemmed());
        index
            .tokenizers()
            .register(tokenizer::PLAIN, tokenizer::plain());
        index.tokenizers().register(terms::TERMS, terms::terms());
        SearchIndex {
            index,
            fields,
            dir: dir.to_path_buf(),
            checked: None,
        }
    }

    /// The build generation recorded in the last commit (0 when none).
    pub fn generation(&self) -> Result<u64> {
        let meta = self
            .index
            .load_metas()
            .map_err(|e| index_err(&self.dir, e))?;
        Ok(meta
            .payload
            .as_deref()
            .and_then(|p| p.parse().ok())
            .unwrap_or(0))
    }

    /// A writer (there is only ever one: the build lock serializes builds)
    /// for about `bytes` of new text.
    pub fn writer(&self, bytes: u64) -> Result<IndexWriter> {
        IndexWriter::new(&self.index, self.fields, &self.dir, bytes)
    }

    /// A reader over the last committed state.
    pub fn reader(&self) -> Result<IndexReader> {
        let reader = match &self.checked {
            // A reload opens only the segments committed since the check.
            Some(checked) => checked.reload().map(|()| checked.clone()),
            None => self.committed(),
        }
        .map_err(|e| index_err(&self.dir, damaged(e)))?;
        IndexReader::new(reader, self.fields, &self.dir)
    }
}

/// A name as a query could spell it: lowercase letters and digits only, so
/// `should_descend`, `shouldDescend` and "should descend" meet.
pub fn name_key(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The names `ctx symbol` may find `sym`'s chunk by, as [`name_key`]s: each
/// part of its qualified name (`walkbuilder` and `build`; a method defined
/// outside its class is found by the class's name too), its bare name, the
/// types it extends and the members it declares. A lookup reads the key of a
/// name's last part and then matches the chunks exactly.
pub fn symbol_names(sym: &Symbol) -> Vec<String> {
    let parts =
        |s: &str| -> Vec<String> { s.replace("::", ".").split('.').map(name_key).collect() };
    let mut keys = parts(&sym.qualified);
    keys.extend(parts(&sym.name));
    keys.push(name_key(&sym.name));
    keys.extend(sym.supers.iter().map(|t| name_key(super_name(t))));
    keys.extend(sym.declared.iter().map(|m| name_key(&m.name)));
    keys.retain(|k| !k.is_empty());
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// A failure to open the committed index, with the way out: a build finds
/// the damage and rebuilds the index from the sources.
fn damaged(e: tantivy::TantivyError) -> String {
    format!("{e}; run `ctx build`, which rebuilds an index it cannot read")
}

/// Renders a tantivy error for `dir`.
pub fn index_err(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::Index {
        path: dir.to_path_buf(),
        message: e.to_string(),
    }
}

/// Whether the postings list `p` holds `doc`, moving it forward to `doc` at
/// most. `seek` must not go backwards (tantivy asserts it in debug builds),
/// so a list already past `doc` lacks it; `doc`s asked in rising order
/// share one pass over the list.
fn holds(p: &mut impl tantivy::DocSet, doc: tantivy::DocId) -> bool {
    p.doc() <= doc && p.seek(doc) == doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{Chunk, ChunkKind};

    fn commit_one(index: &SearchIndex, doc: &str, generation: u64) {
        let mut writer = index.writer(1 << 20).expect("writer");
        let chunk = Chunk::sample(doc, &["Title"], "some words", ChunkKind::Markdown);
        writer.add(&chunk, "").expect("add");
        writer.commit(generation).expect("commit");
    }

    #[test]
    fn a_symbol_answers_to_each_part_of_its_name_its_supertypes_and_its_members() {
        let member = |name: &str| crate::chunk::DeclaredMember {
            name: name.into(),
            kind: "field".into(),
            lines: [2, 2],
        };
        let sym = Symbol {
            name: "Resolver".into(),
            qualified: "net::Resolver".into(),
            kind: "struct".into(),
            signature: "pub struct Resolver<T: Dial>".into(),
            doc: "/// Looks up hosts.".into(),
            supers: vec!["io.Reader".into(), "Default".into()],
            requires: vec!["Dial".into()],
            decl: false,
            lines: None,
            declared: vec![member("max_depth"), member("PreferGo"), member("Net")],
        };
        // Not the signature's or the doc comment's words: a lookup matches
        // names, and those would only widen what it reads.
        assert_eq!(
            symbol_names(&sym),
            [
                "default", "maxdepth", "net", "prefergo", "reader", "resolver"
            ]
        );
    }

    #[test]
    fn the_code_fields_are_empty_until_a_segment_holds_a_symbol() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = SearchIndex::open_or_create(&dir.path().join("index")).expect("create");
        commit_one(&index, "a.md", 1);
        let f = index.fields;
        let empty = index.reader().expect("reader").empty;
        assert!(empty.contains(&f.name) && empty.contains(&f.symbols));
        assert!(!empty.contains(&f.body) && !empty.contains(&f.leaf));

        // A second segment holds the symbol; the first still lacks the field.
        let mut writer = index.writer(1 << 20).expect("writer");
        let code = Chunk {
            id: "walk:0123456789".into(),
            ..Chunk::sample_code(
                "src/walk.rs",
                &["src/walk.rs", "walk"],
                "walk",
                "fn walk() {}",
            )
        };
        writer.add(&code, "docs").expect("add");
        writer.commit(2).expect("commit");
        let reader = index.reader().expect("reader");
        assert_eq!(reader.searcher.segment_readers().len(), 2);
        assert!(!reader.empty.contains(&f.name) && !reader.empty.contains(&f.symbols));
        // Queries on those fields pass over the segment lacking them and still
        // find the symbol in the other.
        assert!(!reader.present.everywhere(f.names));
        let ids = vec![code.id.clone()];
        assert_eq!(reader.symbols_named("walk").expect("named"), ids);
        assert_eq!(
            reader.symbols_named_like("wakl", 1).expect("named like"),
            ids
        );
        let hits = reader
            .search("walk", 5, &Filter::default())
            .expect("search");
        assert_eq!(hits.first().map(|h| h.id.as_str()), Some(code.id.as_str()));
    }

    #[test]
    fn an_index_of_other_fields_is_replaced_by_an_empty_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("index");
        std::fs::create_dir_all(&path).expect("mkdir");
        let mut other = Schema::builder();
        other.add_text_field("only", STRING);
        Index::create_in_dir(&path, other.build()).expect("other index");

        let index = SearchIndex::open_or_create(&path).expect("reopen");
        assert_eq!(index.index.schema(), schema().0);
        assert_eq!(index.generation().expect("generation"), 0);
        assert_eq!(index.reader().expect("reader").num_docs(), 0);
    }

    #[test]
    fn the_reader_a_build_checked_with_sees_what_it_committed_since() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("index");
        commit_one(
            &SearchIndex::open_or_create(&path).expect("create"),
            "a.md",
            1,
        );

        let (index, damage) = SearchIndex::open_repairing(&path).expect("open");
        assert_eq!(damage, None);
        assert!(index.checked.is_some());
        commit_one(&index, "b.md", 2);
        assert_eq!(index.reader().expect("reader").num_docs(), 2);
    }
}
