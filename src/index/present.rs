//! Which fields each segment of a snapshot holds postings for, so that reads
//! and queries pass over the segments lacking a field instead of opening it.
//!
//! tantivy opens a field a segment lacks as an empty inverted index, whose
//! shared empty term dictionary it builds on first use: an FST builder's
//! registry of ~1 MB, zeroed and faulted in, about a tenth of a whole search
//! process. Sparse fields make that common: the symbol field of a Markdown
//! pack holds only what its fenced code declares, so a one-file rebuild's
//! segment usually lacks it while the others hold it.

use std::sync::Arc;

use tantivy::index::SegmentId;
use tantivy::query::{EmptyScorer, EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::schema::Field;
use tantivy::{
    DocId, InvertedIndexReader, Score, Searcher, SeekDangerResult, SegmentReader, TERMINATED, Term,
};

/// The fields each segment holds postings for.
#[derive(Debug, Default)]
pub struct Presence {
    /// By segment: whether each field (by field ID) has postings there.
    held: Vec<(SegmentId, Vec<bool>)>,
}

impl Presence {
    /// Reads each segment's field metadata. A segment whose metadata cannot
    /// be read is taken to hold every field: tantivy then answers for it.
    pub fn of(searcher: &Searcher) -> Presence {
        let schema = searcher.schema();
        let n = schema.num_fields();
        let held = searcher
            .segment_readers()
            .iter()
            .map(|segment| {
                let fields = match segment.fields_metadata() {
                    Ok(meta) => {
                        let mut fields = vec![false; n];
                        for m in meta {
                            let has_postings = m.postings_size.is_some_and(|b| b.get_bytes() > 0);
                            if let (true, Ok(field)) =
                                (has_postings, schema.get_field(&m.field_name))
                            {
                                fields[field.field_id() as usize] = true;
                            }
                        }
                        fields
                    }
                    Err(_) => vec![true; n],
                };
                (segment.segment_id(), fields)
            })
            .collect();
        Presence { held }
    }

    /// Whether `segment` holds postings of `field` (true for a segment this
    /// snapshot does not know).
    pub fn holds(&self, segment: SegmentId, field: Field) -> bool {
        self.held
            .iter()
            .find(|(id, _)| *id == segment)
            .is_none_or(|(_, fields)| fields.get(field.field_id() as usize) != Some(&false))
    }

    /// Whether every segment holds `field`.
    pub fn everywhere(&self, field: Field) -> bool {
        self.held
            .iter()
            .all(|(_, fields)| fields.get(field.field_id() as usize) != Some(&false))
    }

    /// `segment`'s postings of `field`, or `None` when it has none.
    pub fn inverted(
        &self,
        segment: &SegmentReader,
        field: Field,
    ) -> tantivy::Result<Option<Arc<InvertedIndexReader>>> {
        match self.holds(segment.segment_id(), field) {
            true => segment.inverted_index(field).map(Some),
            false => Ok(None),
        }
    }

    /// Tokens of `field` over the segments of `searcher` (BM25's average
    /// field length), as tantivy counts them.
    pub fn total_num_tokens(&self, searcher: &Searcher, field: Field) -> tantivy::Result<u64> {
        let mut n = 0;
        for segment in searcher.segment_readers() {
            if let Some(inverted) = self.inverted(segment, field)? {
                n += inverted.total_num_tokens();
            }
        }
        Ok(n)
    }

    /// Records holding `term` over the segments of `searcher`, deleted ones
    /// included, as tantivy counts them.
    pub fn doc_freq(&self, searcher: &Searcher, term: &Term) -> tantivy::Result<u64> {
        let mut n = 0;
        for segment in searcher.segment_readers() {
            if let Some(inverted) = self.inverted(segment, term.field())? {
                n += u64::from(inverted.doc_freq(term)?);
            }
        }
        Ok(n)
    }

    /// Those of `fields` no segment of `searcher` holds a token of.
    pub fn empty(&self, searcher: &Searcher, fields: &[Field]) -> Vec<Field> {
        fields
            .iter()
            .copied()
            .filter(|&field| !self.total_num_tokens(searcher, field).is_ok_and(|n| n > 0))
            .collect()
    }

    /// `query`, on `field`, scored only in the segments holding it; `query`
    /// itself when every segment does.
    pub fn guard(self: &Arc<Self>, field: Field, query: Box<dyn Query>) -> Box<dyn Query> {
        match self.everywhere(field) {
            true => query,
            false => Box::new(Guarded {
                field,
                query,
                presence: Arc::clone(self),
            }),
        }
    }
}

/// A query on one field that matches nothing in segments lacking the field
/// (see [`Presence::guard`]).
#[derive(Debug)]
struct Guarded {
    field: Field,
    query: Box<dyn Query>,
    presence: Arc<Presence>,
}

impl Clone for Guarded {
    fn clone(&self) -> Self {
        Guarded {
            field: self.field,
            query: self.query.box_clone(),
            presence: Arc::clone(&self.presence),
        }
    }
}

impl Query for Guarded {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(GuardedWeight {
            field: self.field,
            weight: self.query.weight(enable_scoring)?,
            presence: Arc::clone(&self.presence),
        }))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.query.query_terms(visitor);
    }
}

