//! Relay: large tool outputs stored out of band and inspected piece by piece.
//!
//! A value above the threshold is replaced by an opaque reference
//! (`internal://<id>`, see [`mod@reference`]); the agent then asks for what it needs —
//! a slice, some lines, grep hits, a jq query — through [`resolve`], guided by the
//! [`mod@preview`] it got in place of the value.
//!
//! This part of the module is pure: it takes the value as `&str` and never touches
//! the file system or the catalog; storing values and looking up IDs live with the
//! callers, which pass in what they read.

pub mod check;
pub mod history;
pub mod nesting;
pub mod preview;
pub mod reference;
pub mod resolve;
pub mod store;
pub mod toolcall;

pub use preview::{MediaType, Preview, PreviewOptions, media_type, preview};
pub use reference::{RefError, RefId, new_id, parse_json_form, parse_reference};
pub use resolve::{
    GrepMatch, GrepOptions, GrepResult, Length, Part, QueryOptions, QueryResult, ResolveError, Unit,
};
