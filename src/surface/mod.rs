//! Surfaces: thin layers that parse input, call the library and format output.

pub mod autopilot;
pub mod cli;
pub mod jq_worker;
pub mod mcp;
pub mod output;
pub mod proxy;