struct GuardedWeight {
    field: Field,
    weight: Box<dyn Weight>,
    presence: Arc<Presence>,
}

impl GuardedWeight {
    fn held(&self, reader: &SegmentReader) -> bool {
        self.presence.holds(reader.segment_id(), self.field)
    }
}

impl Weight for GuardedWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        match self.held(reader) {
            // The inner scorer is handed on as it is: a boolean query tells
            // term scorers apart to use block-max WAND over them.
            true => self.weight.scorer(reader, boost),
            false => Ok(Box::new(EmptyScorer)),
        }
    }

    fn scorer_danger(
        &self,
        reader: &SegmentReader,
        target: DocId,
        boost: Score,
    ) -> tantivy::Result<(SeekDangerResult, Box<dyn Scorer>)> {
        match self.held(reader) {
            true => self.weight.scorer_danger(reader, target, boost),
            false => Ok((
                SeekDangerResult::SeekLowerBound(TERMINATED),
                Box::new(EmptyScorer),
            )),
        }
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        match self.held(reader) {
            true => self.weight.explain(reader, doc),
            false => Err(tantivy::TantivyError::InvalidArgument(format!(
                "document {doc} does not match: its segment has no such field"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tantivy::collector::TopDocs;
    use tantivy::query::{BooleanQuery, BoostQuery, Occur, TermQuery};
    use tantivy::schema::{IndexRecordOption, Schema, TEXT};
    use tantivy::{Index, TantivyDocument, doc};

    /// Whether `scorer` is positioned on a document.
    fn positioned(scorer: &dyn Scorer) -> bool {
        scorer.doc() != TERMINATED
    }

    /// An index of two segments: the first holds `a` and `b`, the second `a`
    /// only.
    fn two_segments() -> (Index, Field, Field) {
        let mut schema = Schema::builder();
        let a = schema.add_text_field("a", TEXT);
        let b = schema.add_text_field("b", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer
            .add_document(doc!(a => "lock timeout", b => "lock"))
            .unwrap();
        writer
            .add_document(doc!(a => "stale lock broken", b => "stale"))
            .unwrap();
        writer.commit().unwrap();
        writer.add_document(doc!(a => "lock file")).unwrap();
        writer.add_document(TantivyDocument::default()).unwrap();
        writer.commit().unwrap();
        (index, a, b)
    }

    #[test]
    fn a_segment_without_a_fields_postings_is_known_to_lack_it() {
        let (index, a, b) = two_segments();
        let searcher = index.reader().unwrap().searcher();
        assert_eq!(searcher.segment_readers().len(), 2);
        let presence = Presence::of(&searcher);
        assert!(presence.everywhere(a));
        assert!(!presence.everywhere(b));
        let ids: Vec<_> = searcher
            .segment_readers()
            .iter()
            .map(|s| s.segment_id())
            .collect();
        let lacking: Vec<_> = ids.iter().filter(|&&id| !presence.holds(id, b)).collect();
        assert_eq!(lacking.len(), 1);
        // The segment lacking `b` is the one with two documents, `a` only.
        let segment = searcher
            .segment_readers()
            .iter()
            .find(|s| s.segment_id() == *lacking[0])
            .unwrap();
        assert!(presence.inverted(segment, b).unwrap().is_none());
        assert!(presence.inverted(segment, a).unwrap().is_some());
    }

    #[test]
    fn statistics_skipping_lacking_segments_equal_tantivys() {
        let (index, a, b) = two_segments();
        let searcher = index.reader().unwrap().searcher();
        let presence = Presence::of(&searcher);
        for field in [a, b] {
            assert_eq!(
                presence.total_num_tokens(&searcher, field).unwrap(),
                tantivy::query::Bm25StatisticsProvider::total_num_tokens(&searcher, field).unwrap()
            );
            for word in ["lock", "stale", "file", "absent"] {
                let term = Term::from_field_text(field, word);
                assert_eq!(
                    presence.doc_freq(&searcher, &term).unwrap(),
                    searcher.doc_freq(&term).unwrap(),
                    "{word}"
                );
            }
        }
    }

    #[test]
    fn a_guarded_query_scores_as_the_query_it_guards() {
        let (index, a, b) = two_segments();
        let searcher = index.reader().unwrap().searcher();
        let presence = Arc::new(Presence::of(&searcher));
        let clauses = |guarded: bool| -> Box<dyn Query> {
            let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            for (field, boost) in [(a, 1.0), (b, 2.0)] {
                for word in ["lock", "stale"] {
                    let q: Box<dyn Query> = Box::new(BoostQuery::new(
                        Box::new(TermQuery::new(
                            Term::from_field_text(field, word),
                            IndexRecordOption::WithFreqs,
                        )),
                        boost,
                    ));
                    should.push((
                        Occur::Should,
                        if guarded { presence.guard(field, q) } else { q },
                    ));
                }
            }
            Box::new(BooleanQuery::new(should))
        };
        let top = |q: &dyn Query| {
            searcher
                .search(q, &TopDocs::with_limit(10).order_by_score())
                .unwrap()
        };
        let plain = top(clauses(false).as_ref());
        assert_eq!(plain.len(), 3);
        assert_eq!(top(clauses(true).as_ref()), plain);
    }

    /// A query whose scorers fail: it tells whether the guard consulted it.
    #[derive(Debug, Clone)]
    struct Failing;

    struct FailingWeight;

    impl Query for Failing {
        fn weight(&self, _: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
            Ok(Box::new(FailingWeight))
        }
    }

    impl Weight for FailingWeight {
        fn scorer(&self, _: &SegmentReader, _: Score) -> tantivy::Result<Box<dyn Scorer>> {
            Err(tantivy::TantivyError::InternalError("opened".into()))
        }
        fn explain(&self, _: &SegmentReader, _: DocId) -> tantivy::Result<Explanation> {
            Err(tantivy::TantivyError::InternalError("opened".into()))
        }
    }

    #[test]
    fn a_guarded_query_leaves_segments_lacking_its_field_alone() {
        let (index, a, b) = two_segments();
        let searcher = index.reader().unwrap().searcher();
        let presence = Arc::new(Presence::of(&searcher));
        let weight = presence
            .guard(b, Box::new(Failing))
            .weight(EnableScoring::enabled_from_searcher(&searcher))
            .unwrap();
        for segment in searcher.segment_readers() {
            let held = presence.holds(segment.segment_id(), b);
            assert_eq!(weight.scorer(segment, 1.0).is_err(), held);
            match weight.scorer_danger(segment, 0, 1.0) {
                Ok((_, scorer)) => {
                    assert!(!held);
                    assert!(!positioned(scorer.as_ref()));
                }
                Err(_) => assert!(held),
            }
        }
        // Over a field every segment holds, the query is left unguarded.
        let weight = presence
            .guard(a, Box::new(Failing))
            .weight(EnableScoring::enabled_from_searcher(&searcher))
            .unwrap();
        for segment in searcher.segment_readers() {
            assert!(weight.scorer(segment, 1.0).is_err());
        }
    }
}
