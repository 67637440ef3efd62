//! Which section of a document a query asks for: the words that tell the
//! document's chunks apart, weighed within the document.
//!
//! BM25 weighs a word by its rarity in the whole collection. A design
//! document's topic words (`NominatedNodeName`, "ordinal") are rare in the
//! collection and occur in nearly every section of their document, so they
//! rank whichever section repeats them most; the words that say *which*
//! section ("reset once bound", "why would anyone want") weigh little beside
//! them. Once the candidates are known, the chunks of each document trade
//! places among the ranks that document already holds, by their score plus a
//! BM25 whose IDF and average length are taken over that document's chunks
//! alone. Documents keep their ranks, so the choice between documents is the
//! collection-wide one.

use std::collections::{HashMap, HashSet};

use tantivy::postings::Postings;
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{DocAddress, DocId, DocSet, Searcher, TantivyDocument, Term};

use super::present::Presence;
use super::reader::{IndexReader, ScoredId};
use super::{Fields, REC_DOC, holds, index_err, signals};
use crate::error::Result;

/// How many of the best chunks take part. Fixed, so that the order of the
/// first `k` does not depend on `k`. Pools of 15, 20, 30 and 45 found the
/// same KEP queries within one; 30 lets a section ranked past 20 move up.
pub(super) const POOL: usize = 30;

/// Weight of the within-document BM25 against the chunk's own score. Swept
/// on the prose sets already read (KEP dev and blind 1–6, 286 answerable
/// queries; the Rust Book's, 340): KEP hits at 5 223 without it, 229 at 3,
/// 234 at 6, 233 at 10, 232 at 20; the Rust Book 311 → 311–312. Heavier
/// weights let the document's own weighing decide its order almost alone.
const LOCAL_WEIGHT: f32 = 10.0;

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// One of the best chunks: where it is, its score, its ID and its document.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub addr: DocAddress,
    pub score: f32,
    pub id: String,
    pub doc: String,
}

/// A term of the query as the chunk query weighs it: a word of the query or
/// one of its synonyms in the body, or a section role's word in the headings
/// (see [`super::intent`]).
#[derive(Debug, Clone)]
pub(super) struct LocalTerm {
    pub text: String,
    pub weight: f32,
    pub headings: bool,
}

/// Body lengths and query-term frequencies of the chunk records of every
/// document being reordered, read with one postings list per term and
/// segment.
struct Local {
    lengths: HashMap<DocAddress, f32>,
    tf: Vec<HashMap<DocAddress, u32>>,
}

