//! The tool definitions `ctx mcp` serves and `ctx tools` prints: names,
//! descriptions with their usage examples, schemas from the argument structs
//! of [`super::params`], and argument parsing with errors a model can act on.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use super::params::{
    DEFAULT_K, DEFAULT_MAX_CHUNKS, DEFAULT_WINDOW, EvidenceParams, GetParams, GrepParams,
    KindParam, LinesParams, MAX_K, ModeParam, QueryParams, RefParams, RefsParams, ScopeParam,
    SearchParams, SliceParams, SymbolParams,
};
use super::schema::{schema_of, signature};

/// Every tool `ctx` offers, in `tools/list` order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    /// `ctx_search`.
    Search,
    /// `ctx_get`.
    Get,
    /// `ctx_evidence`.
    Evidence,
    /// `ctx_symbol`.
    Symbol,
    /// `ctx_refs`.
    Refs,
    /// `internal_resource_length`.
    Length,
    /// `internal_resource_read_slice`.
    Slice,
    /// `internal_resource_read_lines`.
    Lines,
    /// `internal_resource_grep`.
    Grep,
    /// `internal_resource_query`.
    Query,
    /// `internal_resource_read`.
    Read,
}

impl ToolName {
    /// All tools, in `tools/list` order.
    pub const ALL: [ToolName; 11] = [
        ToolName::Search,
        ToolName::Get,
        ToolName::Evidence,
        ToolName::Symbol,
        ToolName::Refs,
        ToolName::Length,
        ToolName::Slice,
        ToolName::Lines,
        ToolName::Grep,
        ToolName::Query,
        ToolName::Read,
    ];

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::Search => "ctx_search",
            ToolName::Get => "ctx_get",
            ToolName::Evidence => "ctx_evidence",
            ToolName::Symbol => "ctx_symbol",
            ToolName::Refs => "ctx_refs",
            ToolName::Length => "internal_resource_length",
            ToolName::Slice => "internal_resource_read_slice",
            ToolName::Lines => "internal_resource_read_lines",
            ToolName::Grep => "internal_resource_grep",
            ToolName::Query => "internal_resource_query",
            ToolName::Read => "internal_resource_read",
        }
    }

    /// The tool called `name`, if any.
    pub fn parse(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Whether the tool reads the relay store (listed only where one exists).
    pub fn is_relay(self) -> bool {
        !matches!(
            self,
            ToolName::Search
                | ToolName::Get
                | ToolName::Evidence
                | ToolName::Symbol
                | ToolName::Refs
        )
    }

    /// One line for a router: what the tool is for.
    pub fn summary(self) -> &'static str {
        match self {
            ToolName::Search => {
                "Search the project's indexed docs and code: ranked chunk IDs with previews."
            }
            ToolName::Get => "Fetch chunks by ID (from ctx_search) within a token budget.",
            ToolName::Evidence => {
                "Search and fetch in one call: a cited, read-only evidence block within a budget."
            }
            ToolName::Symbol => {
                "Source of a function, method, type or field by name, within a budget."
            }
            ToolName::Refs => "Lines using a name, by chunk ID and symbol.",
            ToolName::Length => {
                "Size of a referenced value (chars, bytes, lines, tokens); JSON: its keys too."
            }
            ToolName::Slice => {
                "Characters of a referenced value from start_index (negative: from the end)."
            }
            ToolName::Lines => {
                "Lines of a referenced value from start_line (negative: from the end)."
            }
            ToolName::Grep => "Lines of a referenced value matching a regex, with context lines.",
            ToolName::Query => "Run a jq filter on a referenced JSON value.",
            // No number: `ctx mcp` and `ctx relay` cut at different sizes, and
            // the answer says where it was cut and how to read on.
            ToolName::Read => "The whole referenced value, up to a size cap; last resort.",
        }
    }

    /// When to use it, with short examples (appended to the summary).
    pub fn usage(self) -> &'static str {
        match self {
            ToolName::Search => {
                r#"Use it first, then ctx_get the top 2 IDs. If it answers "no evidence", say the docs do not cover it; do not guess. "kind":"code" keeps to functions and types. Example: {"query":"how to rotate the signing key"} then ctx_get {"ids":["<id1>","<id2>"],"mode":"excerpt","query":"rotate key"}."#
            }
            ToolName::Get => {
                r#"raw: whole chunks (what does not fit is listed as omitted); excerpt: trimmed around query; skeleton: outline (code: bodies elided). A file path means all its chunks; `path:12-30` (or `path:12`) the chunks holding those lines. Example: {"ids":["deploy:3fa9c2e1d0"],"mode":"excerpt","query":"rollback","budget":800}."#
            }
            ToolName::Evidence => {
                r#"Cite the [id]s. If it answers "No evidence", say so instead of inventing. Example: {"query":"which ports does the agent use","budget":800}."#
            }
            ToolName::Symbol => {
                r#"Several matches return a list: call again with "file". A type's answer lists its impl blocks and subtypes by ID. Example: {"name":"WalkBuilder::build","context_lines":3}."#
            }
            ToolName::Refs => {
                r#""file" keeps one definition's uses. Example: {"name":"WalkBuilder"}."#
            }
            ToolName::Length => {
                r#"Check it before reading. Example: {"opaque_reference":"internal://<id>"}."#
            }
            ToolName::Slice => {
                r#"Prefer it to a full read. Example, the last 2000 chars: {"opaque_reference":"internal://<id>","start_index":-2000,"length":2000}."#
            }
            ToolName::Lines => {
                r#"Example: {"opaque_reference":"internal://<id>","start_line":0,"line_count":50}."#
            }
            ToolName::Grep => {
                r#"Line numbers work with internal_resource_read_lines. Example: {"opaque_reference":"internal://<id>","pattern":"(?i)error|timeout","window":2}."#
            }
            ToolName::Query => {
                r#"Example: {"opaque_reference":"internal://<id>","jq":".items | length"}."#
            }
            ToolName::Read => "Prefer slice, lines, grep or query.",
        }
    }

    /// The full description: summary, then usage.
    pub fn description(self) -> String {
        format!("{} {}", self.summary(), self.usage())
    }

    fn schema(self) -> Map<String, Value> {
        match self {
            ToolName::Search => schema_of::<SearchParams>(),
            ToolName::Get => schema_of::<GetParams>(),
            ToolName::Evidence => schema_of::<EvidenceParams>(),
            ToolName::Symbol => schema_of::<SymbolParams>(),
            ToolName::Refs => schema_of::<RefsParams>(),
            ToolName::Length | ToolName::Read => schema_of::<RefParams>(),
            ToolName::Slice => schema_of::<SliceParams>(),
            ToolName::Lines => schema_of::<LinesParams>(),
            ToolName::Grep => schema_of::<GrepParams>(),
            ToolName::Query => schema_of::<QueryParams>(),
        }
    }
}

