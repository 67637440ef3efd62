//! Pre-analyzed text: a text's terms as the [`super::tokenizer`] analyzers
//! give them, each followed by a space ([`Analyzer::append_terms`]), and the
//! tokenizer that reads them back.
//!
//! A document record indexes the bodies of all its chunks again. Analyzed by
//! tantivy, every word was analyzed twice, a sixth of a cold build's CPU;
//! analyzed once by the writer, the chunk and the document record get the
//! same terms, and tantivy only splits them at spaces. Terms are runs of
//! lowercased word characters, so none contains a space.

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

#[cfg(doc)]
use super::tokenizer::Analyzer;

/// Name of the tokenizer of pre-analyzed fields.
pub const TERMS: &str = "ctx_terms";

/// Splits text written by [`Analyzer::append_terms`] back into its terms.
#[derive(Clone, Default)]
pub struct Terms {
    token: Token,
}

impl Tokenizer for Terms {
    type TokenStream<'a> = TermStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> TermStream<'a> {
        TermStream {
            rest: text,
            offset: 0,
            position: 0,
            token: &mut self.token,
        }
    }
}

/// The terms of one pre-analyzed text.
pub struct TermStream<'a> {
    rest: &'a str,
    offset: usize,
    position: usize,
    token: &'a mut Token,
}

impl TokenStream for TermStream<'_> {
    fn advance(&mut self) -> bool {
        // A byte loop: terms are a few bytes long, and `str::find` paid for a
        // memchr and a memcmp call per term.
        let Some(end) = self.rest.bytes().position(|b| b == b' ') else {
            return false;
        };
        let token = &mut *self.token;
        token.text.clear();
        token.text.push_str(&self.rest[..end]);
        token.offset_from = self.offset;
        token.offset_to = self.offset + end;
        token.position = self.position;
        token.position_length = 1;
        self.rest = &self.rest[end + 1..];
        self.offset += end + 1;
        self.position += 1;
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

/// The tokenizer of pre-analyzed fields.
pub fn terms() -> TextAnalyzer {
    TextAnalyzer::from(Terms::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::tokenizer::{self, Analyzer};

    /// Fixture and source texts, tricky words, and random strings of word
    /// characters, separators and non-ASCII letters, digits and marks.
    fn texts() -> Vec<String> {
        let mut texts = vec![
            String::new(),
            "   ".to_string(),
            "the a of".to_string(),
            "Ünïcödé ÉCOLE straße ΣΊΣΥΦΟΣ HTTPServer2Go __init__ a_b_ x86_64 İstanbul".to_string(),
            "AVeryLongIdentifierThatGoesOnAndOnAndOnForeverAndEver ok".to_string(),
            "use `?` and `&&`, ``?``, `a`, `..=` `::<>` `:::::` x`?`y `!`` `?".to_string(),
        ];
        texts.extend(crate::index::tokenizer::sample_texts());
        let alphabet: Vec<char> = "aZbY09_ _-.?&`\n\tÉßİΣé\u{301}٣²ǅ中😀Ⅻ".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..2000 {
            let len = (seed >> 59) as usize + 1;
            let word: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            texts.push(word);
        }
        texts
    }

    /// The writer's terms, read back, are exactly the analyzer's tokens, so a
    /// field indexed from pre-analyzed text holds the terms and counts it held
    /// when tantivy analyzed the text itself.
    #[test]
    fn terms_read_back_as_analyzed() {
        let texts = texts();
        let mut analyzer = tokenizer::stemmed();
        let mut writers = [Analyzer::stemming(false), Analyzer::stemming(true)];
        let mut reader = terms();
        // Twice: the second round is served from the term caches.
        for _ in 0..2 {
            let mut all = String::new();
            let mut expected_all = Vec::new();
            for t in &texts {
                let expected = tokenizer::analyze(&mut analyzer, t);
                let mut outs = [Vec::new(), Vec::new()];
                for (writer, out) in writers.iter_mut().zip(&mut outs) {
                    writer.append_terms(t, out);
                }
                assert_eq!(outs[0], outs[1]);
                let out = String::from_utf8(outs[0].clone()).expect("terms are UTF-8");
                assert_eq!(tokenizer::analyze(&mut reader, &out), expected, "{t:?}");
                all.push_str(&out);
                expected_all.extend(expected);
            }
            assert_eq!(tokenizer::analyze(&mut reader, &all), expected_all);
            // A document record used to be the chunk texts joined by newlines:
            // no word spans two chunks, so its terms are the chunks' terms.
            let joined: String = texts.iter().map(|t| format!("{t}\n")).collect();
            assert_eq!(tokenizer::analyze(&mut analyzer, &joined), expected_all);
        }
    }
}
