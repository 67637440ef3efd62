//! How a query's text becomes words: the question words it drops, and the
//! symbol names it can spell.

use std::collections::HashSet;

use tantivy::tokenizer::TextAnalyzer;

/// The longest run of query words read as one symbol name
/// (`IncrementalMatch::should_descend` is three words).
const NAME_WORDS: usize = 4;

/// Words that shape a question but say nothing about its subject. They are
/// dropped from queries only (documents keep them), so "how do I …" does not
/// favour sections that happen to say "how" and "I" often.
const QUESTION_WORDS: &[&str] = &[
    "how",
    "what",
    "why",
    "when",
    "where",
    "which",
    "who",
    "whom",
    "whose",
    "can",
    "could",
    "should",
    "would",
    "do",
    "does",
    "did",
    "i",
    "me",
    "my",
    "we",
    "our",
    "you",
    "your",
    "is",
    "am",
    "are",
    "was",
    "were",
    "there",
    "way",
    "ways",
    "want",
    "need",
    "instead",
    "happens",
    "anymore",
    "possible",
    "able",
    "something",
    "thing",
    "things",
    "some",
    "any",
    "about",
];

pub(super) fn is_question_word(word: &str) -> bool {
    QUESTION_WORDS.contains(&word.to_lowercase().as_str())
}

/// `text` with typographic apostrophes (`’`, `‘`) made straight, as a
/// question typed on a phone or pasted from a document has them.
pub(super) fn straight_apostrophes(text: &str) -> String {
    text.replace(['\u{2019}', '\u{2018}'], "'")
}

/// Endings a word takes after an apostrophe (`it's`, `we've`, `don't`).
const CLITICS: &[&str] = &["t", "s", "re", "ve", "ll", "d", "m"];

/// `query` with its question words blanked out. A contraction loses its
/// ending (`service's` is `service`), and a negated auxiliary (`wasn't`,
/// `doesn't`) goes whole: its stem is no word a document would be found by,
/// and, rare in docs, it would weigh like a rare subject word.
pub(super) fn strip_question_words(query: &str) -> String {
    let query = without_latin_abbreviations(&straight_apostrophes(query));
    let mut out = String::with_capacity(query.len());
    for word in query.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'')) {
        let word = word.trim_matches('\'');
        let (base, negated) = match word.rsplit_once('\'') {
            Some((base, end)) if CLITICS.contains(&end.to_lowercase().as_str()) => {
                (base, end.eq_ignore_ascii_case("t"))
            }
            _ => (word, false),
        };
        if base.is_empty() || negated || is_question_word(base) {
            out.push(' ');
            continue;
        }
        out.push_str(base);
        out.push(' ');
    }
    out
}

/// Abbreviations that introduce an example or a restatement: "e.g." would
/// otherwise search the letters `e` and `g`, rare enough as terms to weigh
/// like subject words no section holds.
const LATIN_ABBREVIATIONS: &[&str] = &["e.g", "i.e", "etc"];

/// `query` with every [`LATIN_ABBREVIATIONS`] word blanked out (`/etc` is a
/// directory and stays).
fn without_latin_abbreviations(query: &str) -> String {
    let mut out = String::with_capacity(query.len());
    for (i, piece) in query.split(char::is_whitespace).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let core = piece
            .trim_start_matches(['(', '[', '"'])
            .trim_end_matches(|c: char| c.is_ascii_punctuation());
        if !LATIN_ABBREVIATIONS
            .iter()
            .any(|a| core.eq_ignore_ascii_case(a))
        {
            out.push_str(piece);
        }
    }
    out
}

/// The one name `query` is, when it is nothing else: its words (question
/// words aside, at most [`NAME_WORDS`]) joined as a [`super::name_key`]
/// (`WalkBuilder::build`, "where is max_filesize", "walk builder").
pub(super) fn exact_name_key(query: &str) -> Option<String> {
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !is_question_word(w))
        .collect();
    let key = super::name_key(&words.concat());
    (words.len() <= NAME_WORDS && key.chars().count() >= 2).then_some(key)
}

/// The names `query` can mean: its runs of up to [`NAME_WORDS`]
/// consecutive words, joined, against each symbol's bare and qualified
/// [`super::name_key`] ("should descend" names `should_descend`). A run
/// names a symbol only when it is at least half of the query's words
/// (question words aside): a question that mentions `min_depth` in passing
/// asks about the behaviour, not the test called `min_depth`.
pub(super) fn name_keys(query: &str) -> HashSet<String> {
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let content = words.iter().filter(|w| !is_question_word(w)).count();
    let shortest = content.div_ceil(2).max(1);
    let mut keys = HashSet::new();
    for start in 0..words.len() {
        for end in start + shortest..=(start + NAME_WORDS).min(words.len()) {
            let key = super::name_key(&words[start..end].concat());
            if key.chars().count() >= 2 {
                keys.insert(key);
            }
        }
    }
    keys
}

