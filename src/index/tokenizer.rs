//! Identifier-aware tokenizer: `WalkBuilder` → `walk`, `builder`, `walkbuilder`;
//! `max_filesize` → `max`, `filesize`, `max_filesize`.
//!
//! Words are runs of alphanumerics and `_`. A word with inner boundaries (`_`,
//! lower→upper case, letter↔digit) yields its parts and then the whole word, so
//! a query for the identifier and a query for its words both match. The same
//! analyzer runs on queries, so splitting is symmetric.
//!
//! An inline code span holding only an operator (`` `?` ``) is a term of its
//! own (see [`super::operators`]).

use std::borrow::Cow;
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

use super::operators::operator_span;
use super::spelling;
use super::term_cache::{Cached, TermCache};

/// Changes whenever a word's term changes (a build with another version is a
/// full rebuild): 2 brought British spellings to American ones.
pub const ANALYZER_VERSION: u32 = 2;

/// Name of the analyzer with English stemming.
pub const STEMMED: &str = "ctx_stem";
/// Name of the analyzer without stemming (identifiers, paths).
pub const PLAIN: &str = "ctx_plain";

/// Tokens of this many bytes or more are dropped (hashes, base64, minified runs).
const MAX_TOKEN_BYTES: usize = 48;

/// Lucene's English stop words (the list tantivy's `StopWordFilter` uses).
pub(super) fn is_stop_word(w: &str) -> bool {
    matches!(
        w,
        "a" | "an"
            | "and"
            | "are"
            | "as"
            | "at"
            | "be"
            | "but"
            | "by"
            | "for"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "no"
            | "not"
            | "of"
            | "on"
            | "or"
            | "such"
            | "that"
            | "the"
            | "their"
            | "then"
            | "there"
            | "these"
            | "they"
            | "this"
            | "to"
            | "was"
            | "will"
            | "with"
    )
}

/// The whole analysis in one pass: words and identifier parts, long tokens
/// dropped, lowercased, stop words removed and, for [`STEMMED`], British spellings
/// made American and English stems.
///
/// Indexing spends most of its time here, so tokens reuse their buffers and
/// terms are cached per word: a corpus repeats a few thousand words millions of times.
#[derive(Clone)]
pub struct Analyzer {
    words: Words,
    tokens: Vec<Token>,
    len: usize,
}

/// The analysis itself, apart from where its terms go: the token stream
/// ([`Tokenizer::token_stream`]) and the index writer's term buffer
/// ([`Analyzer::append_terms`]) share it, so the two cannot drift apart.
#[derive(Clone)]
struct Words {
    stem: bool,
    parts: Vec<(usize, usize)>,
    terms: TermCache,
}

/// Receives each term: its bytes, the start and length of the source bytes it
/// came from, and its position.
trait Sink: FnMut(&[u8], usize, usize, usize) {}
impl<F: FnMut(&[u8], usize, usize, usize)> Sink for F {}

impl Words {
    /// The terms of `text`: the parts of each word then the whole word (at
    /// its last part's position), and operators in inline code.
    fn scan(&mut self, text: &str, sink: &mut impl Sink) {
        let stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
        let mut position = 0;
        let mut at = 0;
        while at < text.len() {
            let (is_word, len) = word_char_at(text, at);
            if !is_word {
                if text.as_bytes()[at] == b'`'
                    && let Some(op) = operator_span(&text[at + 1..])
                {
                    sink(op.as_bytes(), at + 1, op.len(), position);
                    position += 1;
                    // Past the closing backtick, which would otherwise open a span.
                    at += op.len() + 2;
                    continue;
                }
                at += len;
                continue;
            }
            let start = at;
            at += len;
            while at < text.len() {
                let (is_word, len) = word_char_at(text, at);
                if !is_word {
                    break;
                }
                at += len;
            }
            self.word(&text[start..at], start, &mut position, &stemmer, sink);
        }
    }

