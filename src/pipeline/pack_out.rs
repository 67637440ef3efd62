//! Writing `context_pack.json` from the catalog.
//!
//! The sources and the digest are rebuilt every time; the index entries and
//! the chunks are written document by document. A document whose chunks have
//! the generation they had when the previous pack was written has its entries
//! and chunks copied byte for byte from that pack (and its digest line taken
//! from the catalog), so a one-file change costs one document's serialization,
//! not the whole corpus's. Documents this build chunked are written from the
//! chunks in memory, serialized on a helper thread while the writer writes
//! (the pack is the last stage of a build, and one core would sit idle); the
//! catalog is read only for the others.
//!
//! What the pack lists ([`Contents`]) comes from the committed catalog, or,
//! when the pack on disk is the committed one, from it and this build's
//! changes before the commit, so that it can be written alongside the commit.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};

use serde::Serialize;

use super::now_ns;
use crate::catalog::{Catalog, FileRow, PackSpan};
use crate::chunk::Chunk;
use crate::config::Settings;
use crate::error::{Error, Result};
use crate::pack::{self, DocDigest, store};
use crate::segment::Segment;
use crate::sources::SourceEntry;

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

/// Documents serialized ahead of the pack writer, at most.
const SERIALIZED_AHEAD: usize = 16;

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

/// Writes the elements of one JSON array document by document: a document is
/// either copied from the previous pack (`Some((offset, length))`) or written by
/// `fresh`. Copied documents that sat next to each other there go as one run,
/// commas included. Returns where each document landed.
fn write_docs(
    w: &mut Counting<'_>,
    mut old: Option<&mut File>,
    sources: &[Option<(u64, u64)>],
    mut fresh: impl FnMut(usize, &mut Counting<'_>) -> std::io::Result<()>,
) -> std::io::Result<Vec<(u64, u64)>> {
    let mut placed = Vec::with_capacity(sources.len());
    // Pending run: old start, old end, new start.
    let mut run: Option<(u64, u64, u64)> = None;
    for (i, &copy) in sources.iter().enumerate() {
        if let Some((start, end, _)) = run
            && copy.is_none_or(|(off, _)| end + 1 != off)
        {
            copy_run(w, old.as_deref_mut(), start, end)?;
            run = None;
        }
        if run.is_none() && i > 0 {
            w.write_all(b",")?;
        }
        match copy {
            Some((off, len)) => {
                let r = run.get_or_insert((off, off, w.written));
                placed.push((r.2 + (off - r.0), len));
                r.1 = off + len;
            }
            None => {
                let start = w.written;
                fresh(i, w)?;
                placed.push((start, w.written - start));
            }
        }
    }
    if let Some((start, end, _)) = run {
        copy_run(w, old, start, end)?;
    }
    Ok(placed)
}

/// Writes one chunk object of the `chunks` array, after a comma unless `first`.
fn put_chunk(w: &mut impl Write, first: &mut bool, chunk: &Chunk) -> std::io::Result<()> {
    if !std::mem::take(first) {
        w.write_all(b",")?;
    }
    serde_json::to_writer(&mut *w, chunk).map_err(std::io::Error::from)
}

/// Copies bytes `start..end` of the previous pack.
fn copy_run(
    w: &mut Counting<'_>,
    old: Option<&mut File>,
    start: u64,
    end: u64,
) -> std::io::Result<()> {
    let file = old.ok_or_else(|| std::io::Error::other("no previous pack to copy from"))?;
    w.copy_from(file, start, end - start)
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

/// What a written pack holds: its documents, chunks and tokens.
pub(super) struct Written {
    /// Source files.
    pub files: usize,
    /// Chunks.
    pub chunks: usize,
    /// Sum of their token estimates.
    pub tokens: usize,
}

/// One document of the pack: where it comes from and where it goes.
struct DocOut {
    doc: String,
    /// Its span in the previous pack, when it can be copied from there.
    reuse: Option<PackSpan>,
    /// Its index entries, when this build holds its chunks (the others' are
    /// read from the catalog as the pack is written).
    entries: Vec<u8>,
    /// The span being recorded for the new pack.
    span: PackSpan,
}

/// The chunks of the documents this build chunked, by document: the same
/// rows the catalog now holds, without reading them back.
pub(super) type InMemory<'a> = HashMap<&'a str, &'a [Chunk]>;

/// What a pack lists: each document with the generation of its chunks, the
/// source files' rows, and the spans of the pack last written (empty when its
/// documents may not be copied).
pub(super) struct Contents {
    docs: Vec<(String, u64)>,
    files: Vec<(String, FileRow)>,
    old_spans: HashMap<String, PackSpan>,
}

impl Contents {
    /// As the catalog holds them: after this build's commit. `intact`: the
    /// pack on disk is the one last recorded ([`pack_intact`]), so its
    /// documents may be copied.
    pub(super) fn committed(catalog: &Catalog, intact: bool) -> Result<Contents> {
        let old_spans = if intact {
            catalog.pack_spans()?
        } else {
            HashMap::new()
        };
        let mut files: Vec<(String, FileRow)> = catalog.files()?.into_iter().collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Contents {
            docs: catalog.doc_generations()?,
            files,
            old_spans,
        })
    }

    /// As this build's commit will leave them, known before it: the pack on
    /// disk is intact and current (its spans are the committed state), so a
    /// document is one of its unchanged ones or one this build chunked.
    /// `None` when a changed document's chunks are not in `memory`: the pack
    /// would have to read them from the catalog, where they are not yet
    /// committed.
    pub(super) fn ahead(
        catalog: &Catalog,
        known: &HashMap<String, FileRow>,
        changes: &Changes<'_>,
        memory: &InMemory<'_>,
        generation: u64,
    ) -> Result<Option<Contents>> {
        let rewritten: HashSet<&str> = changes
            .changed
            .iter()
            .map(|(e, _)| e.rel.as_str())
            .collect();
        let gone: HashSet<&str> = changes.removed.iter().map(String::as_str).collect();
        if rewritten.iter().any(|rel| !memory.contains_key(rel)) {
            return Ok(None);
        }
        let old_spans = catalog.pack_spans()?;
        let mut docs: Vec<(String, u64)> = old_spans
            .iter()
            .filter(|(doc, _)| !rewritten.contains(doc.as_str()) && !gone.contains(doc.as_str()))
            .map(|(doc, span)| (doc.clone(), span.gen_))
            .collect();
        // A file without chunks has no pages, so no document.
        docs.extend(
            memory
                .iter()
                .filter(|(_, chunks)| !chunks.is_empty())
                .map(|(doc, _)| (doc.to_string(), generation)),
        );
        docs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut rows: HashMap<&str, &FileRow> = known
            .iter()
            .filter(|(path, _)| !gone.contains(path.as_str()))
            .map(|(path, row)| (path.as_str(), row))
            .collect();
        rows.extend(
            changes
                .changed
                .iter()
                .chain(changes.touched)
                .map(|(e, r)| (e.rel.as_str(), r)),
        );
        let mut files: Vec<(String, FileRow)> = rows
            .into_iter()
            .map(|(path, row)| (path.to_string(), row.clone()))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Some(Contents {
            docs,
            files,
            old_spans,
        }))
    }
}

