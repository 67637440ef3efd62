//! Pre-analyzed text: a text's terms as the [`super::tokenizer`] analyzers
//! give them, each followed by a space, and the tokenizer that reads them back.
//!
//! A document record indexes the bodies of all its chunks again. Analyzed by
//! tantivy, every word was analyzed twice, a sixth of a cold build's CPU;
//! analyzed once by the writer, the chunk and the document record get the
//! same terms, and tantivy only splits them at spaces. Terms are runs of
//! lowercased word characters, so none contains a space.

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

use super::tokenizer;

/// Name of the tokenizer of pre-analyzed fields.
pub const TERMS: &str = "ctx_terms";

/// Appends the terms `analyzer` makes of `text` to `out`, each followed by a
/// space.
pub fn append_terms(analyzer: &mut TextAnalyzer, text: &str, out: &mut String) {
    tokenizer::for_each_term(analyzer, text, |term| {
        out.push_str(term);
        out.push(' ');
    });
}

/// Splits text written by [`append_terms`] back into its terms.
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
        let Some(end) = self.rest.find(' ') else {
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

    /// Reading the terms back gives exactly the analyzer's tokens, so a field
    /// indexed from pre-analyzed text holds the terms and counts it held when
    /// tantivy analyzed the text itself.
    #[test]
    fn terms_read_back_as_analyzed() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = vec![
            String::new(),
            "   ".to_string(),
            "the a of".to_string(),
            "Ünïcödé ÉCOLE straße ΣΊΣΥΦΟΣ HTTPServer2Go __init__ a_b_ x86_64 İstanbul".to_string(),
        ];
        for dir in ["fixtures/demo", "fixtures/markdown", "src/index"] {
            for e in std::fs::read_dir(root.join(dir))
                .expect("fixture dir")
                .flatten()
            {
                if let Ok(t) = std::fs::read_to_string(e.path()) {
                    texts.push(t);
                }
            }
        }
        for make in [tokenizer::stemmed, tokenizer::plain] {
            let mut analyzer = make();
            let mut reader = terms();
            let mut all = String::new();
            let mut expected_all = Vec::new();
            for t in &texts {
                let expected = tokenizer::analyze(&mut analyzer, t);
                let mut out = String::new();
                append_terms(&mut analyzer, t, &mut out);
                assert_eq!(tokenizer::analyze(&mut reader, &out), expected);
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