    /// The terms of `word` (at byte `start` of the text): its parts, then the
    /// whole word when it has several.
    #[inline(always)]
    fn word(
        &mut self,
        word: &str,
        start: usize,
        position: &mut usize,
        stemmer: &frostem::Stemmer,
        sink: &mut impl Sink,
    ) {
        // A lowercase or capitalized ASCII word is one part, the most common
        // case by far (the splitter's own fast path takes only lowercase).
        if let [first, rest @ ..] = word.as_bytes()
            && first.is_ascii_alphabetic()
            && rest.iter().all(u8::is_ascii_lowercase)
        {
            self.term(word, start, *position, stemmer, sink);
            *position += 1;
            return;
        }
        let mut parts = std::mem::take(&mut self.parts);
        split_identifier_into(word, &mut parts);
        for &(a, b) in &parts {
            self.term(&word[a..b], start + a, *position, stemmer, sink);
            *position += 1;
        }
        if parts.len() > 1 {
            let whole = word.trim_matches('_');
            if !whole.is_empty() {
                let offset = word.find(whole).unwrap_or(0);
                self.term(whole, start + offset, *position - 1, stemmer, sink);
            }
        }
        self.parts = parts;
    }

    /// The term of `raw` (the source bytes from `from`), if any, at `position`.
    #[inline(always)]
    fn term(
        &mut self,
        raw: &str,
        from: usize,
        position: usize,
        stemmer: &frostem::Stemmer,
        sink: &mut impl Sink,
    ) {
        if raw.len() >= MAX_TOKEN_BYTES {
            return;
        }
        // Keyed by the word as written, so a hit skips lowercasing, the stop
        // list and the stemmer; `None` remembers a stop word.
        match self.terms.get_bytes(raw) {
            Cached::Term(term) => return sink(term, from, raw.len(), position),
            Cached::Stop => return,
            Cached::Miss => {}
        }
        let term = self.analyze_word(raw, stemmer);
        if let Some(t) = &term {
            sink(t.as_bytes(), from, raw.len(), position);
        }
        self.terms.put(raw, term.as_deref());
    }

    /// The term `raw` becomes, or `None` for a stop word.
    fn analyze_word(&self, raw: &str, stemmer: &frostem::Stemmer) -> Option<String> {
        term_of(raw, self.stem, stemmer)
    }
}

/// The term one word of letters becomes (stemmed when `stem`), or `None` for a
/// stop word: what [`analyze`] gives for it, without an analyzer's set-up,
/// which cost built-in word lists three times their stemming.
pub fn term_of(raw: &str, stem: bool, stemmer: &frostem::Stemmer) -> Option<String> {
    let lower = if raw.is_ascii() {
        raw.to_ascii_lowercase()
    } else {
        raw.chars().flat_map(char::to_lowercase).collect()
    };
    if is_stop_word(&lower) {
        return None;
    }
    if !stem {
        return Some(lower);
    }
    let lower = spelling::american(&lower).unwrap_or(lower);
    Some(match stemmer.stem(&lower) {
        Cow::Borrowed(s) => s.to_string(),
        Cow::Owned(s) => s,
    })
}

impl Analyzer {
    fn new(stem: bool) -> Analyzer {
        Analyzer {
            words: Words {
                stem,
                parts: Vec::new(),
                terms: TermCache::default(),
            },
            tokens: Vec::new(),
            len: 0,
        }
    }

    /// The stemming analyzer ([`STEMMED`]) as a concrete type; with a large
    /// term cache when it will analyze a whole corpus.
    pub fn stemming(large_cache: bool) -> Analyzer {
        let mut analyzer = Analyzer::new(true);
        if large_cache {
            analyzer.words.terms = TermCache::large();
        }
        analyzer
    }

    /// The index writer's entry point: appends the terms of `text` to `out`,
    /// each followed by a space, the texts of the tokens
    /// [`Tokenizer::token_stream`] gives, in order. Indexing analyzes every
    /// word of a build, and building a [`Token`] per term (offsets,
    /// positions, a stream behind a trait object) cost as much as finding the
    /// term.
    pub fn append_terms(&mut self, text: &str, out: &mut Vec<u8>) {
        self.words.scan(text, &mut |term: &[u8], _, _, _| {
            out.extend_from_slice(term);
            out.push(b' ');
        });
    }
}