/// What a build changed, for [`Contents::ahead`].
pub(super) struct Changes<'a> {
    /// Files rechunked, with their new rows.
    pub changed: &'a [(SourceEntry, FileRow)],
    /// Files whose rows changed but whose chunks did not.
    pub touched: &'a [(SourceEntry, FileRow)],
    /// Files dropped.
    pub removed: &'a [String],
}

/// A pack written but not yet recorded in the catalog.
pub(super) struct Unrecorded {
    written: Written,
    spans: Vec<(String, PackSpan)>,
    print: String,
}

impl Unrecorded {
    /// Records where each document went, with the pack's fingerprint and
    /// generation: the next build may copy from it.
    pub(super) fn record(self, catalog: &mut Catalog, generation: u64) -> Result<Written> {
        catalog.record_pack(&self.spans, &self.print, generation)?;
        Ok(self.written)
    }
}

/// Writes the pack of `contents`. Documents neither copied from the previous
/// pack nor in `memory` are read from `catalog`; without one, such a document
/// is an error (see [`Contents::ahead`]).
pub(super) fn write_pack(
    seg: &Segment,
    settings: &Settings,
    catalog: Option<&Catalog>,
    contents: Contents,
    memory: &InMemory<'_>,
) -> Result<Unrecorded> {
    let Contents {
        docs: generations,
        files,
        old_spans,
    } = contents;
    let mut old = if old_spans.is_empty() {
        None
    } else {
        File::open(seg.pack_path()).ok()
    };
    let mut docs: Vec<DocOut> = generations
        .into_iter()
        .map(|(doc, gen_)| DocOut {
            reuse: old_spans
                .get(&doc)
                .filter(|s| s.gen_ == gen_ && old.is_some())
                .cloned(),
            entries: Vec::new(),
            span: PackSpan {
                gen_,
                off: 0,
                len: 0,
                ioff: 0,
                ilen: 0,
                digest: DocDigest::default(),
            },
            doc,
        })
        .collect();
    let (head, written) = header(seg, settings, files, catalog, &mut docs, memory)?;
    let index_from: Vec<Option<(u64, u64)>> = docs
        .iter()
        .map(|d| d.reuse.as_ref().map(|s| (s.ioff, s.ilen)))
        .collect();
    let chunks_from: Vec<Option<(u64, u64)>> = docs
        .iter()
        .map(|d| d.reuse.as_ref().map(|s| (s.off, s.len)))
        .collect();
    // The chunks this build holds in memory, in the order the writer asks for
    // them: a helper thread serializes them while this one writes.
    let serialized: Vec<(&str, &[Chunk])> = docs
        .iter()
        .filter(|d| d.reuse.is_none())
        .filter_map(|d| memory.get_key_value(d.doc.as_str()).map(|(k, v)| (*k, *v)))
        .collect();
    let mut failure = None;
    let result = std::thread::scope(|s| {
        let (send, receive) = std::sync::mpsc::sync_channel(SERIALIZED_AHEAD);
        s.spawn(move || {
            for (doc, chunks) in serialized {
                let mut json = Vec::with_capacity(chunks.iter().map(|c| c.text.len() + 256).sum());
                let mut first = true;
                let r = chunks
                    .iter()
                    .try_for_each(|c| put_chunk(&mut json, &mut first, c))
                    .map(|()| (doc, json));
                // The writer stopped (it failed): nothing more to do.
                if send.send(r).is_err() {
                    return;
                }
            }
        });
        store::replace_derived(&seg.pack_path(), |w| {
            let mut w = Counting {
                inner: w,
                written: 0,
            };
            // `head` ends with `}`: reopen the object for the index, then the chunks.
            w.write_all(&head.as_bytes()[..head.len() - 1])?;
            w.write_all(b",\"index\":[")?;
            let index = write_docs(&mut w, old.as_mut(), &index_from, |i, w| {
                let d = &docs[i];
                if memory.contains_key(d.doc.as_str()) {
                    return w.write_all(&d.entries);
                }
                let mut entries = Vec::new();
                let r = read_from(catalog).and_then(|c| {
                    c.for_each_meta_of(&d.doc, |m| {
                        push_entry(
                            &mut entries,
                            m.id,
                            m.doc,
                            m.title_path_json.as_bytes(),
                            m.token_est,
                        )
                        .map_err(|e| Error::Invalid(format!("cannot encode the pack index: {e}")))
                    })
                });
                if let Err(e) = r {
                    failure = Some(e);
                    return Err(std::io::Error::other("catalog read failed"));
                }
                w.write_all(&entries)
            })?;
            w.write_all(b"],\"chunks\":[")?;
            let chunks = write_docs(&mut w, old.as_mut(), &chunks_from, |i, w| {
                let mut first = true;
                if memory.contains_key(docs[i].doc.as_str()) {
                    let (doc, json) = receive.recv().map_err(|_| {
                        std::io::Error::other("the pack serializer stopped early")
                    })??;
                    // The two sides walk the same list; a mismatch would put
                    // one document's chunks under another's index entry.
                    if doc != docs[i].doc {
                        return Err(std::io::Error::other(format!(
                            "the pack serializer sent `{doc}` for `{}`",
                            docs[i].doc
                        )));
                    }
                    return w.write_all(&json);
                }
                let r = read_from(catalog).and_then(|c| {
                    c.for_each_chunk_of(&docs[i].doc, |chunk| {
                        put_chunk(w, &mut first, chunk)
                            .map_err(|e| Error::io("cannot write", seg.pack_path(), e))
                    })
                });
                r.map_err(|e| {
                    failure = Some(e);
                    std::io::Error::other("catalog read failed")
                })
            })?;
            for (d, ((ioff, ilen), (off, len))) in
                docs.iter_mut().zip(index.into_iter().zip(chunks))
            {
                (d.span.ioff, d.span.ilen, d.span.off, d.span.len) = (ioff, ilen, off, len);
            }
            w.write_all(b"]}\n")
        })
    });
    result.map_err(|e| failure.take().unwrap_or(e))?;
    let print = fingerprint(seg).ok_or_else(|| {
        Error::Invalid(format!(
            "the pack `{}` vanished right after it was written",
            seg.pack_path().display()
        ))
    })?;
    let spans: Vec<(String, PackSpan)> = docs.into_iter().map(|d| (d.doc, d.span)).collect();
    Ok(Unrecorded {
        written,
        spans,
        print,
    })
}

