//! BERT's uncased WordPiece tokenizer, as the `tokenizer.json` of
//! sentence-transformers models configures it: clean the text, space out CJK
//! characters, strip accents, lowercase, split at whitespace and punctuation,
//! then cut each word into the longest pieces the vocabulary holds.

use std::collections::HashMap;
use std::path::Path;

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

use crate::error::{Error, Result};

/// Words longer than this (in characters) are one `[UNK]`, as in BERT.
const MAX_WORD_CHARS: usize = 100;

/// A vocabulary and the IDs of its special tokens.
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    unk: u32,
    /// `[CLS]`, put before the text.
    pub cls: u32,
    /// `[SEP]`, put after it.
    pub sep: u32,
}

impl WordPiece {
    /// Reads `vocab.txt` (one token per line; the line number is its ID).
    pub fn load(path: &Path) -> Result<WordPiece> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io("cannot read", path, e))?;
        let vocab: HashMap<String, u32> = text
            .lines()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i as u32))
            .collect();
        let special = |t: &str| {
            vocab.get(t).copied().ok_or_else(|| {
                Error::Invalid(format!(
                    "{} has no `{t}` token: it is not a BERT vocabulary",
                    path.display()
                ))
            })
        };
        Ok(WordPiece {
            unk: special("[UNK]")?,
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            vocab,
        })
    }

    /// The token IDs of `text`, without `[CLS]` and `[SEP]`, at most `max`.
    pub fn encode(&self, text: &str, max: usize) -> Vec<u32> {
        let mut ids = Vec::new();
        for word in words(&normalize(text)) {
            if ids.len() >= max {
                break;
            }
            self.pieces(word, &mut ids);
        }
        ids.truncate(max);
        ids
    }

    /// Appends the pieces of one word: greedy longest match, continuations
    /// prefixed `##`; a word with an unmatched rest is `[UNK]` as a whole.
    fn pieces(&self, word: &str, ids: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            ids.push(self.unk);
            return;
        }
        let mark = ids.len();
        let mut start = 0;
        let mut piece = String::new();
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(&piece) {
                    break Some((id, end));
                }
                match word[start..end].char_indices().next_back() {
                    Some((i, _)) if i > 0 => end = start + i,
                    _ => break None,
                }
            };
            let Some((id, end)) = found else {
                ids.truncate(mark);
                ids.push(self.unk);
                return;
            };
            ids.push(id);
            start = end;
        }
    }
}

/// BERT's normalizer: control characters dropped, whitespace made a space,
/// CJK ideographs spaced out, accents stripped, lowercase.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfd() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if c.general_category() == GeneralCategory::NonspacingMark {
            continue;
        }
        if c.is_whitespace() {
            out.push(' ');
        } else if is_cjk(c) {
            out.push(' ');
            out.push(c);
            out.push(' ');
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Words and single punctuation characters, in order.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(char::is_whitespace).flat_map(|w| {
        let mut parts = Vec::new();
        let mut start = 0;
        for (i, c) in w.char_indices() {
            if is_punctuation(c) {
                if start < i {
                    parts.push(&w[start..i]);
                }
                parts.push(&w[i..i + c.len_utf8()]);
                start = i + c.len_utf8();
            }
        }
        if start < w.len() {
            parts.push(&w[start..]);
        }
        parts
    })
}

fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.general_category_group() == GeneralCategoryGroup::Other
}

/// ASCII symbols count as punctuation too (`$`, `+`, `^`, `` ` ``), as in BERT.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.general_category_group() == GeneralCategoryGroup::Punctuation
}

/// The CJK Unified Ideographs blocks BERT spaces out.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPiece {
        let tokens = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "lock", "##s", ",",
            "cafe", "?",
        ];
        WordPiece {
            vocab: tokens
                .iter()
                .enumerate()
                .map(|(i, t)| (t.to_string(), i as u32))
                .collect(),
            unk: 1,
            cls: 2,
            sep: 3,
        }
    }

    #[test]
    fn splits_words_into_the_longest_known_pieces() {
        assert_eq!(
            tiny().encode("Unaffable locks, CAFÉ?", 64),
            vec![4, 5, 6, 7, 8, 9, 10, 11]
        );
    }

    #[test]
    fn an_unknown_rest_makes_the_whole_word_unknown() {
        assert_eq!(tiny().encode("unaffablex lock", 64), vec![1, 7]);
    }

    #[test]
    fn stops_at_the_limit() {
        assert_eq!(tiny().encode("lock lock lock", 2), vec![7, 7]);
    }
}
