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

pub mod relay;
