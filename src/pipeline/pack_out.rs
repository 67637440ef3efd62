//! Writing `context_pack.json` from the catalog.
//!
//! The header (sources, digest, index) is rebuilt every time; the chunks are
//! written document by document. A document whose chunks have the generation
//! they had when the previous pack was written is copied byte for byte from
//! that pack, so a one-file change costs one document's serialization, not
//! the whole corpus's.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};

use serde::Serialize;

use super::now_ns;
use crate::catalog::{Catalog, PackSpan};
use crate::config::Settings;
use crate::error::{Error, Result};
use crate::pack::{self, DocDigest, store};
use crate::segment::Segment;

#[derive(Serialize)]
struct Header<'a> {
    schema_version: u64,
    created_at: String,
    generator_version: String,
    segment: &'a str,
    source_files: Vec<pack::SourceFile>,
    chunking: pack::Chunking,
    digest: String,
}

/// Counts the bytes written through it, so spans can be recorded.
struct Counting<'a> {
    inner: &'a mut BufWriter<File>,
    written: u64,
}

impl Counting<'_> {
    /// Appends `len` bytes of `from` starting at `off`. The file-to-file copy
    /// lets the kernel move the bytes (copy_file_range on Linux) instead of
    /// reading them into this process and writing them back.
    fn copy_from(&mut self, from: &mut File, off: u64, len: u64) -> std::io::Result<()> {
        self.inner.flush()?;
        from.seek(SeekFrom::Start(off))?;
        let copied = std::io::copy(&mut from.take(len), self.inner.get_mut())?;
        if copied != len {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the previous pack is shorter than recorded",
            ));
        }
        self.written += len;
        Ok(())
    }
}

impl Write for Counting<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Consecutive bytes of the previous pack to copy, and where they land.
struct Run {
    old_start: u64,
    old_end: u64,
    new_start: u64,
}

/// Writes the pending run, if any.
fn flush(
    w: &mut Counting<'_>,
    run: &mut Option<Run>,
    old: Option<&mut File>,
) -> std::io::Result<()> {
    match (run.take(), old) {
        (Some(r), Some(file)) => w.copy_from(file, r.old_start, r.old_end - r.old_start),
        _ => Ok(()),
    }
}

/// Size and modification time of the pack file, recorded after writing it: a
/// pack that no longer matches was replaced or damaged outside a build.
pub(super) fn fingerprint(seg: &Segment) -> Option<String> {
    let m = std::fs::metadata(seg.pack_path()).ok()?;
    let mtime = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(format!("{}:{mtime}", m.len()))
}

/// Whether the pack file is the one the catalog recorded writing.
pub(super) fn pack_intact(seg: &Segment, catalog: &Catalog) -> Result<bool> {
    let recorded = catalog.meta("pack_fingerprint")?;
    Ok(recorded.is_some() && recorded == fingerprint(seg))
}

/// Writes the pack of generation `generation` and records where each document
/// went.
pub(super) fn write_pack(
    seg: &Segment,
    settings: &Settings,
    catalog: &mut Catalog,
    generation: u64,
) -> Result<()> {
    let (head, docs) = header(seg, settings, catalog)?;
    let old_spans = if pack_intact(seg, catalog)? {
        catalog.pack_spans()?
    } else {
        HashMap::new()
    };
    let mut old = if old_spans.is_empty() {
        None
    } else {
        File::open(seg.pack_path()).ok()
    };
    let mut spans: Vec<(String, PackSpan)> = Vec::with_capacity(docs.len());
    let mut failure = None;
    let written = store::replace_derived(&seg.pack_path(), |w| {
        let mut w = Counting {
            inner: w,
            written: 0,
        };
        // `head` ends with `}`: reopen the object to append the chunks array.
        w.write_all(&head.as_bytes()[..head.len() - 1])?;
        w.write_all(b",\"chunks\":[")?;
        // Reusable documents that sat next to each other in the old pack are
        // copied as one run, commas included.
        let mut run: Option<Run> = None;
        for (i, (doc, gen_)) in docs.iter().enumerate() {
            let reused = match (old_spans.get(doc), old.as_mut()) {
                (Some(s), Some(_)) if s.gen_ == *gen_ => Some(*s),
                _ => None,
            };
            let joins = |r: &Run, s: &PackSpan| r.old_end + 1 == s.off;
            if run
                .as_ref()
                .is_some_and(|r| !reused.is_some_and(|s| joins(r, &s)))
            {
                flush(&mut w, &mut run, old.as_mut())?;
            }
            if run.is_none() && i > 0 {
                w.write_all(b",")?;
            }
            if let Some(s) = reused {
                let r = run.get_or_insert(Run {
                    old_start: s.off,
                    old_end: s.off,
                    new_start: w.written,
                });
                spans.push((
                    doc.clone(),
                    PackSpan {
                        gen_: *gen_,
                        off: r.new_start + (s.off - r.old_start),
                        len: s.len,
                    },
                ));
                r.old_end = s.off + s.len;
                continue;
            }
            let off = w.written;
            let mut first = true;
            let r = catalog.for_each_chunk_of(doc, |chunk| {
                let io = |e: std::io::Error| Error::io("cannot write", seg.pack_path(), e);
                if !first {
                    w.write_all(b",").map_err(io)?;
                }
                first = false;
                serde_json::to_writer(&mut w, chunk).map_err(|e| io(e.into()))
            });
            if let Err(e) = r {
                failure = Some(e);
                return Err(std::io::Error::other("catalog read failed"));
            }
            spans.push((
                doc.clone(),
                PackSpan {
                    gen_: *gen_,
                    off,
                    len: w.written - off,
                },
            ));
        }
        flush(&mut w, &mut run, old.as_mut())?;
        w.write_all(b"]}\n")
    });
    written.map_err(|e| failure.take().unwrap_or(e))?;
    let print = fingerprint(seg).ok_or_else(|| {
        Error::Invalid(format!(
            "the pack `{}` vanished right after it was written",
            seg.pack_path().display()
        ))
    })?;
    catalog.record_pack(&spans, &print, generation)
}