impl Tokenizer for Analyzer {
    type TokenStream<'a> = VecTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream<'a> {
        self.len = 0;
        let (tokens, len) = (&mut self.tokens, &mut self.len);
        self.words
            .scan(text, &mut |term: &[u8], from, raw_len, position| {
                // Terms come from `&str` words and operators: valid UTF-8.
                if let Ok(term) = std::str::from_utf8(term) {
                    push(tokens, len, term, from, raw_len, position);
                }
            });
        VecTokenStream {
            tokens: &mut self.tokens[..self.len],
            next: 0,
        }
    }
}

/// Whether an ASCII byte is a word character (alphanumeric or `_`).
const fn ascii_word_table() -> [bool; 128] {
    let mut table = [false; 128];
    let mut b = 0;
    while b < 128 {
        table[b] = (b as u8).is_ascii_alphanumeric() || b == b'_' as usize;
        b += 1;
    }
    table
}

/// [`ascii_word_table`], computed once.
static ASCII_WORD: [bool; 128] = ascii_word_table();

/// Whether the character starting at byte `at` of `text` is a word
/// character, and its length in bytes.
fn word_char_at(text: &str, at: usize) -> (bool, usize) {
    let b = text.as_bytes()[at];
    if b < 0x80 {
        return (ASCII_WORD[b as usize], 1);
    }
    match text[at..].chars().next() {
        Some(c) => (c.is_alphanumeric(), c.len_utf8()),
        None => (false, 1),
    }
}

/// Writes the next token, reusing the buffers of earlier texts.
fn push(
    tokens: &mut Vec<Token>,
    len: &mut usize,
    text: &str,
    from: usize,
    raw_len: usize,
    position: usize,
) {
    if *len == tokens.len() {
        tokens.push(Token::default());
    }
    let token = &mut tokens[*len];
    token.text.clear();
    token.text.push_str(text);
    token.offset_from = from;
    token.offset_to = from + raw_len;
    token.position = position;
    token.position_length = 1;
    *len += 1;
}

/// Token stream over a prepared slice.
pub struct VecTokenStream<'a> {
    tokens: &'a mut [Token],
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

/// Byte ranges of the parts of an identifier (see the module docs), into `parts`.
fn split_identifier_into(word: &str, parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    // Most words are plain lowercase: one part, no boundaries to look for.
    if word.bytes().all(|b| b.is_ascii_lowercase()) {
        if !word.is_empty() {
            parts.push((0, word.len()));
        }
        return;
    }
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut chars = word.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|x| x.1);
        if c == '_' {
            if let Some(s) = start.take() {
                parts.push((s, i));
            }
            prev = Some(c);
            continue;
        }
        match (start, prev) {
            (Some(s), Some(prev)) => {
                let boundary = (prev.is_lowercase() && c.is_uppercase())
                    || (prev.is_alphabetic() != c.is_alphabetic() && prev != '_')
                    // `HTTPServer` → `HTTP`, `Server`: an upper followed by a lower
                    // after a run of uppers starts a new part.
                    || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase));
                if boundary {
                    parts.push((s, i));
                    start = Some(i);
                }
            }
            _ => start = Some(i),
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        parts.push((s, word.len()));
    }
}

/// The analyzer used for titles and bodies.
pub fn stemmed() -> TextAnalyzer {
    TextAnalyzer::from(Analyzer::new(true))
}

/// The analyzer used for identifiers and paths (no stemming).
pub fn plain() -> TextAnalyzer {
    TextAnalyzer::from(Analyzer::new(false))
}

/// Runs `analyzer` over `text` and returns the token texts.
pub fn analyze(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(analyzer, text, |t| out.push(t.to_string()));
    out
}

/// Runs `analyzer` over `text` and calls `f` with each token text.
pub fn for_each_term(analyzer: &mut TextAnalyzer, text: &str, mut f: impl FnMut(&str)) {
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        f(&stream.token().text);
    }
}

