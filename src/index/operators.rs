//! Operators as terms. Docs about a language name its operators in inline
//! code (`` `?` ``, `` `&&` ``, `` `..=` ``), and a question about `?` has no
//! other word to find them by: the analyzers turn such a span into a term of
//! its own, and a query names one alone or in backticks.

/// Longest operator kept as a term (`::<>`).
const MAX_OPERATOR_BYTES: usize = 4;

/// The operator in the inline code span whose opening backtick `after` follows,
/// when the span holds nothing else.
pub(super) fn operator_span(after: &str) -> Option<&str> {
    let end = after
        .bytes()
        .take(MAX_OPERATOR_BYTES + 1)
        .position(|b| b == b'`')?;
    let op = &after[..end];
    is_operator(op).then_some(op)
}

/// One to [`MAX_OPERATOR_BYTES`] ASCII punctuation characters, backticks aside.
pub(super) fn is_operator(s: &str) -> bool {
    (1..=MAX_OPERATOR_BYTES).contains(&s.len())
        && s.bytes().all(|b| b.is_ascii_punctuation() && b != b'`')
}

/// The operators a query names, as terms: punctuation standing alone between
/// spaces (`can I use ? in main`) or in backticks. A lone `-` is a dash, and a
/// mark ending the query is its punctuation.
pub fn query_operators(query: &str) -> Vec<String> {
    let pieces: Vec<&str> = query.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        let quoted = piece.len() > 2 && piece.starts_with('`') && piece.ends_with('`');
        let op = if quoted {
            &piece[1..piece.len() - 1]
        } else {
            piece
        };
        let sentence_end = !quoted && i + 1 == pieces.len() && matches!(op, "?" | "!" | "." | "?!");
        if is_operator(op) && op != "-" && !sentence_end && !out.iter().any(|o| o == op) {
            out.push(op.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_name_operators_alone_or_in_backticks() {
        assert_eq!(query_operators("can I use ? inside main?"), ["?"]);
        assert_eq!(
            query_operators("what does `!` mean and what is ::<> for"),
            ["!", "::<>"]
        );
        // A dash, a trailing question mark, words with punctuation: none.
        assert!(query_operators("locks - how are they handled ?").is_empty());
        assert!(query_operators("what is \"search\" (the tool)?").is_empty());
    }
}
