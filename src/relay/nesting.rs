//! How deeply a JSON text nests, found without parsing it.
//!
//! Tool output is untrusted: `[[[[…]]]]` twenty thousand levels deep is valid
//! JSON, and every recursive reader (jaq's parser, its evaluator and printer,
//! the drop of the tree it builds) overflowed the stack on it, killing
//! `ctx box` and the `ctx relay` proxy with it. A byte scan needs no stack, so
//! values that nest deeper than [`MAX_JSON_DEPTH`] are refused before any
//! recursive reader sees them.

/// JSON nesting that the relay still reads as JSON (jq queries, shapes);
/// deeper values are text. jq itself parses up to 10,000 levels; real tool
/// output rarely nests 30, and a thousand keeps jaq's recursion far inside a
/// thread's stack.
pub const MAX_JSON_DEPTH: usize = 1_000;

/// Whether `text` opens more than `limit` arrays or objects inside each other
/// (brackets in strings and in jaq's `#` comments do not count). The scan
/// stops at the first bracket past the limit.
pub fn nests_deeper(text: &str, limit: usize) -> bool {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => at = string_end(bytes, at + 1),
            // jaq's reader takes `#` comments; JSON never has `#` outside strings.
            b'#' => {
                at = bytes[at..]
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(bytes.len(), |i| at + i)
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    false
}

/// The index of the quote closing the string whose content starts at `from`
/// (`bytes.len()` when it is unclosed).
fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at,
            _ => at += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_open_containers_not_brackets_in_strings_or_comments() {
        assert!(!nests_deeper("[]", 1));
        assert!(nests_deeper("[[]]", 1));
        assert!(!nests_deeper("[[]]", 2));
        assert!(!nests_deeper(r#"{"a":[1],"b":{"c":[]}}"#, 3));
        assert!(nests_deeper(r#"{"a":[1],"b":{"c":[]}}"#, 2));
        // Siblings do not add up.
        assert!(!nests_deeper("[[],[],[]]", 2));
        assert!(!nests_deeper(r#"["[[[[", "\"[[[["]"#, 1));
        assert!(!nests_deeper("# [[[[\n[1]", 1));
        assert!(!nests_deeper("plain text", 0));
    }

    #[test]
    fn a_million_levels_take_no_stack() {
        let deep = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
        assert!(nests_deeper(&deep, MAX_JSON_DEPTH));
        assert!(!nests_deeper(&deep, 1_000_000));
    }
}