/// The texts of the demo and Markdown fixtures and of this module's sources:
/// real prose, code and Markdown for tests that compare two analyses.
#[cfg(test)]
pub(crate) fn sample_texts() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
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
    texts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::operators::is_operator;

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
    fn operators_in_code_spans_are_terms() {
        let mut a = stemmed();
        assert_eq!(
            analyze(&mut a, "Use the `?` operator, `&&` or `..=`; a `---` line."),
            ["use", "?", "oper", "&&", "..=", "---", "line"]
        );
        // Spans with words, fences and empty spans are not operators; the
        // closing backtick of `?` does not open a span over ` or `.
        assert_eq!(
            analyze(&mut a, "`&mut` ```rust\n`` `?` or `!`"),
            ["mut", "rust", "?", "!"]
        );
        // Longer runs are not operators (a `-----` rule, `::<<>>`).
        assert!(analyze(&mut a, "`?!?!?`").is_empty());
    }

    /// The same word splitting as [`Analyzer`], without any filtering.
    #[derive(Clone, Default)]
    struct SplitOnly(Vec<Token>);

    impl Tokenizer for SplitOnly {
        type TokenStream<'a> = VecTokenStream<'a>;
        fn token_stream<'a>(&'a mut self, text: &'a str) -> VecTokenStream<'a> {
            self.0.clear();
            let mut start = None;
            for (i, c) in text
                .char_indices()
                .chain(std::iter::once((text.len(), ' ')))
            {
                match (start, c.is_alphanumeric() || c == '_') {
                    (None, true) => start = Some(i),
                    (Some(s), false) => {
                        let word: &str = &text[s..i];
                        let mut parts = Vec::new();
                        split_identifier_into(word, &mut parts);
                        for (a, b) in &parts {
                            self.0.push(Token {
                                text: word[*a..*b].to_string(),
                                ..Token::default()
                            });
                        }
                        let whole = word.trim_matches('_');
                        if parts.len() > 1 && !whole.is_empty() {
                            self.0.push(Token {
                                text: whole.to_string(),
                                ..Token::default()
                            });
                        }
                        start = None;
                    }
                    _ => {}
                }
            }
            VecTokenStream {
                tokens: &mut self.0[..],
                next: 0,
            }
        }
    }

    /// `text` with each British word part spelled as [`spelling::american`]
    /// spells it.
    fn american_words(text: &str) -> String {
        let part = regex::Regex::new("[A-Z]?[a-z]+").expect("a valid pattern");
        part.replace_all(text, |c: &regex::Captures<'_>| {
            spelling::american(&c[0].to_lowercase()).unwrap_or_else(|| c[0].to_string())
        })
        .into_owned()
    }

    /// The one-pass analyzers give exactly the tokens of tantivy's filter
    /// chain (after [`spelling::american`]), so indexes and queries agree with
    /// what the chain produced.
    #[test]
    fn one_pass_matches_the_filter_chain() {
        use tantivy::tokenizer::{Language, LowerCaser, RemoveLongFilter, Stemmer, StopWordFilter};
        let chain = |stem: bool| {
            let b = TextAnalyzer::builder(SplitOnly::default())
                .filter(RemoveLongFilter::limit(MAX_TOKEN_BYTES))
                .filter(LowerCaser)
                .filter(StopWordFilter::new(Language::English).expect("English stop words"));
            if stem {
                b.filter(Stemmer::new(Language::English)).build()
            } else {
                b.build()
            }
        };
        let mut texts = vec![
            "Ünïcödé ÉCOLE straße ΣΊΣΥΦΟΣ HTTPServer2Go __init__ a_b_ x86_64 AVeryLongIdentifierThatGoesOnAndOnAndOnForeverAndEver".to_string(),
        ];
        texts.extend(sample_texts());
        for stem in [false, true] {
            let mut fast = if stem { stemmed() } else { plain() };
            let mut slow = chain(stem);
            for t in &texts {
                // Twice: the second pass is served from the term cache.
                // Operator terms are ours alone (the chain drops punctuation).
                // The chain has no spelling step: it gets American words.
                let us = if stem { american_words(t) } else { t.clone() };
                for _ in 0..2 {
                    let mut words = analyze(&mut fast, t);
                    words.retain(|w| !is_operator(w));
                    assert_eq!(words, analyze(&mut slow, &us));
                }
            }
        }
    }

    #[test]
    fn stemming() {
        let mut a = stemmed();
        assert_eq!(analyze(&mut a, "locks handled"), ["lock", "handl"]);
    }
}