/// The terms of `text` in order (as [`super::tokenizer::analyze`] gives them),
/// and those of them that occur only as parts of a longer identifier (`min` and
/// `depth` of `min_depth`, `walk` of `WalkBuilder`), never as words of their
/// own. The analyzer gives an identifier's parts and then its whole, the whole
/// spanning the parts' text.
pub(super) fn analyze_query(
    analyzer: &mut TextAnalyzer,
    text: &str,
) -> (Vec<String>, HashSet<String>) {
    let mut tokens: Vec<(String, usize, usize)> = Vec::new();
    let mut stream = analyzer.token_stream(text);
    while stream.advance() {
        let t = stream.token();
        tokens.push((t.text.clone(), t.offset_from, t.offset_to));
    }
    let within_longer = |&(_, from, to): &(String, usize, usize)| {
        tokens
            .iter()
            .any(|&(_, f, t)| f <= from && to <= t && t - f > to - from)
    };
    let (parts, solo): (Vec<_>, Vec<_>) = tokens.iter().partition(|t| within_longer(t));
    let solo: HashSet<&str> = solo.iter().map(|t| t.0.as_str()).collect();
    let parts = parts
        .into_iter()
        .filter(|t| !solo.contains(t.0.as_str()))
        .map(|t| t.0.clone())
        .collect();
    (tokens.into_iter().map(|t| t.0).collect(), parts)
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_exact_name_of_a_query_is_all_its_words() {
        assert_eq!(
            exact_name_key("WalkBuilder::build").as_deref(),
            Some("walkbuilderbuild")
        );
        assert_eq!(
            exact_name_key("where is max_filesize?").as_deref(),
            Some("maxfilesize")
        );
        assert_eq!(
            exact_name_key("walk builder").as_deref(),
            Some("walkbuilder")
        );
        // A sentence is no name, nor is one letter.
        assert_eq!(
            exact_name_key("how are ignore files above the root loaded"),
            None
        );
        assert_eq!(exact_name_key("x"), None);
    }

    use super::*;
    use crate::index::tokenizer;

    /// The words `q` is searched by, question words blanked out.
    fn words(q: &str) -> Vec<String> {
        strip_question_words(q)
            .split_whitespace()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn latin_abbreviations_are_not_searched_but_etc_the_directory_is() {
        assert_eq!(
            words("round toward zero, e.g. for -5 / 3?"),
            ["round", "toward", "zero", "for", "5", "3"]
        );
        assert_eq!(
            words("(i.e., a lock) E.G. locks etc."),
            ["a", "lock", "locks"]
        );
        assert_eq!(
            words("files under /etc/hosts or /etc"),
            ["files", "under", "etc", "hosts", "or", "etc"]
        );
    }

    #[test]
    fn contractions_lose_their_endings_and_negations_go() {
        assert_eq!(
            words("why wasn’t the service's flag used? it doesn't 'static"),
            ["the", "service", "flag", "used", "it", "static"]
        );
        assert_eq!(words("we'll see; rock'n'roll"), ["see", "rock'n'roll"]);
    }

    #[test]
    fn identifier_parts_are_told_from_words() {
        let mut a = tokenizer::stemmed();
        let text = "entries shallower than min_depth in WalkBuilder";
        // The terms are the analyzer's own, in order.
        assert_eq!(
            analyze_query(&mut a, text).0,
            tokenizer::analyze(&mut a, text)
        );
        let mut parts: Vec<_> = analyze_query(&mut a, text).1.into_iter().collect();
        parts.sort();
        assert_eq!(parts, ["builder", "depth", "min", "walk"]);
        // A part that is also a word of its own keeps its full weight.
        let (_, parts) = analyze_query(&mut a, "the walk of WalkBuilder");
        assert!(
            !parts.contains("walk") && parts.contains("builder"),
            "{parts:?}"
        );
        // Hyphens and paths separate words; they make no identifier.
        assert!(
            analyze_query(&mut a, "kube-apiserver Walk::next")
                .1
                .is_empty()
        );
    }

    #[test]
    fn a_query_that_is_a_name_spells_its_keys() {
        let keys = name_keys("IncrementalMatch should descend");
        for k in [
            "incrementalmatchshoulddescend",
            "shoulddescend",
            "incrementalmatchshould",
        ] {
            assert!(keys.contains(k), "{k} missing from {keys:?}");
        }
        // A single word is half of a two-word query.
        assert!(name_keys("walk builder").contains("walk"));
        assert!(name_keys("WalkBuilder::build").contains("walkbuilderbuild"));
        assert!(name_keys("how is should_descend computed").contains("shoulddescend"));
    }

    #[test]
    fn a_name_in_passing_is_not_the_subject() {
        let q = "in the parallel walk, what decides whether an entry shallower than min_depth is passed to the visitor";
        assert!(name_keys(q).is_empty(), "{:?}", name_keys(q));
        // Runs stop at four words; a one-letter key means nothing.
        assert!(name_keys("a").is_empty());
        assert!(!name_keys("one two three four five").contains("onetwothreefourfive"));
    }
}
