//! Retrieval: search, get within a budget, evidence. Reads only committed state
//! (a tantivy snapshot and the catalog through WAL), so it never waits for a build.

mod aliases;
mod allot;
pub mod attached;
mod candidates;
pub mod coverage;
pub mod evidence;
pub mod excerpt;
mod file_outline;
pub mod fold;
pub mod get;
mod hits;
pub mod implicit;
mod imports;
mod locate;
mod modpath;
pub mod outline;
mod parts;
pub mod preview;
pub mod refs;
mod refs_of;
mod scope;
pub mod search;
mod similar;
mod skeletons;
pub mod symbol;
pub mod window;

use std::cell::OnceCell;
use std::sync::Arc;

use serde::Serialize;

use crate::catalog::Catalog;
use crate::error::Result;
use crate::index::{IndexReader, SearchIndex};
use crate::rerank::Reranker;
use crate::rerank::cache::VectorCache;
use crate::segment::Segment;

pub use evidence::{Evidence, EvidenceOptions};
pub use get::{Fetched, GetOptions, GetResult, Mode, Omitted};
pub use search::{Duplicate, Hit, Scope, SearchOptions, SearchResult, Suggestion};

/// Default `get` budget in estimated tokens.
pub const DEFAULT_BUDGET: usize = 1200;

/// Committed state of one segment, opened for reading.
pub struct Retriever {
    /// The segment.
    pub seg: Segment,
    /// Catalog, read-only.
    pub catalog: Catalog,
    /// Index snapshot.
    pub reader: IndexReader,
    /// Sentence encoder that re-orders the top hits, when configured.
    pub reranker: Option<Arc<Reranker>>,
    /// The segment's vector cache, opened by the first re-ranked search and
    /// kept for the next ones (the MCP pool reuses retrievers).
    vectors: OnceCell<Option<VectorCache>>,
}

impl Retriever {
    /// Opens the last committed state of `seg`.
    pub fn open(seg: &Segment) -> Result<Retriever> {
        let index = SearchIndex::open(&seg.index_dir())?;
        // Opened read-only already: no need to make it so.
        Retriever::reading(seg, &index, Catalog::open_read(&seg.db_path())?)
    }

    /// Opens the last committed state of `seg` through `index` and `catalog`,
    /// already open (a build just committed to them); the catalog connection
    /// is made read-only from here on.
    pub fn with_open(seg: &Segment, index: &SearchIndex, catalog: Catalog) -> Result<Retriever> {
        catalog.read_only()?;
        Retriever::reading(seg, index, catalog)
    }

    /// A retriever reading through `index` and `catalog` as they are.
    fn reading(seg: &Segment, index: &SearchIndex, catalog: Catalog) -> Result<Retriever> {
        let reader = index.reader()?;
        Ok(Retriever {
            seg: seg.clone(),
            catalog,
            reader,
            reranker: None,
            vectors: OnceCell::new(),
        })
    }

    /// The vector cache, `None` when it cannot be opened.
    fn vector_cache(&self) -> Option<&VectorCache> {
        self.vectors
            .get_or_init(|| VectorCache::open(&self.seg.vectors_path()))
            .as_ref()
    }

    /// A file named by a user: its path in the project when it is an
    /// absolute path inside it (hits print `source_path` absolute, and agents
    /// pass it back), without a leading `./`.
    pub fn project_path<'a>(&self, given: &'a str) -> std::borrow::Cow<'a, str> {
        let path = std::path::Path::new(given);
        let inside = |p: &std::path::Path| {
            p.strip_prefix(&self.seg.root)
                .ok()
                .and_then(|rel| rel.to_str())
                .map(|rel| rel.replace('\\', "/"))
        };
        // The root is canonical; the path given may reach it through a symlink.
        let relative = inside(path).or_else(|| {
            path.is_absolute()
                .then(|| std::fs::canonicalize(path).ok())
                .flatten()
                .and_then(|p| inside(&p))
        });
        match relative {
            Some(rel) => rel.into(),
            None => given.trim_start_matches("./").into(),
        }
    }

    /// This retriever, re-ranking its hits with `reranker`.
    pub fn with_reranker(mut self, reranker: Option<Arc<Reranker>>) -> Retriever {
        self.reranker = reranker;
        self
    }
}

