//! `ctx validate`: every invariant of a pack, checked and listed.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::{Pack, SCHEMA_VERSION};
use crate::chunk::{Chunk, id};
use crate::hash::sha256_hex;
use crate::segment::is_sanitized;
use crate::tokens;

/// One failed check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Short name of the check (`ids`, `tiling`, `sources`, …).
    pub check: &'static str,
    /// What is wrong, naming the chunk or file.
    pub message: String,
}

fn problem(check: &'static str, message: String) -> Problem {
    Problem { check, message }
}

/// Files on disk as the caller sees them now: `path -> bytes`, for the source
/// checks. `None` skips the disk checks (a pack examined on its own).
pub type DiskView<'a> = Option<&'a BTreeMap<String, Vec<u8>>>;

/// Checks every invariant of `pack`; an empty list means valid.
pub fn validate(pack: &Pack, disk: DiskView<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    if pack.schema_version != SCHEMA_VERSION {
        out.push(problem(
            "schema",
            format!(
                "schema_version {} is not {SCHEMA_VERSION}",
                pack.schema_version
            ),
        ));
    }
    if !is_sanitized(&pack.segment) {
        out.push(problem(
            "segment",
            format!(
                "segment name `{}` is not sanitized",
                pack.segment.escape_debug()
            ),
        ));
    }
    if pack.chunking.max_chunk_tokens < 32 {
        out.push(problem(
            "budgets",
            format!(
                "max_chunk_tokens {} is below 32",
                pack.chunking.max_chunk_tokens
            ),
        ));
    }
    check_index(pack, &mut out);
    check_chunks(pack, &mut out);
    check_tiling(pack, &mut out);
    if let Some(disk) = disk {
        check_disk(pack, disk, &mut out);
    }
    out
}

fn check_index(pack: &Pack, out: &mut Vec<Problem>) {
    let by_id: HashMap<&str, &Chunk> = pack.chunks.iter().map(|c| (c.id.as_str(), c)).collect();
    if by_id.len() != pack.chunks.len() {
        let mut seen = HashSet::new();
        for c in &pack.chunks {
            if !seen.insert(&c.id) {
                out.push(problem("ids", format!("duplicate chunk id `{}`", c.id)));
            }
        }
    }
    if pack.index.len() != pack.chunks.len() {
        out.push(problem(
            "index",
            format!(
                "index has {} entries but there are {} chunks",
                pack.index.len(),
                pack.chunks.len()
            ),
        ));
    }
    for entry in &pack.index {
        match by_id.get(entry.id.as_str()) {
            None => out.push(problem(
                "index",
                format!("index entry `{}` has no chunk", entry.id),
            )),
            Some(c)
                if c.doc != entry.doc
                    || c.title_path != entry.title_path
                    || c.token_est != entry.token_est =>
            {
                out.push(problem(
                    "index",
                    format!("index entry `{}` disagrees with its chunk", entry.id),
                ))
            }
            Some(_) => {}
        }
    }
}

fn check_chunks(pack: &Pack, out: &mut Vec<Problem>) {
    let max = pack.chunking.max_chunk_tokens;
    let mut seen: HashMap<(&str, String, String), usize> = HashMap::new();
    for c in &pack.chunks {
        let sha = sha256_hex(c.text.as_bytes());
        if sha != c.text_sha256 {
            out.push(problem(
                "text_sha256",
                format!("chunk `{}`: text_sha256 does not match its text", c.id),
            ));
        }
        let key = (
            c.doc.as_str(),
            id::normalize_title_path(&c.title_path),
            sha.clone(),
        );
        let occurrence = seen.entry(key).or_insert(0);
        *occurrence += 1;
        let expected = id::compute(&c.doc, &c.title_path, &sha, *occurrence);
        if expected != c.id {
            out.push(problem(
                "ids",
                format!("chunk `{}`: ID recomputes to `{expected}`", c.id),
            ));
        }
        if c.text.trim().is_empty() {
            out.push(problem("chunks", format!("chunk `{}` is empty", c.id)));
        }
        // Packs written by other ctx versions may use another estimator: only a
        // grossly wrong estimate is a problem.
        let est = tokens::estimate(&c.text);
        if c.token_est == 0 || c.token_est > est * 2 + 8 || est > c.token_est * 2 + 8 {
            out.push(problem(
                "budgets",
                format!(
                    "chunk `{}`: token_est {} but the text estimates {est}",
                    c.id, c.token_est
                ),
            ));
        }
        // A part may overshoot by its longest line (lines are never cut) plus the
        // re-opened fence lines.
        let longest_line = c.text.lines().map(tokens::estimate).max().unwrap_or(0);
        if c.token_est > max + longest_line + 24 {
            out.push(problem(
                "budgets",
                format!(
                    "chunk `{}`: {} tokens is over max_chunk_tokens {max}",
                    c.id, c.token_est
                ),
            ));
        }
        if c.lines[0] == 0 || c.lines[0] > c.lines[1] || c.bytes[0] >= c.bytes[1] {
            out.push(problem(
                "ranges",
                format!(
                    "chunk `{}`: bad ranges bytes {:?} lines {:?}",
                    c.id, c.bytes, c.lines
                ),
            ));
        }
    }
}