/// Which tools a server offers and with which arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ToolSet {
    /// Include the `internal_resource_*` tools.
    pub relay: bool,
    /// Add the optional `segment` argument (server started with `--root`).
    pub segments: bool,
    /// What `ctx_search` covers when the call names no `scope`.
    pub search_scope: ScopeParam,
}

/// Description of the `segment` argument under `--root`.
const SEGMENT_DOC: &str = "Segment name; omit for the default.";

/// Description of `scope` where the default is `all` (the field's doc says `docs`).
const SCOPE_ALL_DOC: &str = "all (default): project files and stored tool outputs; docs: project files; relay: stored tool outputs.";

/// The MCP definition of one tool.
pub fn definition(name: ToolName, set: ToolSet) -> Tool {
    let mut schema = name.schema();
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        if set.segments {
            props.insert(
                "segment".into(),
                serde_json::json!({"type": "string", "description": SEGMENT_DOC}),
            );
        }
        // Only `all` differs from the field's doc; `relay` is no server's default.
        if set.search_scope == ScopeParam::All
            && let Some(Value::Object(scope)) = props.get_mut("scope")
        {
            scope.insert("description".into(), SCOPE_ALL_DOC.into());
        }
    }
    Tool::new(name.as_str(), name.description(), Arc::new(schema))
        .with_annotations(ToolAnnotations::new().read_only(true))
}

/// The names of the tools of `set`, in `tools/list` order.
pub fn listed(set: ToolSet) -> Vec<ToolName> {
    ToolName::ALL
        .into_iter()
        .filter(|t| set.relay || !t.is_relay())
        .collect()
}

/// The tools of `set`, in `tools/list` order.
pub fn definitions(set: ToolSet) -> Vec<Tool> {
    listed(set)
        .into_iter()
        .map(|t| definition(t, set))
        .collect()
}

/// Parses the arguments of a call to `tool`, or says how to fix them: the error,
/// the expected arguments (as `set` lists them) and the tool's usage example.
pub fn parse_args<T: DeserializeOwned>(
    tool: ToolName,
    set: ToolSet,
    args: Value,
) -> Result<T, String> {
    serde_json::from_value(args).map_err(|e| {
        format!(
            "invalid arguments for {}: {e}. Expected {}. {}",
            tool.as_str(),
            signature(&definition(tool, set)),
            tool.usage()
        )
    })
}

/// A tool in the shape another agent framework takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// MCP `tools/list` objects.
    #[default]
    Mcp,
    /// OpenAI function tools: `{"type":"function","function":{…}}`.
    Openai,
    /// Anthropic tools: `{"name","description","input_schema"}`.
    Anthropic,
}

/// `tool` rendered in `format`.
pub fn render(tool: &Tool, format: Format) -> Value {
    let schema = Value::Object(JsonObject::clone(&tool.input_schema));
    let description = tool.description.as_deref().unwrap_or_default();
    match format {
        Format::Mcp => serde_json::to_value(tool).unwrap_or(Value::Null),
        Format::Openai => serde_json::json!({
            "type": "function",
            "function": {"name": tool.name, "description": description, "parameters": schema},
        }),
        Format::Anthropic => serde_json::json!({
            "name": tool.name, "description": description, "input_schema": schema,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_are_compact_and_complete() {
        let tool = definition(ToolName::Get, ToolSet::default());
        let schema = Value::Object(JsonObject::clone(&tool.input_schema));
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], serde_json::json!(["ids"]));
        assert_eq!(schema["properties"]["budget"]["type"], "integer");
        assert_eq!(
            schema["properties"]["mode"]["enum"],
            serde_json::json!(["raw", "excerpt", "skeleton"])
        );
        let text = schema.to_string();
        for absent in ["$schema", "null", "format", "$defs", "title"] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
    }

    #[test]
    fn relay_tools_only_when_asked() {
        let base = definitions(ToolSet::default());
        assert_eq!(base.len(), 5);
        let all = definitions(ToolSet {
            relay: true,
            segments: true,
            ..ToolSet::default()
        });
        assert_eq!(all.len(), 11);
        assert!(
            all.iter()
                .all(|t| t.input_schema["properties"].get("segment").is_some())
        );
    }
}
