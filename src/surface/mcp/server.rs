//! The rmcp `ServerHandler`: tools, resources, and the server's identity.
//!
//! rmcp answers both protocol eras itself (`server/discover` and `initialize`,
//! `resultType` and the cache hints of 2026-07-28, `-32602`/`-32002` for a
//! missing resource by era); this handler only supplies the content. Library
//! calls are synchronous, so each one runs on the blocking pool and overlapping
//! calls over one connection proceed in parallel.

use std::sync::Arc;
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, InitializeResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::json;

use super::call::{self, ServeConfig};
use super::pool::Reuse;
use super::tools::{self, ToolName};
use crate::pack;
use crate::relay::reference;

/// URI of the pack digest resource.
pub const DIGEST_URI: &str = "ctx://digest";

/// What the server tells a client about itself at the handshake.
const INSTRUCTIONS: &str = "ctx serves this project's docs and code as searchable chunks. \
Search with ctx_search, then ctx_get the top hits (mode excerpt); if a search finds no \
evidence, say so instead of guessing. internal://<id> references stand for large tool \
outputs: inspect them with the internal_resource_* tools or resources/read.";

/// The `ctx mcp` handler.
#[derive(Debug, Clone)]
pub struct CtxServer {
    config: Arc<ServeConfig>,
    verbose: u8,
}

impl CtxServer {
    /// A handler for `config`; `verbose` > 1 logs every call's latency to stderr.
    pub fn new(config: ServeConfig, verbose: u8) -> CtxServer {
        CtxServer {
            config: Arc::new(config),
            verbose,
        }
    }

    fn log(&self, level: u8, message: &str) {
        if self.verbose >= level {
            eprintln!("ctx mcp: {message}");
        }
    }
}

/// MIME type of a boxed value's `media` column.
fn mime_of(media: &str) -> &'static str {
    match media {
        "json" => "application/json",
        "html" => "text/html",
        "markdown" => "text/markdown",
        _ => "text/plain",
    }
}

impl ServerHandler for CtxServer {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("ctx", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools::definitions(
            self.config.tool_set(),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        // An unknown tool is a protocol error (MCP spec, tools: "Unknown tools"),
        // unlike bad arguments, which the model should see and fix.
        let Some(tool) = ToolName::parse(&request.name) else {
            let known: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; this server has {}",
                    request.name,
                    known.join(", ")
                ),
                Some(json!({"tool": request.name})),
            ));
        };
        let args = request.arguments.unwrap_or_default();
        let config = Arc::clone(&self.config);
        let started = Instant::now();
        let (result, reuse) = if tool == ToolName::Query {
            // A query runs in a worker process that a cancellation kills.
            let cancelled = context.ct.cancelled_owned();
            (call::query(config, args, cancelled).await, None)
        } else {
            tokio::task::spawn_blocking(move || call::call(&config, tool, args))
                .await
                .map_err(|e| McpError::internal_error(format!("tool call failed: {e}"), None))?
        };
        self.log(
            2,
            &format!(
                "{} {:.3} ms{}{}",
                tool.as_str(),
                started.elapsed().as_secs_f64() * 1000.0,
                match reuse {
                    Some(Reuse::Warm) => ", warm",
                    Some(Reuse::Opened) => ", opened the segment",
                    None => "",
                },
                if result.is_error == Some(true) {
                    ", isError"
                } else {
                    ""
                }
            ),
        );
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let digest = Resource::new(DIGEST_URI, "digest")
            .with_description(format!(
                "Summary of the context pack of `{}`: documents and top headings",
                self.config.segment.name
            ))
            .with_mime_type("text/plain");
        Ok(ListResourcesResult::with_all_items(vec![digest]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, McpError> {
        let boxed = ResourceTemplate::new("internal://{id}", "boxed value")
            .with_description("A large tool output stored by ctx, named by its reference");
        Ok(ListResourceTemplatesResult::with_all_items(vec![boxed]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let config = Arc::clone(&self.config);
        let uri = request.uri;
        tokio::task::spawn_blocking(move || read(&config, &uri))
            .await
            .map_err(|e| McpError::internal_error(format!("resource read failed: {e}"), None))?
            .map(ReadResourceResponse::from)
    }
}

/// `resources/read` of the digest or of an `internal://` reference. A missing
/// resource is `RESOURCE_NOT_FOUND` with `data.uri`; rmcp turns it into
/// `-32602` for 2026-07-28 peers, as the spec asks.
fn read(config: &ServeConfig, uri: &str) -> Result<ReadResourceResult, McpError> {
    let not_found =
        |message: String| McpError::resource_not_found(message, Some(json!({"uri": uri})));
    if uri == DIGEST_URI {
        let seg = &config.segment;
        let digest = pack::load(&seg.pack_path())
            .map_err(|e| not_found(format!("{DIGEST_URI}: {e}")))?
            .digest;
        return Ok(ReadResourceResult::new(vec![
            ResourceContents::text(digest, uri).with_mime_type("text/plain"),
        ]));
    }
    if !uri.starts_with(reference::SCHEME) {
        return Err(not_found(format!(
            "unknown resource `{uri}`: ctx serves {DIGEST_URI} and internal://<id> references"
        )));
    }
    let opened = call::open(config, &config.segment, uri).map_err(not_found)?;
    let mime = mime_of(&opened.row.media);
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(opened.value, uri).with_mime_type(mime),
    ]))
}
