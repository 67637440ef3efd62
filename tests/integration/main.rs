//! One integration test binary: the real `ctx` binary on real files in temp dirs.

mod util;

mod architecture;
mod build;
mod chunk_props;
mod crash;
mod errors;
mod proxy;
mod relay;
mod search;
