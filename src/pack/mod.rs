//! The context pack: schema v1 (serde types), loading, the digest.
//!
//! A pack on disk is always a complete old pack or a complete new one: it is only
//! ever replaced by a rename ([`store::replace_derived`]: temp file, then rename).

pub mod lock;
pub mod piece;
pub mod store;
pub mod validate;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::chunk::Chunk;
use crate::error::{Error, Result};
use crate::tokens;

/// The pack schema version this ctx writes and reads.
pub const SCHEMA_VERSION: u64 = 1;

/// `context_pack.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pack {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u64,
    /// RFC 3339 UTC time of the build; the only field that differs between two
    /// builds of the same tree.
    pub created_at: String,
    /// `ctx-<version>`.
    pub generator_version: String,
    /// Sanitized segment name.
    pub segment: String,
    /// Every indexed file.
    pub source_files: Vec<SourceFile>,
    /// How the chunks were made.
    pub chunking: Chunking,
    /// Short overview: documents and their top headings.
    pub digest: String,
    /// One entry per chunk, without text.
    pub index: Vec<IndexEntry>,
    /// The chunks, in document order.
    pub chunks: Vec<Chunk>,
}

/// An indexed file as it was when the pack was built.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Path relative to the segment root.
    pub path: String,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// Modification time, RFC 3339 UTC with nanoseconds.
    pub mtime: String,
    /// Unicode characters in the file.
    pub chars: usize,
    /// Size in bytes.
    #[serde(default)]
    pub bytes: u64,
}

/// Chunking parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunking {
    /// `heading_aware`.
    pub method: String,
    /// The split threshold used.
    pub max_chunk_tokens: usize,
}

/// A chunk without its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// Stable ID.
    pub id: String,
    /// Document path.
    pub doc: String,
    /// Heading path.
    pub title_path: Vec<String>,
    /// Token estimate.
    pub token_est: usize,
}

impl IndexEntry {
    /// The entry describing `chunk`.
    pub fn of(chunk: &Chunk) -> Self {
        IndexEntry {
            id: chunk.id.clone(),
            doc: chunk.doc.clone(),
            title_path: chunk.title_path.clone(),
            token_est: chunk.token_est,
        }
    }
}

/// `ctx-<crate version>`.
pub fn generator_version() -> String {
    format!("ctx-{}", env!("CARGO_PKG_VERSION"))
}

#[derive(Deserialize)]
struct VersionProbe {
    schema_version: Option<serde_json::Value>,
}

/// Reads and parses a pack, checking its schema version first.
pub fn load(path: &Path) -> Result<Pack> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::NoPack {
                path: path.to_path_buf(),
            });
        }
        Err(e) => return Err(Error::io("cannot read", path, e)),
    };
    let bad = |message: String| Error::BadPack {
        path: path.to_path_buf(),
        message,
    };
    let probe: VersionProbe =
        serde_json::from_slice(&bytes).map_err(|e| bad(format!("not valid JSON ({e})")))?;
    match probe.schema_version {
        None => return Err(bad("`schema_version` is missing".into())),
        Some(serde_json::Value::Number(n)) if n.as_u64() == Some(SCHEMA_VERSION) => {}
        Some(serde_json::Value::Number(n)) if n.is_u64() => {
            return Err(bad(format!(
                "schema_version {n} is not supported (this ctx reads {SCHEMA_VERSION}); rebuild with `ctx build`"
            )));
        }
        Some(other) => {
            return Err(bad(format!(
                "schema_version must be an integer, found {other}"
            )));
        }
    }
    serde_json::from_slice(&bytes).map_err(|e| bad(format!("does not match schema v1 ({e})")))
}

/// Nanoseconds since the Unix epoch as RFC 3339 UTC (`2026-01-15T10:30:00.123456789Z`).
pub fn rfc3339(ns: i64) -> String {
    let secs = ns.div_euclid(1_000_000_000);
    let nanos = ns.rem_euclid(1_000_000_000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil-from-days (H. Hinnant), valid for the whole i64 day range we use.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    let (h, mi, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    if nanos == 0 {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    } else {
        format!("{y:04}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{nanos:09}Z")
    }
}

/// Token budget of the digest.
pub const DIGEST_BUDGET: usize = 400;

/// Top headings listed per document in the digest.
const DIGEST_TOPS: usize = 4;

/// What the digest says about one document.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DocDigest {
    /// Chunks.
    pub chunks: usize,
    /// Sum of their token estimates.
    pub tokens: usize,
    /// Its first distinct top headings.
    pub tops: Vec<String>,
}

impl DocDigest {
    /// Whether another top heading would still be listed (callers skip
    /// reading title paths once it would not).
    pub fn wants_top(&self) -> bool {
        self.tops.len() < DIGEST_TOPS
    }

    /// Counts one chunk with heading path `title_path`, if it was read.
    pub fn add(&mut self, token_est: usize, title_path: Option<&[String]>) {
        self.chunks += 1;
        self.tokens += token_est;
        let top = title_path
            .and_then(|t| t.get(1).or_else(|| t.first()))
            .map(String::as_str)
            .unwrap_or("");
        if !top.is_empty() && self.wants_top() && !self.tops.iter().any(|t| t == top) {
            self.tops.push(top.to_string());
        }
    }
}

/// A short deterministic overview: counts, then each document with its top
/// headings, cut to [`DIGEST_BUDGET`] tokens.
pub fn digest_of(segment: &str, files: usize, index: &[IndexEntry]) -> String {
    let mut per_doc: BTreeMap<String, DocDigest> = BTreeMap::new();
    for c in index {
        per_doc
            .entry(c.doc.clone())
            .or_default()
            .add(c.token_est, Some(&c.title_path));
    }
    let per_doc: Vec<(&str, &DocDigest)> = per_doc.iter().map(|(k, v)| (k.as_str(), v)).collect();
    digest_from(segment, files, &per_doc)
}

/// [`digest_of`] from per-document summaries, in document order.
pub fn digest_from(segment: &str, files: usize, per_doc: &[(&str, &DocDigest)]) -> String {
    let chunks: usize = per_doc.iter().map(|(_, d)| d.chunks).sum();
    let total_tokens: usize = per_doc.iter().map(|(_, d)| d.tokens).sum();
    let mut out =
        format!("{segment}: {files} documents, {chunks} chunks, ~{total_tokens} tokens.\n");
    let mut shown = 0;
    for (doc, d) in per_doc.iter() {
        let line = format!(
            "- {doc} ({} chunks, ~{} tok): {}\n",
            d.chunks,
            d.tokens,
            d.tops.join("; ")
        );
        if tokens::estimate(&out) + tokens::estimate(&line) > DIGEST_BUDGET {
            break;
        }
        out.push_str(&line);
        shown += 1;
    }
    if shown < per_doc.len() {
        out.push_str(&format!(
            "… and {} more documents; use `ctx search` to find sections.\n",
            per_doc.len() - shown
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_768_473_000_000_000_000), "2026-01-15T10:30:00Z");
        assert_eq!(
            rfc3339(951_782_400_000_000_005),
            "2000-02-29T00:00:00.000000005Z"
        );
    }
}
