//! The top-k collector of the chunk query: BM25 times the [`signals`] priors.
//!
//! It keeps exactly what tantivy's `TopDocs::tweak_score` would keep (the same
//! buffer, threshold and tie-breaking), but reads a chunk's flags only when its
//! score can still enter the buffer. The flags column is optional (document
//! records have none), so each read is a rank lookup, and with every chunk of a
//! broad query matching, those lookups were a tenth of a search.

use std::collections::HashSet;
use std::sync::Arc;

use tantivy::collector::sort_key::NaturalComparator;
use tantivy::collector::{Collector, SegmentCollector, TopNComputer};
use tantivy::columnar::ColumnValues;
use tantivy::{BitSet, DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

use super::signals;

/// Score multipliers for the [`signals`] flags of a chunk. Each is at most 1,
/// which is what lets [`PriorTop`] skip the flag lookup of a losing chunk;
/// only `exact` and `record` are above 1, for chunks known before scoring.
#[derive(Debug, Clone, Copy)]
pub(super) struct Priors {
    pub test: f32,
    pub example: f32,
    pub thin: f32,
    pub glue: f32,
    /// A chunk whose name is the whole query.
    pub exact: f32,
    /// A chunk in a JSON record the query names ([`signals::RECORD`]).
    pub record: f32,
    /// Whether tests and examples among those chunks are demoted (when one
    /// of them is neither).
    pub exact_demoted: bool,
    /// A chunk outside the packages the query names, when it names any.
    pub outside: f32,
}

impl Priors {
    /// The factor of a chunk with `flags`. A chunk the query names keeps its
    /// full score as a test, example or thin method: whoever types a test's or
    /// a setter's name wants that one. A container's bare opening does not, as
    /// its members and its definition carry the same name with content. A
    /// chunk whose name is the whole query gets the `exact` factor (above 1),
    /// and as a test or example its demotion when a chunk of that name is
    /// neither, so the definition comes before its test. A chunk in a JSON
    /// record the query names gets the `record` factor: a record's name is
    /// data the user typed, not a word its text may repeat.
    fn factor(&self, flags: u64, named: bool, exact: bool, record: bool) -> f32 {
        let mut f = 1.0;
        if record && !exact && flags & signals::RECORD != 0 {
            f *= self.record;
        }
        if exact {
            f *= self.exact;
            if !self.exact_demoted {
                return f;
            }
            if flags & signals::TEST != 0 {
                f *= self.test;
            }
            if flags & signals::EXAMPLE != 0 {
                f *= self.example;
            }
        } else if !named {
            if flags & signals::TEST != 0 {
                f *= self.test;
            }
            if flags & signals::EXAMPLE != 0 {
                f *= self.example;
            }
            if flags & signals::THIN != 0 {
                f *= self.thin;
            }
        }
        if flags & signals::GLUE != 0 {
            f *= self.glue;
        }
        f
    }
}

/// The `limit` best records by score times [`Priors`] factor, best first, ties
/// by ascending address.
pub(super) struct PriorTop {
    pub limit: usize,
    pub priors: Priors,
    /// Chunks the query names (see [`Priors::factor`]), by segment ordinal.
    pub named: Vec<HashSet<DocId>>,
    /// Chunks whose name is the whole query, by segment ordinal.
    pub exact: Vec<HashSet<DocId>>,
    /// Chunks whose key the query names, by segment ordinal; those in a
    /// JSON record get [`Priors::record`].
    pub records: Vec<HashSet<DocId>>,
    /// Chunks inside the packages the query names, by segment ordinal;
    /// `None` when it names none.
    pub inside: Option<Vec<BitSet>>,
}

/// [`PriorTop`] over one segment.
pub(super) struct PriorTopSegment {
    top: TopNComputer<Score, DocId, NaturalComparator>,
    flags: Option<Arc<dyn ColumnValues<u64>>>,
    priors: Priors,
    segment: SegmentOrdinal,
    /// The named chunks of this segment.
    named: HashSet<DocId>,
    /// The chunks of this segment whose name is the whole query.
    exact: HashSet<DocId>,
    /// The chunks of this segment whose key the query names.
    records: HashSet<DocId>,
    /// The chunks of this segment inside the named packages, if any are.
    inside: Option<BitSet>,
}

impl Collector for PriorTop {
    type Fruit = Vec<(Score, DocAddress)>;
    type Child = PriorTopSegment;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<PriorTopSegment> {
        let flags = reader
            .fast_fields()
            .u64("flags")
            .ok()
            .map(|c| c.first_or_default_col(0));
        Ok(PriorTopSegment {
            top: TopNComputer::new_with_comparator(self.limit, NaturalComparator),
            flags,
            priors: self.priors,
            segment,
            named: self
                .named
                .get(segment as usize)
                .cloned()
                .unwrap_or_default(),
            exact: self
                .exact
                .get(segment as usize)
                .cloned()
                .unwrap_or_default(),
            records: self
                .records
                .get(segment as usize)
                .cloned()
                .unwrap_or_default(),
            inside: self.inside.as_ref().map(|s| match s.get(segment as usize) {
                Some(set) => set.clone(),
                None => BitSet::with_max_value(0),
            }),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Vec<(Score, DocAddress)>>) -> tantivy::Result<Self::Fruit> {
        if self.limit == 0 {
            return Ok(Vec::new());
        }
        let mut top = TopNComputer::new_with_comparator(self.limit, NaturalComparator);
        for (score, addr) in fruits.into_iter().flatten() {
            top.push(score, addr);
        }
        Ok(top
            .into_sorted_vec()
            .into_iter()
            .map(|c| (c.sort_key, c.doc))
            .collect())
    }
}

impl SegmentCollector for PriorTopSegment {
    type Fruit = Vec<(Score, DocAddress)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        // Scores are non-negative and factors at most 1 but for exact names
        // and named records (`records` holds both): any other score the
        // buffer rejects as it is cannot pass once multiplied (`push` rejects
        // at or below the threshold, so this skips nothing it would keep).
        let exact = self.exact.contains(&doc);
        let record = self.records.contains(&doc);
        if !record && self.top.threshold.is_some_and(|t| score <= t) {
            return;
        }
        let named = self.named.contains(&doc);
        let mut score = match &self.flags {
            Some(col) => score * self.priors.factor(col.get_val(doc), named, exact, record),
            None => score,
        };
        if self
            .inside
            .as_ref()
            .is_some_and(|s| doc >= s.max_value() || !s.contains(doc))
        {
            score *= self.priors.outside;
        }
        self.top.push(score, doc);
    }

    fn harvest(self) -> Self::Fruit {
        let segment = self.segment;
        self.top
            .into_vec()
            .into_iter()
            .map(|c| (c.sort_key, DocAddress::new(segment, c.doc)))
            .collect()
    }
}
