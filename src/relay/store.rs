//! Storing boxed values: the file under `_ctx/relay/<session>/`, its catalog row,
//! and its chunks in the index (scope `relay`, document `relay/<id>`).
//!
//! Boxing takes the build lock while it indexes: tantivy allows one writer, and
//! the lock also serializes concurrent `ctx box` calls, so they never clash.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::preview::{self, MediaType, PreviewOptions};
use super::reference::{self, RefId};
use crate::catalog::Catalog;
use crate::catalog::boxes::BoxRow;
use crate::chunk::{ChunkOptions, encoded, markdown, text};
use crate::error::{Error, Result};
use crate::hash::sha256_hex;
use crate::index::SearchIndex;
use crate::pack::lock::{FileLock, LockKind};
use crate::pack::store;
use crate::segment::{Segment, sanitize_name};
use crate::tokens;

/// Only this much of a value is chunked and indexed; the rest stays resolvable.
pub const MAX_INDEXED_BYTES: usize = 32 * 1024 * 1024;

/// The session used when none is given.
pub const DEFAULT_SESSION: &str = "default";

/// When a value is boxed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    /// Above this many estimated tokens.
    Tokens(usize),
    /// Above this many characters.
    Chars(usize),
}

impl Threshold {
    /// Whether `value` is over the threshold.
    pub fn exceeded_by(self, value: &str) -> bool {
        match self {
            Threshold::Tokens(n) => tokens::estimate(value) > n,
            // Bytes bound chars from above: only count when it can matter.
            Threshold::Chars(n) => value.len() > n && value.chars().count() > n,
        }
    }
}

/// How to box.
#[derive(Debug, Clone)]
pub struct BoxOptions {
    /// Tool that produced the value.
    pub tool: String,
    /// Session the reference belongs to.
    pub session: String,
    /// When to box.
    pub threshold: Threshold,
    /// Lock wait for indexing.
    pub lock_timeout: Duration,
}

/// The result of boxing.
#[derive(Debug, Clone)]
pub enum Boxed {
    /// Below the threshold: the value as given.
    PassThrough,
    /// Stored; refer to it by `row.id`.
    Stored(BoxRow),
    /// Already stored by this session from the same tool: its box, refreshed.
    Reused(BoxRow),
}

/// Checks a session name (it becomes a directory name).
pub fn check_session(session: &str) -> Result<String> {
    if session.is_empty() || session.len() > 64 || sanitize_name(session) != session {
        return Err(Error::Invalid(format!(
            "invalid session `{}`: use 1–64 characters from A–Z a–z 0–9 _ . -",
            session.escape_debug()
        )));
    }
    Ok(session.to_string())
}

fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Boxes `value` when it is over the threshold.
pub fn box_value(seg: &Segment, value: &str, opts: &BoxOptions) -> Result<Boxed> {
    if !opts.threshold.exceeded_by(value) {
        return Ok(Boxed::PassThrough);
    }
    let (row, reused) = store_or_reuse(seg, value, opts)?;
    Ok(if reused {
        Boxed::Reused(row)
    } else {
        Boxed::Stored(row)
    })
}

/// Stores `value` unconditionally and returns its row. A value this session
/// already boxed from the same tool gets its existing box back: an agent that
/// runs the same call twice should not store, index and find the output twice.
pub fn store_value(seg: &Segment, value: &str, opts: &BoxOptions) -> Result<BoxRow> {
    store_or_reuse(seg, value, opts).map(|(row, _)| row)
}

/// [`store_value`], and whether the row is an existing box.
fn store_or_reuse(seg: &Segment, value: &str, opts: &BoxOptions) -> Result<(BoxRow, bool)> {
    let session = check_session(&opts.session)?;
    let tool = sanitize_name(if opts.tool.is_empty() {
        "value"
    } else {
        &opts.tool
    });
    let sha256 = sha256_hex(value.as_bytes());
    if let Some(row) = reuse(seg, &session, &tool, &sha256, value, opts.lock_timeout)? {
        return Ok((row, true));
    }
    let id = reference::new_id().map_err(|e| Error::Invalid(e.to_string()))?;
    let media = preview::media_type(value);
    let dir = seg.relay_dir().join(&session);
    store::ensure_dir(&dir)?;
    let file = format!("{session}/{}_{tool}.{}", id.as_str(), media.extension());
    let path = seg.relay_dir().join(&file);
    store::write_atomic(&path, |w| w.write_all(value.as_bytes()))?;
    let length = super::resolve::length(value);
    let row = BoxRow {
        id: id.as_str().to_string(),
        session,
        tool: tool.clone(),
        created_ns: now_ns(),
        bytes: value.len() as u64,
        chars: length.chars as u64,
        tokens: length.tokens as u64,
        lines: length.lines as u64,
        sha256,
        media: media.as_str().to_string(),
        file,
    };
    match index_value(seg, &row, value, media, opts.lock_timeout)? {
        Some(theirs) => Ok((theirs, true)),
        None => Ok((row, false)),
    }
}

