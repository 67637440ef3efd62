//! The argument struct of each tool (serde + JSON Schema: field docs become
//! the schema's descriptions) and its mapping into the library's option
//! structs. The CLI builds these same structs from its flags, so a default or
//! a clamp changed here changes both surfaces at once.

use rmcp::schemars::JsonSchema;
use serde::Deserialize;

use super::tools::ToolSet;
use crate::relay::resolve::{GrepOptions, QueryOptions};
use crate::retrieve::refs::RefsOptions;
use crate::retrieve::symbol::SymbolOptions;
use crate::retrieve::{self, DEFAULT_BUDGET, EvidenceOptions, GetOptions, SearchOptions};

/// Hits a search returns unless asked otherwise.
pub const DEFAULT_K: usize = 6;
/// Most hits one search returns (each hit carries a preview).
pub const MAX_K: usize = 100;
/// Chunks an evidence block holds unless asked otherwise.
pub const DEFAULT_MAX_CHUNKS: usize = 4;
/// Context lines around a grep match unless asked otherwise.
pub const DEFAULT_WINDOW: usize = 2;

/// Which store a search covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum ScopeParam {
    /// Project docs and code.
    #[default]
    Docs,
    /// Boxed tool outputs.
    Relay,
    /// Both.
    All,
}

/// Which chunk kinds a search covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum KindParam {
    /// Source code symbols.
    Code,
    /// Markdown and text.
    Docs,
    /// Everything.
    #[default]
    All,
}

impl KindParam {
    /// The chunk kinds it keeps (`None`: all of them).
    pub fn kinds(self) -> Option<Vec<String>> {
        match self {
            KindParam::Code => Some(vec!["code".into()]),
            KindParam::Docs => Some(vec!["markdown".into(), "text".into(), "json".into()]),
            KindParam::All => None,
        }
    }
}

/// How much of each chunk `get` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
#[schemars(crate = "rmcp::schemars")]
pub enum ModeParam {
    /// Whole chunks.
    #[default]
    Raw,
    /// Trimmed to fit, around the query.
    Excerpt,
    /// Headings and first lines.
    Skeleton,
}

/// Arguments of `ctx_search`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct SearchParams {
    /// Question or keywords.
    pub query: String,
    /// Number of hits (default 6).
    pub k: Option<usize>,
    /// Only paths matching this glob, e.g. docs/**.
    pub doc: Option<String>,
    /// docs (default): project files; relay: stored tool outputs; all: both.
    pub scope: Option<ScopeParam>,
    /// code (symbols), docs or all (default).
    pub kind: Option<KindParam>,
}

impl SearchParams {
    /// The library options of this search.
    pub fn options(&self) -> SearchOptions {
        self.options_in(ToolSet::default())
    }

    /// The library options of this search as a server offering `set` runs it
    /// (`set` decides the scope when the call names none).
    pub fn options_in(&self, set: ToolSet) -> SearchOptions {
        SearchOptions {
            k: self.k.unwrap_or(DEFAULT_K).clamp(1, MAX_K),
            doc_glob: self.doc.clone(),
            scope: match self.scope.unwrap_or(set.search_scope) {
                ScopeParam::Docs => retrieve::Scope::Docs,
                ScopeParam::Relay => retrieve::Scope::Relay,
                ScopeParam::All => retrieve::Scope::All,
            },
            kinds: self.kind.unwrap_or_default().kinds(),
            ..SearchOptions::default()
        }
    }
}

/// Arguments of `ctx_get`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct GetParams {
    /// Chunk IDs, file paths or `path:START-END`.
    pub ids: Vec<String>,
    /// Default raw.
    pub mode: Option<ModeParam>,
    /// Token budget (default 1200).
    pub budget: Option<usize>,
    /// Words to centre excerpts on.
    pub query: Option<String>,
}

impl GetParams {
    /// The library options of this fetch; `cap` is `max_budget` from `ctx.toml`.
    pub fn options(&self, cap: usize) -> GetOptions {
        GetOptions {
            mode: match self.mode.unwrap_or_default() {
                ModeParam::Raw => retrieve::Mode::Raw,
                ModeParam::Excerpt => retrieve::Mode::Excerpt,
                ModeParam::Skeleton => retrieve::Mode::Skeleton,
            },
            budget: self.budget.unwrap_or(DEFAULT_BUDGET),
            cap,
            query: self.query.clone(),
        }
    }
}

