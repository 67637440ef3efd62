//! One integration test binary: the real `ctx` binary on real files in temp dirs.

mod util;

mod architecture;
mod autopilot;
mod budget;
mod build;
mod call;
mod chunk_props;
mod code;
mod code_props;
mod crash;
mod errors;
mod get;
mod history;
mod ids;
mod incremental;
mod mcp;
mod output;
mod proxy;
mod refresh;
mod relay;
mod rerank;
mod search;
mod skipped;
