//! One integration test binary: the real `ctx` binary on real files in temp dirs.

mod util;

mod architecture;
mod autopilot;
mod build;
mod chunk_props;
mod crash;
mod errors;
mod search;