fn check_tiling(pack: &Pack, out: &mut Vec<Problem>) {
    let sizes: HashMap<&str, u64> = pack
        .source_files
        .iter()
        .map(|f| (f.path.as_str(), f.bytes))
        .collect();
    let mut by_doc: BTreeMap<&str, Vec<&Chunk>> = BTreeMap::new();
    for c in &pack.chunks {
        by_doc.entry(&c.doc).or_default().push(c);
    }
    for (doc, chunks) in &by_doc {
        let Some(&size) = sizes.get(doc) else {
            out.push(problem(
                "sources",
                format!("chunks of `{doc}` but no source_files entry"),
            ));
            continue;
        };
        let mut at = 0usize;
        for c in chunks {
            if c.bytes[0] != at {
                out.push(problem(
                    "tiling",
                    format!(
                        "`{doc}`: chunk `{}` starts at byte {} but the previous ended at {at}",
                        c.id, c.bytes[0]
                    ),
                ));
            }
            at = c.bytes[1];
        }
        if at as u64 != size {
            out.push(problem(
                "tiling",
                format!("`{doc}`: chunks end at byte {at} but the file has {size} bytes"),
            ));
        }
    }
}

fn check_disk(pack: &Pack, disk: &BTreeMap<String, Vec<u8>>, out: &mut Vec<Problem>) {
    let mut by_doc: HashMap<&str, Vec<&Chunk>> = HashMap::new();
    for c in &pack.chunks {
        by_doc.entry(&c.doc).or_default().push(c);
    }
    let known: HashSet<&str> = pack.source_files.iter().map(|f| f.path.as_str()).collect();
    for f in &pack.source_files {
        let Some(bytes) = disk.get(&f.path) else {
            out.push(problem(
                "sources",
                format!(
                    "`{}` is in the pack but missing on disk; run `ctx build`",
                    f.path
                ),
            ));
            continue;
        };
        if sha256_hex(bytes) != f.sha256 {
            out.push(problem(
                "sources",
                format!(
                    "`{}` changed since the pack was built; run `ctx build`",
                    f.path
                ),
            ));
            continue;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        let body_start = crate::chunk::markdown::front_matter(text).body_start;
        // Counting lines from the file's start for each chunk is quadratic
        // on a big file, and autopilot validates every round.
        let lines = crate::chunk::LineIndex::new(text);
        for c in by_doc.get(f.path.as_str()).into_iter().flatten() {
            let actual = lines.range(c.bytes[0], c.bytes[1]);
            if c.bytes[0] < c.bytes[1] && c.bytes[1] <= text.len() && c.lines != actual {
                out.push(problem(
                    "lines",
                    format!(
                        "chunk `{}`: lines {}-{} are not the lines of bytes {}..{} of `{}` ({}-{})",
                        c.id,
                        c.lines[0],
                        c.lines[1],
                        c.bytes[0],
                        c.bytes[1],
                        f.path,
                        actual[0],
                        actual[1]
                    ),
                ));
            }
            let (s, e) = (c.bytes[0].max(body_start), c.bytes[1]);
            let slice = text.get(s..e.min(text.len())).unwrap_or("");
            if c.kind == crate::chunk::ChunkKind::Markdown
                && !c.text.contains(&*crate::chunk::encoded::elided(slice))
            {
                out.push(problem(
                    "ranges",
                    format!(
                        "chunk `{}`: text does not match bytes {s}..{e} of `{}`",
                        c.id, f.path
                    ),
                ));
            }
        }
    }
    for path in disk.keys() {
        if !known.contains(path.as_str()) {
            out.push(problem(
                "sources",
                format!("`{path}` is new on disk and not in the pack; run `ctx build`"),
            ));
        }
    }
}

/// Reads the files a fresh build would index (those it would skip, too big or
/// binary, are left out), each once, for [`validate`]'s disk checks.
pub fn read_disk(
    files: &[crate::sources::SourceEntry],
    max_file_bytes: u64,
) -> BTreeMap<String, Vec<u8>> {
    files
        .iter()
        .filter_map(|f| {
            crate::sources::read_source(f, max_file_bytes)
                .ok()
                .map(|l| (f.rel.clone(), l.text.into_bytes()))
        })
        .collect()
}