/// Budget actually used after clamping to the configured cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// What was asked.
    pub requested: usize,
    /// What applies.
    pub applied: usize,
    /// Whether the request was over the cap.
    pub clamped: bool,
    /// The configured cap (`max_budget`), which no hint may send past.
    #[serde(skip)]
    pub cap: usize,
}

impl Budget {
    /// Clamps `requested` to `cap`, refusing 0, which nothing fits: callers
    /// mean "no limit" or "the default" by it, and an empty answer would hide
    /// the mistake.
    pub fn new(requested: usize, cap: usize) -> Result<Budget> {
        if requested == 0 {
            return Err(crate::error::Error::Invalid(
                "the budget is 0 tokens, which nothing fits: give a positive budget (e.g. 800), or leave it out for the default"
                    .into(),
            ));
        }
        Ok(Budget {
            requested,
            applied: requested.min(cap),
            clamped: requested > cap,
            cap,
        })
    }

    /// `--budget N` for an answer that needs `need` tokens, while the cap
    /// allows it; past it, the tokens and the cap that stops them.
    pub fn flag(&self, need: usize) -> String {
        if need <= self.cap {
            format!("--budget {need}")
        } else {
            format!(
                "~{need} tokens, over the cap of {} (max_budget in _ctx/ctx.toml)",
                self.cap
            )
        }
    }

    /// How to get an answer that needs `need` tokens: `raise --budget to N`
    /// while the cap allows it; past the cap a larger `--budget` is only
    /// clamped again, so the way out is a smaller view or a larger cap
    /// (callers add the smaller view that suits them).
    pub fn raise_to(&self, need: usize) -> String {
        if need <= self.cap {
            format!("raise --budget to {need}")
        } else {
            format!(
                "that needs ~{need} tokens, over the cap of {} (max_budget in _ctx/ctx.toml), which a larger --budget cannot pass; raise max_budget",
                self.cap
            )
        }
    }

    /// Says that the budget was clamped, when it was.
    pub fn clamp_note(&self) -> Option<String> {
        self.clamped.then(|| {
            format!(
                "budget {} is over the cap of {} (max_budget in _ctx/ctx.toml); clamped",
                self.requested, self.applied
            )
        })
    }
}

/// The text of `c` as previews and the trimmed views show it: Markdown without its HTML
/// comments (authoring notes and template instructions nobody reading the
/// rendered page sees).
pub(crate) fn readable(c: &crate::chunk::Chunk) -> std::borrow::Cow<'_, str> {
    if c.kind == crate::chunk::ChunkKind::Markdown {
        crate::chunk::markdown::comments::without_comments(&c.text)
    } else {
        std::borrow::Cow::Borrowed(&c.text)
    }
}

/// `1 line`, `3 lines`: a count with its noun in the right number.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// "needs" after a count of one, "need" after more.
pub fn needs(n: usize) -> &'static str {
    if n == 1 { "needs" } else { "need" }
}

/// The order lists of places (uses, implementors) are read in: sources
/// before tests, benches, examples and fixtures ([`secondary`]), then by
/// file and line.
pub(crate) fn reading_order(doc: &str, line: usize) -> (bool, &str, usize) {
    (secondary(doc), doc, line)
}

/// Whether `doc` is a test, benchmark, example or fixture: lists of uses
/// and implementors put it after the sources, which are likelier what is
/// asked about.
pub(crate) fn secondary(doc: &str) -> bool {
    let mut parts = doc.split('/');
    let file = parts.next_back().unwrap_or_default();
    let stem = file.split('.').next().unwrap_or_default();
    parts.any(|dir| {
        matches!(
            dir,
            "test"
                | "tests"
                | "bench"
                | "benches"
                | "example"
                | "examples"
                | "fixtures"
                | "testdata"
        )
    }) || stem.starts_with("test_")
        || stem.ends_with("_test")
        || file.contains(".test.")
        || file.contains(".spec.")
}
