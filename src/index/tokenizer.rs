//! Identifier-aware tokenizer: `WalkBuilder` → `walk`, `builder`, `walkbuilder`;
//! `max_filesize` → `max`, `filesize`, `max_filesize`.
//!
//! Words are runs of alphanumerics and `_`. A word with inner boundaries (`_`,
//! lower→upper case, letter↔digit) yields its parts and then the whole word, so
//! a query for the identifier and a query for its words both match. The same
//! analyzer runs on queries, so splitting is symmetric.

use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter, TextAnalyzer, Token,
    TokenStream, Tokenizer,
};

/// Name of the analyzer with English stemming.
pub const STEMMED: &str = "ctx_stem";
/// Name of the analyzer without stemming (identifiers, paths).
pub const PLAIN: &str = "ctx_plain";

/// Splits text into words and identifier parts.
#[derive(Clone, Default)]
pub struct IdentTokenizer {
    tokens: Vec<Token>,
}

/// Token stream over a prepared vector.
pub struct VecTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    next: usize,
}

impl TokenStream for VecTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.next += 1;
        self.next <= self.tokens.len()
    }
    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

impl Tokenizer for IdentTokenizer {
    type TokenStream<'a> = VecTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream<'a> {
        self.tokens.clear();
        let mut position = 0usize;
        let mut word_start: Option<usize> = None;
        for (i, c) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            let is_word = c.is_alphanumeric() || c == '_';
            match (word_start, is_word) {
                (None, true) => word_start = Some(i),
                (Some(s), false) => {
                    push_word(&mut self.tokens, text, s, i, &mut position);
                    word_start = None;
                }
                _ => {}
            }
        }
        VecTokenStream {
            tokens: &mut self.tokens,
            next: 0,
        }
    }
}

fn push_token(tokens: &mut Vec<Token>, text: &str, from: usize, to: usize, position: usize) {
    tokens.push(Token {
        offset_from: from,
        offset_to: to,
        position,
        text: text[from..to].to_string(),
        position_length: 1,
    });
}

fn push_word(tokens: &mut Vec<Token>, text: &str, start: usize, end: usize, position: &mut usize) {
    let word = &text[start..end];
    let parts = split_identifier(word);
    let before = tokens.len();
    for (a, b) in &parts {
        push_token(tokens, text, start + a, start + b, *position);
        *position += 1;
    }
    let whole = word.trim_matches('_');
    if parts.len() > 1 && !whole.is_empty() {
        let offset = word.find(whole).unwrap_or(0);
        push_token(
            tokens,
            text,
            start + offset,
            start + offset + whole.len(),
            *position - 1,
        );
    }
    if tokens.len() == before && !whole.is_empty() {
        push_token(tokens, text, start, end, *position);
        *position += 1;
    }
}

/// Byte ranges of the parts of an identifier (see the module docs).
pub fn split_identifier(word: &str) -> Vec<(usize, usize)> {
    let mut parts = Vec::new();
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut start: Option<usize> = None;
    for (k, &(i, c)) in chars.iter().enumerate() {
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            continue;
        }
        if let Some(s) = start {
            let prev = chars[k - 1].1;
            let next = chars.get(k + 1).map(|x| x.1);
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_alphabetic() != c.is_alphabetic() && prev != '_')
                // `HTTPServer` → `HTTP`, `Server`: an upper followed by a lower
                // after a run of uppers starts a new part.
                || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase));
            if boundary {
                parts.push((s, i));
                start = Some(i);
            }
        } else {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
    parts
}

/// The analyzer used for titles and bodies.
pub fn stemmed() -> TextAnalyzer {
    TextAnalyzer::builder(IdentTokenizer::default())
        .filter(RemoveLongFilter::limit(48))
        .filter(LowerCaser)
        .filter(
            StopWordFilter::new(Language::English)
                .unwrap_or_else(|| StopWordFilter::remove(Vec::new())),
        )
        .filter(Stemmer::new(Language::English))
        .build()
}

/// The analyzer used for identifiers and paths (no stemming).
pub fn plain() -> TextAnalyzer {
    TextAnalyzer::builder(IdentTokenizer::default())
        .filter(RemoveLongFilter::limit(48))
        .filter(LowerCaser)
        .filter(
            StopWordFilter::new(Language::English)
                .unwrap_or_else(|| StopWordFilter::remove(Vec::new())),
        )
        .build()
}

/// Runs `analyzer` over `text` and returns the token texts.
pub fn analyze(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_split_and_keep_whole() {
        let mut a = plain();
        assert_eq!(
            analyze(&mut a, "WalkBuilder"),
            ["walk", "builder", "walkbuilder"]
        );
        assert_eq!(
            analyze(&mut a, "max_filesize"),
            ["max", "filesize", "max_filesize"]
        );
        assert_eq!(
            analyze(&mut a, "HTTPServer v2"),
            ["http", "server", "httpserver", "v", "2", "v2"]
        );
        assert_eq!(analyze(&mut a, "the lock"), ["lock"]);
        assert!(
            analyze(&mut a, "(( AND : \" ))").is_empty()
                || analyze(&mut a, "(( AND : \" ))") == ["and"]
        );
    }

    #[test]
    fn stemming() {
        let mut a = stemmed();
        assert_eq!(analyze(&mut a, "locks handled"), ["lock", "handl"]);
    }
}