/// The pack's metadata (everything before the chunks), and each document with
/// the generation of its chunks, in pack order.
///
/// The index is written straight from the catalog rows: title paths are
/// stored as the JSON the pack wants, and are parsed only while the digest
/// still collects a document's top headings.
fn header(
    seg: &Segment,
    settings: &Settings,
    catalog: &Catalog,
) -> Result<(String, Vec<(String, u64)>)> {
    let mut files: Vec<(String, crate::catalog::FileRow)> = catalog.files()?.into_iter().collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let source_files: Vec<pack::SourceFile> = files
        .into_iter()
        .map(|(path, r)| pack::SourceFile {
            path,
            sha256: r.sha256,
            mtime: pack::rfc3339(r.mtime_ns),
            chars: r.chars,
            bytes: r.size,
        })
        .collect();
    let mut index = Vec::with_capacity(1 << 20);
    let mut docs: Vec<(String, u64)> = Vec::new();
    let mut per_doc: BTreeMap<String, DocDigest> = BTreeMap::new();
    let mut current = DocDigest::default();
    let bad = |e: serde_json::Error| Error::Invalid(format!("cannot encode the pack index: {e}"));
    catalog.for_each_meta_raw("docs", |m| {
        match docs.last_mut() {
            Some((doc, gen_)) if doc == m.doc => *gen_ = (*gen_).max(m.gen_),
            last => {
                if let Some((doc, _)) = last {
                    per_doc.insert(doc.clone(), std::mem::take(&mut current));
                }
                docs.push((m.doc.to_string(), m.gen_));
            }
        }
        if current.wants_top() {
            let tp: Vec<String> = serde_json::from_str(m.title_path_json).map_err(bad)?;
            current.add(m.token_est, Some(&tp));
        } else {
            current.add(m.token_est, None);
        }
        index.push(if index.is_empty() { b'[' } else { b',' });
        index.extend_from_slice(b"{\"id\":");
        serde_json::to_writer(&mut index, m.id).map_err(bad)?;
        index.extend_from_slice(b",\"doc\":");
        serde_json::to_writer(&mut index, m.doc).map_err(bad)?;
        index.extend_from_slice(b",\"title_path\":");
        index.extend_from_slice(m.title_path_json.as_bytes());
        index.extend_from_slice(format!(",\"token_est\":{}}}", m.token_est).as_bytes());
        Ok(())
    })?;
    if let Some((doc, _)) = docs.last() {
        per_doc.insert(doc.clone(), current);
    }
    if index.is_empty() {
        index.push(b'[');
    }
    index.push(b']');
    let digest = pack::digest_from(&seg.name, source_files.len(), &per_doc);
    let header = Header {
        schema_version: pack::SCHEMA_VERSION,
        created_at: pack::rfc3339(now_ns() / 1_000_000_000 * 1_000_000_000),
        generator_version: pack::generator_version(),
        segment: &seg.name,
        source_files,
        chunking: pack::Chunking {
            method: "heading_aware".into(),
            max_chunk_tokens: settings.max_chunk_tokens,
        },
        digest,
    };
    let mut head = serde_json::to_string(&header).map_err(bad)?;
    // `head` ends with `}`: the index goes last, as the schema lists it.
    head.pop();
    head.push_str(",\"index\":");
    head.push_str(std::str::from_utf8(&index).map_err(|e| Error::Invalid(e.to_string()))?);
    head.push('}');
    Ok((head, docs))
}