/// The box of `session` that already holds `value` from `tool` (same SHA-256),
/// refreshed so `gc` counts its age from now; `None` when there is none, or
/// when its file is gone or has another size (the value is then boxed anew).
fn reuse(
    seg: &Segment,
    session: &str,
    tool: &str,
    sha256: &str,
    value: &str,
    lock_timeout: Duration,
) -> Result<Option<BoxRow>> {
    let found = match Catalog::open_read(&seg.db_path()) {
        Ok(c) => c.box_with_content(session, tool, sha256)?,
        // No catalog yet (or an older layout): nothing to reuse.
        Err(Error::NoPack { .. } | Error::BadPack { .. } | Error::OldCatalog { .. }) => None,
        Err(e) => return Err(e),
    };
    let Some(found) = found else {
        return Ok(None);
    };
    // Under the lock `gc` takes, so the box cannot be removed in between.
    let _lock = FileLock::acquire(&seg.build_lock(), LockKind::Build, lock_timeout)?;
    let mut catalog = Catalog::open(&seg.db_path())?;
    refresh_intact(seg, &mut catalog, &found.id, value.len())
}

/// The box `id`, its `gc` age restarted, when its file is there with `len`
/// bytes; the caller holds the build lock.
fn refresh_intact(
    seg: &Segment,
    catalog: &mut Catalog,
    id: &str,
    len: usize,
) -> Result<Option<BoxRow>> {
    let Some(mut row) = catalog.box_row(id)? else {
        return Ok(None);
    };
    // The hash already matched; reading the file back (up to the whole value)
    // would only re-prove it. Its size tells a file that is gone or cut short.
    let intact = file_path(seg, &row)
        .ok()
        .and_then(|path| std::fs::metadata(path).ok())
        .is_some_and(|m| m.len() == len as u64);
    if !intact {
        return Ok(None);
    }
    row.created_ns = now_ns();
    catalog.transaction(|tx| tx.touch_box(&row.id, row.created_ns))?;
    Ok(Some(row))
}

/// Chunks the value and records row, chunks and index entries together.
/// When another process boxed the same value from the same tool in the
/// session meanwhile (both looked before either had recorded it), this one's
/// file is dropped and that box is returned instead.
fn index_value(
    seg: &Segment,
    row: &BoxRow,
    value: &str,
    media: MediaType,
    lock_timeout: Duration,
) -> Result<Option<BoxRow>> {
    let doc = format!("relay/{}", row.id);
    let mut cut = value.len().min(MAX_INDEXED_BYTES);
    while !value.is_char_boundary(cut) {
        cut -= 1;
    }
    let indexed = &value[..cut];
    let root = vec![row.tool.clone()];
    let opts = ChunkOptions::default();
    // An image inlined in a fetched page is no text to search: chunk text is
    // elided, the stored value (what `resolve` reads) is not.
    let mut chunks = encoded::chunk_elided(indexed, |indexed| match media {
        MediaType::Json => text::chunk_json(&doc, indexed, &root, &opts),
        MediaType::Markdown => markdown::chunk_markdown(&doc, indexed, &opts),
        MediaType::Html | MediaType::Text => text::chunk_text(&doc, indexed, &root, &opts),
    })
    .chunks;
    if media == MediaType::Markdown {
        for chunk in &mut chunks {
            chunk.title_path.insert(0, row.tool.clone());
        }
        crate::chunk::id::assign(&mut chunks);
    }
    let _lock = FileLock::acquire(&seg.build_lock(), LockKind::Build, lock_timeout)?;
    let mut catalog = Catalog::open(&seg.db_path())?;
    if let Some(theirs) = catalog.box_with_content(&row.session, &row.tool, &row.sha256)?
        && let Some(theirs) = refresh_intact(seg, &mut catalog, &theirs.id, value.len())?
    {
        if let Ok(path) = file_path(seg, row) {
            // Nothing refers to it: a failed removal leaves a stray file,
            // never a wrong answer.
            let _ = std::fs::remove_file(path);
        }
        return Ok(Some(theirs));
    }
    let index = SearchIndex::open_or_create(&seg.index_dir())?;
    let generation = catalog.generation()?;
    catalog.transaction(|tx| {
        tx.put_box(row)?;
        tx.put_chunks(&chunks, generation, "relay")
    })?;
    let mut writer = index.writer(chunks.iter().map(|c| c.text.len() as u64).sum())?;
    for c in &chunks {
        writer.add(c, "relay")?;
    }
    writer.commit(generation)?;
    Ok(None)
}