/// Reorders `pool` (best first) by `terms` within each document that holds
/// more than one of its ranks. A chunk takes the score of the rank it moves
/// to, so scores still fall. Chunks in a JSON record the query names
/// (among `records`, by segment) come first, the record's first chunk
/// before them when the query is its name alone (among `exact`), tables of
/// contents last.
pub(super) fn reorder(
    searcher: &Searcher,
    present: &Presence,
    fields: Fields,
    terms: &[LocalTerm],
    records: &[HashSet<DocId>],
    exact: &[HashSet<DocId>],
    pool: &mut [Candidate],
) -> tantivy::Result<()> {
    if terms.is_empty() {
        return Ok(());
    }
    let mut ranks: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, c) in pool.iter().enumerate() {
        ranks.entry(c.doc.as_str()).or_default().push(i);
    }
    // Each document to reorder: the ranks it holds and all its chunk records.
    let mut groups: Vec<(Vec<usize>, Vec<DocAddress>)> = Vec::new();
    for slots in ranks.into_values().filter(|s| s.len() > 1) {
        if !is_code(searcher, fields, pool[slots[0]].addr)? {
            let chunks = chunk_records(searcher, fields, &pool[slots[0]].doc)?;
            groups.push((slots, chunks));
        }
    }
    if groups.is_empty() {
        return Ok(());
    }
    let mut all: Vec<DocAddress> = groups.iter().flat_map(|g| g.1.iter().copied()).collect();
    all.sort_unstable();
    let local = local_stats(searcher, present, fields, &all, terms)?;
    let flags = signals::Flags::new(searcher);
    let mut moves: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for (slots, chunks) in groups {
        let weights = idf(&local, &chunks, terms);
        let n = chunks.len().max(1) as f32;
        let lengths = chunks.iter().filter_map(|a| local.lengths.get(a));
        let avg = lengths.sum::<f32>() / n;
        let key = |c: &Candidate| {
            let len = local.lengths.get(&c.addr).copied().unwrap_or(avg);
            let norm = K1 * (1.0 - B + B * len / avg.max(1.0));
            // A heading is a few words: its terms saturate without a
            // length penalty.
            let bm25: f32 = local
                .tf
                .iter()
                .zip(&weights)
                .zip(terms)
                .filter_map(|((tf, w), t)| tf.get(&c.addr).map(|&f| (f as f32, w, t)))
                .map(|(f, w, t)| match t.headings {
                    true => w * f * (K1 + 1.0) / (f + K1),
                    false => w * f * (K1 + 1.0) / (f + norm),
                })
                .sum();
            c.score + LOCAL_WEIGHT * bm25
        };
        // A table of contents holds its document's rank (it matched the
        // query's words, as the sections it lists do) but yields it to them.
        // A record the query names is what it asks for, however often its
        // siblings repeat the name (a boxed value is one document, so this
        // order is the whole ranking of its records).
        let in_set = |sets: &[HashSet<DocId>], addr: DocAddress| {
            sets.get(addr.segment_ord as usize)
                .is_some_and(|s| s.contains(&addr.doc_id))
        };
        let tier = |c: &Candidate| {
            let flags = flags.of(c.addr);
            if flags & signals::CONTENTS != 0 {
                -1
            } else if flags & signals::RECORD == 0 || !in_set(records, c.addr) {
                0
            } else if flags & signals::RECORD_HEAD != 0 && in_set(exact, c.addr) {
                2
            } else {
                1
            }
        };
        let mut order: Vec<(i8, f32, usize)> = slots
            .iter()
            .map(|&i| (tier(&pool[i]), key(&pool[i]), i))
            .collect();
        order.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then_with(|| b.1.total_cmp(&a.1))
                .then_with(|| pool[a.2].id.cmp(&pool[b.2].id))
        });
        moves.push((slots, order.into_iter().map(|(_, _, i)| i).collect()));
    }
    for (slots, order) in moves {
        let moved: Vec<Candidate> = order.iter().map(|&i| pool[i].clone()).collect();
        for (&slot, mut c) in slots.iter().zip(moved) {
            c.score = pool[slot].score;
            pool[slot] = c;
        }
    }
    Ok(())
}

impl IndexReader {
    /// The `limit` best of the chunk records `top`, the first [`POOL`]
    /// reordered within their documents by `terms` ([`reorder`]); ties by ID.
    pub(super) fn best_within_docs(
        &self,
        mut top: Vec<(f32, DocAddress)>,
        limit: usize,
        terms: &[LocalTerm],
        records: &[HashSet<DocId>],
        exact: &[HashSet<DocId>],
    ) -> Result<Vec<ScoredId>> {
        let f = self.fields;
        top.sort_by(|a, b| b.0.total_cmp(&a.0));
        // Records tied with the pool's last one join it, so the pool does not
        // depend on the order the collector left ties in.
        let mut n = top.len().min(POOL);
        while n > 0 && n < top.len() && top[n].0 == top[n - 1].0 {
            n += 1;
        }
        let rest = top.split_off(n);
        let mut pool = Vec::with_capacity(n);
        for (score, addr) in top {
            let doc: TantivyDocument = self
                .searcher
                .doc(addr)
                .map_err(|e| index_err(&self.dir, e))?;
            let text = |field| doc.get_first(field).and_then(|v| v.as_str());
            if let (Some(id), Some(path)) = (text(f.id), text(f.doc)) {
                pool.push(Candidate {
                    addr,
                    score,
                    id: id.to_string(),
                    doc: path.to_string(),
                });
            }
        }
        pool.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        reorder(
            &self.searcher,
            &self.present,
            f,
            terms,
            records,
            exact,
            &mut pool,
        )
        .map_err(|e| index_err(&self.dir, e))?;
        let mut out: Vec<ScoredId> = pool
            .into_iter()
            .take(limit)
            .map(|c| ScoredId {
                id: c.id,
                score: c.score,
            })
            .collect();
        if out.len() < limit {
            let more = self.best_by_key(rest, limit - out.len(), f.id)?;
            out.extend(more.into_iter().map(|(id, score)| ScoredId { id, score }));
        }
        Ok(out)
    }
}

