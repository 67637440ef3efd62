//! `ctx mcp`: the pack and the relay store as MCP tools and resources over stdio.
//!
//! stdout carries the protocol and nothing else; logs go to stderr. The server
//! is stateless between calls: each call opens the segment's last committed
//! index, so a rebuild by `ctx build` or autopilot shows at the next call.
//! [`params`] holds each tool's arguments and their mapping into library
//! options (shared with the CLI), [`tools`] the definitions (shared with
//! `ctx tools`), [`call`] runs one call, [`server`] is the rmcp handler.

pub mod call;
pub mod params;
pub mod pool;
pub mod render;
mod schema;
pub mod server;
pub mod tools;

use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;
use rmcp::transport::async_rw::AsyncRwTransport;

pub use call::ServeConfig;
pub use schema::signature;
pub use server::CtxServer;

/// Largest incoming line (one JSON-RPC message). rmcp's default of 16 MiB drops
/// longer lines silently and the call then hangs (see the research notes on
/// rmcp's line cap); arguments may carry large values, so allow far more.
pub const MAX_LINE_BYTES: usize = 256 << 20;

/// Serves `config` on stdin/stdout until the client closes the connection.
pub fn serve(config: ServeConfig, verbose: u8) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let (read, write) = rmcp::transport::stdio_pipes();
        let transport =
            AsyncRwTransport::new_server(read, write).with_max_line_length(MAX_LINE_BYTES);
        let service = match CtxServer::new(config, verbose).serve(transport).await {
            Ok(service) => service,
            // A client that connects and leaves without a request is not an error.
            Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(anyhow::anyhow!("MCP session failed to start: {e}")),
        };
        service.waiting().await?;
        if verbose > 0 {
            eprintln!("ctx mcp: the client closed the connection");
        }
        Ok(())
    })
}