/// A stored value read back, after the session check.
pub struct Opened {
    /// Its catalog row.
    pub row: BoxRow,
    /// The value.
    pub value: String,
}

/// Where to look for references.
#[derive(Debug, Clone)]
pub struct Access {
    /// The caller's session.
    pub session: String,
    /// Allow references of other sessions.
    pub any_session: bool,
}

/// Reads the value behind `reference` (`internal://<id>`).
pub fn open(seg: &Segment, reference: &str, access: &Access) -> Result<Opened> {
    let id = reference::parse_reference(reference).map_err(|e| Error::Invalid(e.to_string()))?;
    open_id(seg, &id, access)
}

/// Reads the value behind a parsed reference.
pub fn open_id(seg: &Segment, id: &RefId, access: &Access) -> Result<Opened> {
    let row = accessible_row(seg, id, access)?;
    let path = file_path(seg, &row)?;
    let value = std::fs::read_to_string(&path).map_err(|e| Error::io("cannot read", &path, e))?;
    Ok(Opened { row, value })
}

/// The row and stored file behind `reference`, after the session check,
/// for a reader that reads the file itself (a jq query's worker process).
pub fn locate(seg: &Segment, reference: &str, access: &Access) -> Result<(BoxRow, PathBuf)> {
    let id = reference::parse_reference(reference).map_err(|e| Error::Invalid(e.to_string()))?;
    let row = accessible_row(seg, &id, access)?;
    let path = file_path(seg, &row)?;
    Ok((row, path))
}

fn accessible_row(seg: &Segment, id: &RefId, access: &Access) -> Result<BoxRow> {
    let unknown = || {
        Error::Invalid(format!(
            "unknown reference `{id}`: no boxed value with that ID in this segment (it may have been removed by `ctx relay gc`)"
        ))
    };
    let catalog = match Catalog::open_read(&seg.db_path()) {
        Ok(c) => c,
        Err(Error::NoPack { .. }) => return Err(unknown()),
        Err(e) => return Err(e),
    };
    let row = catalog.box_row(id.as_str())?.ok_or_else(unknown)?;
    if row.session != access.session && !access.any_session {
        return Err(Error::OtherSession {
            reference: id.to_string(),
            owner: row.session,
            session: access.session.clone(),
        });
    }
    Ok(row)
}

/// The stored file of a row, refusing anything that would leave `_ctx/relay/`.
pub fn file_path(seg: &Segment, row: &BoxRow) -> Result<PathBuf> {
    let ok = !row.file.contains("..")
        && !row.file.starts_with('/')
        && !row.file.contains('\0')
        && row.file.split('/').count() == 2;
    if !ok {
        return Err(Error::Invalid(format!(
            "catalog row for `{}` names a file outside _ctx/relay/; refusing",
            row.id
        )));
    }
    Ok(seg.relay_dir().join(&row.file))
}

/// Replaces every string that is exactly a reference (or a JSON-form object) of
/// an accessible box with the stored value, anywhere in `value`. Unknown or
/// inaccessible references are an error naming them; nothing is passed on
/// half-resolved.
pub fn unbox(seg: &Segment, value: &mut serde_json::Value, access: &Access) -> Result<usize> {
    let mut refs = Vec::new();
    collect(value, &mut refs);
    if refs.is_empty() {
        return Ok(0);
    }
    let mut resolved = std::collections::HashMap::new();
    let mut errors = Vec::new();
    for id in &refs {
        if resolved.contains_key(id.as_str()) {
            continue;
        }
        match open_id(seg, id, access) {
            Ok(o) => {
                resolved.insert(id.as_str().to_string(), o.value);
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.len() == 1 {
        // Kept as it is, so a surface can tell what it is.
        return Err(errors.remove(0));
    }
    if !errors.is_empty() {
        let mut messages: Vec<String> = errors.iter().map(ToString::to_string).collect();
        messages.dedup();
        return Err(Error::Invalid(messages.join("\n")));
    }
    let mut n = 0;
    replace(value, &resolved, &mut n);
    Ok(n)
}

fn as_ref(v: &serde_json::Value) -> Option<RefId> {
    match v {
        serde_json::Value::String(s) if s.starts_with(reference::SCHEME) => {
            reference::parse_reference(s).ok()
        }
        serde_json::Value::Object(_) => reference::parse_json_form(v),
        _ => None,
    }
}

fn collect(v: &serde_json::Value, out: &mut Vec<RefId>) {
    if let Some(id) = as_ref(v) {
        out.push(id);
        return;
    }
    match v {
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| collect(x, out)),
        _ => {}
    }
}

fn replace(
    v: &mut serde_json::Value,
    resolved: &std::collections::HashMap<String, String>,
    n: &mut usize,
) {
    if let Some(id) = as_ref(v) {
        if let Some(value) = resolved.get(id.as_str()) {
            *v = serde_json::Value::String(value.clone());
            *n += 1;
        }
        return;
    }
    match v {
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| replace(x, resolved, n)),
        serde_json::Value::Object(o) => o.values_mut().for_each(|x| replace(x, resolved, n)),
        _ => {}
    }
}

/// What `gc` removed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GcReport {
    /// Boxes removed.
    pub removed: usize,
    /// Bytes freed.
    pub bytes: u64,
    /// Stray files removed: under `_ctx/relay/` but no box's (a `ctx box`
    /// killed between writing the value and recording it). Their bytes are
    /// in `bytes`.
    pub stray_files: usize,
}