/// The catalog a document's chunks are read from; a pack written ahead of
/// the commit has none, and [`Contents::ahead`] made sure it needs none.
fn read_from(catalog: Option<&Catalog>) -> Result<&Catalog> {
    catalog.ok_or_else(|| {
        Error::Invalid("a document of the pack written ahead must be read from the catalog".into())
    })
}

/// Appends one index entry to a document's entries; `title_path` is its JSON.
fn push_entry(
    entries: &mut Vec<u8>,
    id: &str,
    doc: &str,
    title_path: &[u8],
    token_est: usize,
) -> serde_json::Result<()> {
    if !entries.is_empty() {
        entries.push(b',');
    }
    entries.extend_from_slice(b"{\"id\":");
    serde_json::to_writer(&mut *entries, id)?;
    entries.extend_from_slice(b",\"doc\":");
    serde_json::to_writer(&mut *entries, doc)?;
    entries.extend_from_slice(b",\"title_path\":");
    entries.extend_from_slice(title_path);
    entries.extend_from_slice(format!(",\"token_est\":{token_est}}}").as_bytes());
    Ok(())
}

/// The pack's metadata before the index, with each document's digest line
/// and, for documents not copied from the previous pack, its index entries.
///
/// Index entries are written from the catalog rows: title paths are stored
/// as the JSON the pack wants, and parsed only while the digest still
/// collects a document's top headings.
fn header(
    seg: &Segment,
    settings: &Settings,
    files: Vec<(String, FileRow)>,
    catalog: Option<&Catalog>,
    docs: &mut [DocOut],
    memory: &InMemory<'_>,
) -> Result<(String, Written)> {
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
    let bad = |e: serde_json::Error| Error::Invalid(format!("cannot encode the pack index: {e}"));
    for d in docs.iter_mut() {
        if let Some(s) = &d.reuse {
            d.span.digest = s.digest.clone();
        } else if let Some(chunks) = memory.get(d.doc.as_str()) {
            let mut digest = DocDigest::default();
            for c in chunks.iter() {
                digest.add(c.token_est, Some(&c.title_path));
                let tp = serde_json::to_vec(&c.title_path).map_err(bad)?;
                push_entry(&mut d.entries, &c.id, &c.doc, &tp, c.token_est).map_err(bad)?;
            }
            d.span.digest = digest;
        } else {
            // Only the digest: the index entries are read again as they are
            // written, since held for every document at once they grow with
            // the corpus (181 MB of JSON for the 1 GB scale corpus).
            let mut digest = DocDigest::default();
            read_from(catalog)?.for_each_meta_of(&d.doc, |m| {
                if digest.wants_top() {
                    let tp: Vec<String> = serde_json::from_str(m.title_path_json).map_err(bad)?;
                    digest.add(m.token_est, Some(&tp));
                } else {
                    digest.add(m.token_est, None);
                }
                Ok(())
            })?;
            d.span.digest = digest;
        }
    }
    let written = Written {
        files: source_files.len(),
        chunks: docs.iter().map(|d| d.span.digest.chunks).sum(),
        tokens: docs.iter().map(|d| d.span.digest.tokens).sum(),
    };
    // `docs` is in document order, as the digest lists them.
    let per_doc: Vec<(&str, &DocDigest)> = docs
        .iter()
        .map(|d| (d.doc.as_str(), &d.span.digest))
        .collect();
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
    let head = serde_json::to_string(&header).map_err(bad)?;
    Ok((head, written))
}
