//! Sources: which files of a segment are indexed, and reading them safely.

pub mod manifest;
pub mod read;
pub mod unchanged;
pub mod walk;

pub use manifest::Package;
pub use read::{Loaded, read_source};
pub use walk::{SourceEntry, Walked, walk};