/// A file under `_ctx/relay/` that no box names is removed only when it is
/// older than this too: `ctx box` writes the value before it records the
/// row, and a box still being indexed must keep its file.
pub const STRAY_MIN_AGE: Duration = Duration::from_secs(3600);

/// Removes boxes older than `older_than`: file, catalog rows and index entries
/// together, under the build lock; then files no box names, older than
/// `older_than` and [`STRAY_MIN_AGE`].
pub fn gc(seg: &Segment, older_than: Duration, lock_timeout: Duration) -> Result<GcReport> {
    let has_catalog = seg.db_path().exists();
    if !has_catalog && !seg.relay_dir().is_dir() {
        return Ok(GcReport::default());
    }
    let _lock = FileLock::acquire(&seg.build_lock(), LockKind::Build, lock_timeout)?;
    let mut report = GcReport::default();
    let mut named = HashSet::new();
    if has_catalog {
        let mut catalog = Catalog::open(&seg.db_path())?;
        remove_old(seg, &mut catalog, older_than, &mut report)?;
        named = catalog.box_files()?;
    }
    remove_strays(seg, &named, older_than.max(STRAY_MIN_AGE), &mut report);
    Ok(report)
}

fn remove_old(
    seg: &Segment,
    catalog: &mut Catalog,
    older_than: Duration,
    report: &mut GcReport,
) -> Result<()> {
    let cutoff = now_ns() - older_than.as_nanos().min(i64::MAX as u128) as i64;
    let old = catalog.boxes_before(cutoff)?;
    if old.is_empty() {
        return Ok(());
    }
    let index = SearchIndex::open_or_create(&seg.index_dir())?;
    let generation = catalog.generation()?;
    let mut writer = index.writer(0)?;
    for b in &old {
        writer.delete_doc(&format!("relay/{}", b.id));
    }
    writer.commit(generation)?;
    catalog.transaction(|tx| old.iter().try_for_each(|b| tx.drop_box(&b.id)))?;
    for b in &old {
        if let Ok(path) = file_path(seg, b) {
            let _ = std::fs::remove_file(path);
        }
        report.removed += 1;
        report.bytes += b.bytes;
    }
    Ok(())
}

/// Removes the regular files in `_ctx/relay/<session>/` that `named` (paths
/// relative to `_ctx/relay/`) lacks and that were last written longer than
/// `older_than` ago. Best effort: what cannot be read or removed stays for
/// the next `gc`; symbolic links are not followed or removed.
fn remove_strays(
    seg: &Segment,
    named: &HashSet<String>,
    older_than: Duration,
    report: &mut GcReport,
) {
    let Some(cutoff) = SystemTime::now().checked_sub(older_than) else {
        return;
    };
    let Ok(sessions) = std::fs::read_dir(seg.relay_dir()) else {
        return;
    };
    for session in sessions.flatten() {
        if !session.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(files) = std::fs::read_dir(session.path()) else {
            continue;
        };
        for file in files.flatten() {
            let relative = format!(
                "{}/{}",
                session.file_name().to_string_lossy(),
                file.file_name().to_string_lossy()
            );
            let Ok(meta) = file.metadata() else {
                continue;
            };
            let old = meta.modified().is_ok_and(|written| written < cutoff);
            if !meta.is_file() || !old || named.contains(&relative) {
                continue;
            }
            if std::fs::remove_file(file.path()).is_ok() {
                report.stray_files += 1;
                report.bytes += meta.len();
            }
        }
    }
}

/// The short text an agent gets instead of the value.
pub fn describe(row: &BoxRow, value: &str) -> String {
    let media = preview::media_type(value);
    let p = preview::preview(value, media, &PreviewOptions::default());
    format!(
        "internal://{} — {} output of `{}`: {} chars, {} lines, ~{} tokens. Inspect with `ctx resolve slice|lines|grep|query|length internal://{}`; pass the reference to a tool to hand it the full value.\n{}",
        row.id,
        row.media,
        row.tool,
        row.chars,
        row.lines,
        row.tokens,
        row.id,
        p.render()
    )
}