/// Whether the record at `addr` is a code chunk. A source file's symbols are
/// told apart by their names and signatures, not by their bodies' words:
/// ordered by those, every code set lost (`ignore` hit@5 0.891 → 0.800, tree-sitter C
/// MRR 0.699 → 0.607).
fn is_code(searcher: &Searcher, fields: Fields, addr: DocAddress) -> tantivy::Result<bool> {
    let term = Term::from_field_text(fields.kind, "code");
    let postings = searcher
        .segment_reader(addr.segment_ord)
        .inverted_index(fields.kind)?
        .read_postings(&term, IndexRecordOption::Basic)?;
    Ok(postings.is_some_and(|mut p| holds(&mut p, addr.doc_id)))
}

/// Each term's IDF over the document's `chunks`, times its query weight.
fn idf(local: &Local, chunks: &[DocAddress], terms: &[LocalTerm]) -> Vec<f32> {
    let n = chunks.len() as f32;
    local
        .tf
        .iter()
        .zip(terms)
        .map(|(tf, t)| {
            let df = chunks.iter().filter(|a| tf.contains_key(a)).count() as f32;
            t.weight * (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect()
}

/// The live chunk records of `doc` (not its document record), in every
/// segment: the writer's threads can share a document's chunks out.
fn chunk_records(
    searcher: &Searcher,
    fields: Fields,
    doc: &str,
) -> tantivy::Result<Vec<DocAddress>> {
    let doc_term = Term::from_field_text(fields.doc, doc);
    let rec_term = Term::from_field_text(fields.rec, REC_DOC);
    let mut chunks = Vec::new();
    for (ord, segment) in searcher.segment_readers().iter().enumerate() {
        let Some(mut postings) = segment
            .inverted_index(fields.doc)?
            .read_postings(&doc_term, IndexRecordOption::Basic)?
        else {
            continue;
        };
        let mut records = segment
            .inverted_index(fields.rec)?
            .read_postings(&rec_term, IndexRecordOption::Basic)?;
        let alive = segment.alive_bitset();
        while postings.doc() != tantivy::TERMINATED {
            let d = postings.doc();
            let is_record = records.as_mut().is_some_and(|r| holds(r, d));
            if !is_record && alive.is_none_or(|a| a.is_alive(d)) {
                chunks.push(DocAddress::new(ord as u32, d));
            }
            postings.advance();
        }
    }
    Ok(chunks)
}

/// The body lengths of the chunk records `all` (sorted) and the frequency of
/// each of `terms` in them (in their body or headings), straight from the
/// postings.
fn local_stats(
    searcher: &Searcher,
    present: &Presence,
    fields: Fields,
    all: &[DocAddress],
    terms: &[LocalTerm],
) -> tantivy::Result<Local> {
    let mut local = Local {
        lengths: HashMap::new(),
        tf: vec![HashMap::new(); terms.len()],
    };
    for chunks in all.chunk_by(|a, b| a.segment_ord == b.segment_ord) {
        let segment = searcher.segment_reader(chunks[0].segment_ord);
        let norms = segment.get_fieldnorms_reader(fields.body)?;
        for &a in chunks {
            local.lengths.insert(a, norms.fieldnorm(a.doc_id) as f32);
        }
        for (t, tf) in terms.iter().zip(local.tf.iter_mut()) {
            let searched: &[Field] = match t.headings {
                true => &[fields.leaf, fields.anc],
                false => &[fields.body],
            };
            for &field in searched {
                let term = Term::from_field_text(field, &t.text);
                let Some(inverted) = present.inverted(segment, field)? else {
                    continue;
                };
                let Some(mut p) = inverted.read_postings(&term, IndexRecordOption::WithFreqs)?
                else {
                    continue;
                };
                for &a in chunks {
                    if holds(&mut p, a.doc_id) {
                        *tf.entry(a).or_insert(0) += p.term_freq();
                    }
                }
            }
        }
    }
    Ok(local)
}

#[cfg(test)]
mod tests {
    use crate::chunk::{Chunk, ChunkKind};
    use crate::index::SearchIndex;
    use crate::index::reader::Filter;

    /// An index of one design document whose topic word ("widget") fills two
    /// sections while one section alone says why anyone wants the feature,
    /// plus `others` documents in which the question's other words are common.
    fn index(dir: &std::path::Path, kind: ChunkKind, others: usize) -> SearchIndex {
        let index = SearchIndex::open_or_create(&dir.join("index")).expect("index");
        let mut writer = index.writer(1 << 22).expect("writer");
        let sections = [
            (
                "Summary",
                "The widget controller gives each widget an ordinal. Widget ordinal widget ordinal widget.",
            ),
            (
                "Motivation",
                "Teams moving a widget between clusters want its numbering to start elsewhere.",
            ),
            (
                "Design",
                "The widget spec gains an ordinal field; the widget controller reads the widget ordinal.",
            ),
        ];
        for (i, (title, text)) in sections.into_iter().enumerate() {
            let mut c = Chunk::sample("kep.md", &["KEP: Widget Ordinals", title], text, kind);
            c.id = format!("kep:{i}");
            writer.add(&c, "docs").expect("add");
        }
        for n in 0..others {
            let doc = format!("other{n}.md");
            let text = "Teams moving between clusters want numbering to start elsewhere.";
            let mut c = Chunk::sample(&doc, &["Other", "Notes"], text, kind);
            c.id = format!("other:{n}");
            writer.add(&c, "docs").expect("add");
        }
        writer.commit(1).expect("commit");
        index
    }

    /// The first of the design document's chunks that a question about why
    /// teams want the feature ranks, the chunks being of `kind`.
    fn first_section(kind: ChunkKind) -> String {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = index(dir.path(), kind, 40);
        let reader = index.reader().expect("reader");
        let query = "why would teams want widget numbering to start elsewhere";
        let hits = reader.search(query, 6, &Filter::default()).expect("search");
        assert!(
            hits.windows(2).all(|w| w[0].score >= w[1].score),
            "scores fall"
        );
        let ids: Vec<String> = hits.into_iter().map(|h| h.id).collect();
        ids.iter()
            .find(|id| id.starts_with("kep:"))
            .cloned()
            .unwrap_or_else(|| panic!("no chunk of the document in {ids:?}"))
    }

    #[test]
    fn the_section_the_question_words_single_out_leads_its_document() {
        assert_eq!(first_section(ChunkKind::Markdown), "kep:1");
    }

    #[test]
    fn a_table_of_contents_yields_its_rank_to_the_sections_it_lists() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = SearchIndex::open_or_create(&dir.path().join("index")).expect("index");
        let mut writer = index.writer(1 << 22).expect("writer");
        let toc = "- [Gmsa credential spec](#gmsa-credential-spec)\n- [Run as user name](#run-as-user-name)\n- [Gmsa credential spec with run as user name](#both)\n";
        let sections = [
            ("Table of Contents", toc),
            (
                "Both",
                "A pod may set a gmsa credential spec and a run as user name.",
            ),
            ("Notes", "Nothing here about the question."),
        ];
        for (i, (title, text)) in sections.into_iter().enumerate() {
            let mut c = Chunk::sample(
                "kep.md",
                &["KEP: Windows", title],
                text,
                ChunkKind::Markdown,
            );
            c.id = format!("kep:{i}");
            writer.add(&c, "docs").expect("add");
        }
        writer.commit(1).expect("commit");
        let reader = index.reader().expect("reader");
        let hits = reader
            .search(
                "gmsa credential spec run as user name",
                3,
                &Filter::default(),
            )
            .expect("search");
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        assert_eq!(
            ids,
            ["kep:1", "kep:0"],
            "the section first, the contents still listed"
        );
    }

    #[test]
    fn a_record_the_query_names_leads_its_value() {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = SearchIndex::open_or_create(&dir.path().join("index")).expect("index");
        let mut writer = index.writer(1 << 22).expect("writer");
        let chatty = r#"{"name": "tantivy-common", "version": "0.9.0", "notes": "used by tantivy, tested with tantivy"}"#;
        let records = [
            ("[0] tantivy-common", chatty),
            ("[1] tantivy", r#"{"name": "tantivy", "version": "0.25.0"}"#),
            ("[2] serde", r#"{"name": "serde", "version": "1.0.228"}"#),
        ];
        for (i, (label, text)) in records.into_iter().enumerate() {
            let path = ["cargo_metadata", "packages", label];
            let mut c = Chunk::sample("relay/v", &path, text, ChunkKind::Json);
            c.id = format!("v:{i}");
            writer.add(&c, "relay").expect("add");
        }
        writer.commit(1).expect("commit");
        let reader = index.reader().expect("reader");
        let search = |q: &str| -> Vec<String> {
            let hits = reader.search(q, 3, &Filter::default()).expect("search");
            hits.into_iter().map(|h| h.id).collect()
        };
        assert_eq!(search("what version of tantivy do we use")[0], "v:1");
        assert_eq!(search("tantivy")[0], "v:1");
        // Words that name no record leave the text to decide.
        assert_eq!(search("tested with")[0], "v:0");
    }

    #[test]
    fn code_keeps_the_order_its_names_give() {
        // The same chunks as code: the topic-dense summary stays first.
        assert_eq!(first_section(ChunkKind::Code), "kep:0");
    }
}
