//! A small direct-mapped cache from a word as written to its analyzed term.
//!
//! Indexing looks up every word of every chunk (twice: chunk and document
//! record). A hash map of a corpus's vocabulary is large and keeps its keys on
//! the heap, so each lookup missed the CPU caches twice and the lookups took a
//! sixth of a cold build. Here a slot holds key and term inline and a lookup
//! reads one slot: frequent words stay resident, a collision just recomputes.

use std::hash::Hasher;

/// Longest word or term kept; longer ones are analyzed every time.
const INLINE: usize = 22;
/// Number of slots (a power of two): 8192 × 48 bytes, within a core's L2.
const SLOTS: usize = 1 << 13;
/// Number of slots of a [`TermCache::large`] cache: 3 MB. A cold build analyzes
/// every word of the corpus on one thread, and a direct-mapped cache of 8192
/// missed 8 % of the words of k8s-enhancements (65536: 2.7 %); a miss runs the
/// stemmer, which cost more than the extra cache misses of the larger table.
const LARGE_SLOTS: usize = 1 << 16;
/// Words seen before the slots are allocated: queries never pay for them.
const WARMUP: u32 = 512;
/// `term_len` of a stop word (no term).
const STOP: u8 = u8::MAX;

#[derive(Clone, Copy)]
struct Slot {
    /// 0 = empty.
    key_len: u8,
    /// [`STOP`] for a stop word.
    term_len: u8,
    key: [u8; INLINE],
    term: [u8; INLINE],
}

const EMPTY: Slot = Slot {
    key_len: 0,
    term_len: 0,
    key: [0; INLINE],
    term: [0; INLINE],
};

/// Word → `Some(term)` or `None` (stop word), for words of up to 22 bytes.
pub struct TermCache {
    slots: Vec<Slot>,
    seen: u32,
    /// Number of slots once allocated (a power of two).
    size: usize,
}

impl Default for TermCache {
    fn default() -> Self {
        TermCache {
            slots: Vec::new(),
            seen: 0,
            size: SLOTS,
        }
    }
}

/// A clone starts empty: the cache is per analyzer instance, and tantivy
/// clones analyzers for every field and every query.
impl Clone for TermCache {
    fn clone(&self) -> Self {
        TermCache {
            size: self.size,
            ..TermCache::default()
        }
    }
}

/// What a lookup found.
pub enum Cached<T> {
    /// The word's term.
    Term(T),
    /// The word is a stop word.
    Stop,
    /// Not cached.
    Miss,
}

fn slot_of(word: &str, size: usize) -> usize {
    let mut h = rustc_hash::FxHasher::default();
    h.write(word.as_bytes());
    (h.finish() as usize) & (size - 1)
}

impl TermCache {
    /// A cache of [`LARGE_SLOTS`] slots, for analyzing a whole corpus.
    pub fn large() -> TermCache {
        TermCache {
            size: LARGE_SLOTS,
            ..TermCache::default()
        }
    }

    /// The cached analysis of `word`, as text (for tests: the analyzers take
    /// [`TermCache::get_bytes`]).
    #[cfg(test)]
    pub fn get(&mut self, word: &str) -> Cached<&str> {
        match self.get_bytes(word) {
            // Only whole `&str` terms are stored, so the bytes are valid UTF-8.
            Cached::Term(t) => match std::str::from_utf8(t) {
                Ok(t) => Cached::Term(t),
                Err(_) => Cached::Miss,
            },
            Cached::Stop => Cached::Stop,
            Cached::Miss => Cached::Miss,
        }
    }

    /// [`TermCache::get`] with the term as bytes, for callers that collect
    /// terms in a byte buffer and check it once instead of each term.
    pub fn get_bytes(&mut self, word: &str) -> Cached<&[u8]> {
        if self.slots.is_empty() {
            self.seen += 1;
            if self.seen < WARMUP {
                return Cached::Miss;
            }
            self.slots = vec![EMPTY; self.size];
        }
        if word.len() > INLINE {
            return Cached::Miss;
        }
        let slot = &self.slots[slot_of(word, self.size)];
        if slot.key_len as usize != word.len() || &slot.key[..word.len()] != word.as_bytes() {
            return Cached::Miss;
        }
        if slot.term_len == STOP {
            return Cached::Stop;
        }
        Cached::Term(&slot.term[..slot.term_len as usize])
    }

    /// Remembers that `word` analyzes to `term` (`None`: a stop word).
    pub fn put(&mut self, word: &str, term: Option<&str>) {
        if self.slots.is_empty()
            || word.is_empty()
            || word.len() > INLINE
            || term.is_some_and(|t| t.len() > INLINE)
        {
            return;
        }
        let slot = &mut self.slots[slot_of(word, self.size)];
        slot.key_len = word.len() as u8;
        slot.key[..word.len()].copy_from_slice(word.as_bytes());
        match term {
            Some(t) => {
                slot.term_len = t.len() as u8;
                slot.term[..t.len()].copy_from_slice(t.as_bytes());
            }
            None => slot.term_len = STOP,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warm() -> TermCache {
        let mut c = TermCache::default();
        for _ in 0..WARMUP {
            let _ = c.get("x");
        }
        c
    }

    #[test]
    fn remembers_terms_and_stop_words() {
        let mut c = warm();
        assert!(matches!(c.get("Locks"), Cached::Miss));
        c.put("Locks", Some("lock"));
        c.put("The", None);
        assert!(matches!(c.get("Locks"), Cached::Term("lock")));
        assert!(matches!(c.get("The"), Cached::Stop));
        assert!(matches!(c.get("locks"), Cached::Miss));
    }

    #[test]
    fn long_words_and_cold_caches_are_not_kept() {
        let mut c = warm();
        let long = "a".repeat(INLINE + 1);
        c.put(&long, Some("a"));
        assert!(matches!(c.get(&long), Cached::Miss));
        let mut cold = TermCache::default();
        cold.put("word", Some("word"));
        assert!(matches!(cold.get("word"), Cached::Miss));
    }

    #[test]
    fn a_colliding_word_replaces_the_slot() {
        let mut c = warm();
        let a = "alpha";
        let b = (0..100_000)
            .map(|i| format!("w{i}"))
            .find(|w| slot_of(w, SLOTS) == slot_of(a, SLOTS))
            .expect("a colliding word");
        c.put(a, Some("alpha"));
        c.put(&b, Some("beta"));
        assert!(matches!(c.get(a), Cached::Miss));
        assert!(matches!(c.get(&b), Cached::Term("beta")));
    }
}
