//! ctx: context packs for LLM agents.
//!
//! ```text
//!  sources ──▶ chunk ──▶ catalog ──▶ index ──▶ retrieve ──▶ surfaces
//! ```
//!
//! Each stage is a module; a stage may use the stages to its left and never those to
//! its right (an architecture test in `tests/` holds the rule).

pub mod hash;
pub mod tokens;

pub mod chunk;
pub mod config;
pub mod error;
pub mod segment;

pub mod sources;

pub mod pack;

pub mod catalog;

pub mod index;
pub mod pipeline;
pub mod rerank;
pub mod retrieve;

pub mod relay;
pub mod surface;