/// Arguments of `ctx_evidence`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct EvidenceParams {
    /// The question.
    pub query: String,
    /// Token budget (default 1200).
    pub budget: Option<usize>,
    /// code (symbols), docs or all (default).
    pub kind: Option<KindParam>,
}

impl EvidenceParams {
    /// The library options of this evidence block (`ctx evidence` adds
    /// `--max-chunks` and `--doc`); `cap` is `max_budget` from `ctx.toml`.
    pub fn options(&self, cap: usize) -> EvidenceOptions {
        EvidenceOptions {
            budget: self.budget.unwrap_or(DEFAULT_BUDGET),
            cap,
            max_chunks: DEFAULT_MAX_CHUNKS,
            search: SearchOptions {
                kinds: self.kind.unwrap_or_default().kinds(),
                ..SearchOptions::default()
            },
        }
    }
}

/// Arguments of `ctx_symbol`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct SymbolParams {
    /// Name, Container::name, crate::module::Name, Go package.Name, impl Trait for Type, or a chunk ID.
    pub name: String,
    /// A file or directory (path or its end), or a package name.
    pub file: Option<String>,
    /// Lines around it (default 0).
    pub context_lines: Option<usize>,
    /// Token budget (default 1200).
    pub budget: Option<usize>,
}

impl SymbolParams {
    /// The library options of this lookup; `cap` is `max_budget` from `ctx.toml`.
    pub fn options(&self, cap: usize) -> SymbolOptions {
        SymbolOptions {
            name: self.name.clone(),
            file: self.file.clone(),
            context_lines: self.context_lines.unwrap_or(0),
            budget: self.budget.unwrap_or(DEFAULT_BUDGET),
            cap,
        }
    }
}

/// Arguments of `ctx_refs`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct RefsParams {
    /// Identifier (of Type::name, the last part).
    pub name: String,
    /// Its definition's file/dir.
    pub file: Option<String>,
    /// Include Markdown (default false).
    pub all: Option<bool>,
    /// Token budget (default 1200).
    pub budget: Option<usize>,
}

impl RefsParams {
    /// The library options of this lookup; `cap` is `max_budget` from `ctx.toml`.
    pub fn options(&self, cap: usize) -> RefsOptions {
        RefsOptions {
            name: self.name.clone(),
            file: self.file.clone(),
            code_only: !self.all.unwrap_or(false),
            budget: self.budget.unwrap_or(DEFAULT_BUDGET),
            cap,
        }
    }
}

/// Arguments of `internal_resource_read` and `internal_resource_length`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct RefParams {
    /// An `internal://<id>` reference.
    pub opaque_reference: String,
}

/// Arguments of `internal_resource_read_slice`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct SliceParams {
    /// An `internal://<id>` reference.
    pub opaque_reference: String,
    /// Zero-based; negative counts from the end.
    pub start_index: i64,
    /// Characters to return.
    pub length: usize,
}

/// Arguments of `internal_resource_read_lines`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct LinesParams {
    /// An `internal://<id>` reference.
    pub opaque_reference: String,
    /// Zero-based; negative counts from the end.
    pub start_line: i64,
    /// Lines to return.
    pub line_count: usize,
}

/// Arguments of `internal_resource_grep`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct GrepParams {
    /// An `internal://<id>` reference.
    pub opaque_reference: String,
    /// Rust regex; (?i) ignores case.
    pub pattern: String,
    /// Context lines around each match (default 2).
    pub window: Option<usize>,
}

/// Most context lines a tool's grep answer carries around each match: more
/// is a read, not a grep, and the answer's size cap would cut it.
pub const MAX_GREP_WINDOW: usize = 20;

impl GrepParams {
    /// The library options of this grep, its window at most
    /// [`MAX_GREP_WINDOW`] (`ctx resolve grep` takes any `-C`, and adds `-i`
    /// and `--max-results`).
    pub fn options(&self) -> GrepOptions {
        GrepOptions {
            window: self.window.unwrap_or(DEFAULT_WINDOW).min(MAX_GREP_WINDOW),
            ..GrepOptions::default()
        }
    }
}

/// Arguments of `internal_resource_query`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(crate = "rmcp::schemars")]
pub struct QueryParams {
    /// An `internal://<id>` reference to JSON.
    pub opaque_reference: String,
    /// A jq filter.
    pub jq: String,
}

impl QueryParams {
    /// The library options of this query (`ctx resolve query` adds its output flags).
    pub fn options(&self) -> QueryOptions {
        QueryOptions::default()
    }
}
