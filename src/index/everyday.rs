//! Everyday English: a word a question uses that no indexed text holds is
//! most often a paraphrase when it is a common English word ("silence",
//! "throwaway") and most often the unanswered subject when it is not
//! (`jemalloc`, "flamegraph", `sqlx`). The list is SCOWL's sizes 10 to 35
//! (English, American and British spellings; see `everyday.NOTICE`).

/// The list, lower case, one word per line, sorted bytewise.
const WORDS: &str = include_str!("everyday.txt");

/// Whether `word` is a common English word. An acronym is not, even when its
/// letters spell one (`TAP`, `REST`): it names a thing.
pub fn is_everyday(word: &str) -> bool {
    if word.len() >= 2 && word.bytes().all(|b| b.is_ascii_uppercase()) {
        return false;
    }
    let word = word.to_lowercase();
    // A binary search over the text itself: a query asks about a word or two,
    // and splitting the list into lines first cost more than a search does.
    let text = WORDS.as_bytes();
    let (mut lo, mut hi) = (0, text.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = text[..mid]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let end = text[mid..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| mid + i);
        match text[start..end].cmp(word.as_bytes()) {
            std::cmp::Ordering::Equal => return true,
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    false
}

/// Whether `query` writes `word` as a name: capitalized where no sentence
/// starts ("how does Longhorn rebuild", "the Sealed Secrets controller").
pub fn written_as_name(word: &str, query: &str) -> bool {
    if !word.chars().next().is_some_and(char::is_uppercase) {
        return false;
    }
    query.match_indices(word).any(|(at, _)| {
        let before = &query[..at];
        let whole = !before
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric)
            && !query[at + word.len()..]
                .chars()
                .next()
                .is_some_and(char::is_alphanumeric);
        let opens_sentence = before
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | '['))
            .chars()
            .next_back()
            .is_none_or(|c| matches!(c, '.' | '?' | '!' | ':' | ';'));
        whole && !opens_sentence
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_and_lower_case_so_lookups_find_every_word() {
        let words: Vec<&str> = WORDS.lines().collect();
        assert!(words.len() > 30_000, "{}", words.len());
        assert!(words.windows(2).all(|w| w[0] < w[1]));
        assert!(
            words
                .iter()
                .all(|w| w.bytes().all(|b| b.is_ascii_lowercase()))
        );
        assert!(words.iter().all(|w| is_everyday(w)));
    }

    #[test]
    fn a_capital_where_no_sentence_starts_writes_a_name() {
        let q = "How does Longhorn rebuild? Silence it. Rotate the (Sealed) key: Kafka lag";
        for w in ["Longhorn", "Sealed"] {
            assert!(written_as_name(w, q), "{w}");
        }
        // Sentence starts, lower case, and a word inside another are no names.
        for w in ["How", "Silence", "Kafka", "rebuild", "Long"] {
            assert!(!written_as_name(w, q), "{w}");
        }
        assert!(written_as_name("Kafka", "scale on Kafka consumer lag"));
    }

    #[test]
    fn common_words_are_everyday_and_jargon_is_not() {
        for w in [
            "silence",
            "Throwaway",
            "vanishes",
            "quantities",
            "the",
            "tap",
        ] {
            assert!(is_everyday(w), "{w}");
        }
        for w in [
            "jemalloc",
            "flamegraph",
            "sqlx",
            "autovacuum",
            "kubernetes",
            "TAP",
            "",
        ] {
            assert!(!is_everyday(w), "{w}");
        }
    }
}
