//! Query-focused previews: a stretch of a hit (search shows ~160 characters)
//! around the densest cluster of query terms, on one line.

use crate::chunk::code::comment::comment_text;

/// About `width` characters of `text` around the densest cluster of query
/// terms, on one line. For `code`, comment markers at line starts are left out:
/// joined into one line, `///` and `#` would read as part of the prose.
pub fn preview(text: &str, terms: &[String], width: usize, code: bool) -> String {
    let lower = text.to_lowercase();
    // Lowercasing can change byte lengths; fall back to the head when it does.
    let same_len = lower.len() == text.len();
    let mut hits: Vec<(usize, usize)> = Vec::new();
    if same_len && !word_start_hits(&lower, terms, &mut hits) {
        hits = searched_hits(&lower, terms);
    }
    let (center, lead) = if hits.is_empty() {
        (0, width / 4)
    } else {
        hits.sort_unstable();
        let most = most_distinct(&hits, terms.len(), width.max(1));
        let (from, to) = tightest(&hits, terms, most);
        // The stretch opens a quarter of the way in, or less so that it
        // fits, so what follows the terms shows more than what precedes.
        (from, (width / 4).min(width.saturating_sub(to - from) / 2))
    };
    let start = floor_char(text, center.saturating_sub(lead));
    let start = if start > 0 {
        // Past the whitespace character, which may be wider than a byte
        // (a no-break space is two).
        text[start..]
            .char_indices()
            .find(|(_, c)| c.is_whitespace())
            .map(|(w, c)| start + w + c.len_utf8())
            .filter(|s| *s <= center)
            .unwrap_or(start)
    } else {
        0
    };
    let end = floor_char(text, (start + width).min(text.len()));
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let mut words = Vec::new();
    for line in text[start..end].lines() {
        let line = if code {
            comment_text(line).unwrap_or(line)
        } else {
            line
        };
        words.extend(line.split_whitespace());
    }
    out.push_str(&words.join(" "));
    if end < text.len() {
        out.push('…');
    }
    out
}

/// The most distinct terms any `width` bytes of sorted `hits` hold.
fn most_distinct(hits: &[(usize, usize)], n_terms: usize, width: usize) -> usize {
    let mut counts = vec![0usize; n_terms];
    let (mut distinct, mut end, mut most) = (0usize, 0usize, 0usize);
    for &(p, t) in hits {
        while end < hits.len() && hits[end].0 < p + width {
            let u = hits[end].1;
            distinct += usize::from(counts[u] == 0);
            counts[u] += 1;
            end += 1;
        }
        most = most.max(distinct);
        counts[t] -= 1;
        distinct -= usize::from(counts[t] == 0);
    }
    most
}

/// The shortest stretch of sorted `hits` holding `most` distinct terms (the
/// first of equals), as byte offsets from its first hit to the end of its
/// last: in a list of records that all say `label`, the one that also says
/// `77` is where `label-77` is, not the first `label` before it.
fn tightest(hits: &[(usize, usize)], terms: &[String], most: usize) -> (usize, usize) {
    let mut counts = vec![0usize; terms.len()];
    let (mut distinct, mut left) = (0usize, 0usize);
    let mut best: Option<(usize, usize)> = None;
    for &(p, t) in hits {
        distinct += usize::from(counts[t] == 0);
        counts[t] += 1;
        let end = p + terms[t].len();
        while distinct >= most && left < hits.len() {
            let (q, u) = hits[left];
            if best.is_none_or(|(a, b)| end - q < b - a) {
                best = Some((q, end));
            }
            counts[u] -= 1;
            distinct -= usize::from(counts[u] == 0);
            left += 1;
        }
    }
    best.unwrap_or((hits[0].0, hits[0].0))
}

/// The occurrences of `terms` (of 2 bytes or more) at word starts in `lower`,
/// one search per term, stopping once there are more than [`HIT_CAP`].
fn searched_hits(lower: &str, terms: &[String]) -> Vec<(usize, usize)> {
    let mut hits = Vec::new();
    for (ti, t) in terms.iter().enumerate() {
        if t.len() < 2 {
            continue;
        }
        let mut from = 0;
        while let Some(p) = lower[from..].find(t.as_str()) {
            let at = from + p;
            let word_start = at == 0
                || !lower[..at]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric);
            if word_start {
                hits.push((at, ti));
            }
            from = at + t.len();
            if hits.len() > HIT_CAP {
                break;
            }
        }
    }
    hits
}

/// Term occurrences past which [`preview`] stops looking.
const HIT_CAP: usize = 256;

/// The occurrences of `terms` (of 2 bytes or more) at word starts in `lower`,
/// in one pass over its word starts instead of one search per term. Returns
/// `false`, leaving `hits` for the caller to clear, where the pass might not
/// find exactly what a search per term finds: when a term holds a character
/// that is not alphanumeric (an occurrence of `a_b` can hide one starting at
/// its `b`), or when there are more than [`HIT_CAP`] occurrences (the search
/// per term stops at the cap, in term order).
fn word_start_hits(lower: &str, terms: &[String], hits: &mut Vec<(usize, usize)>) -> bool {
    if terms
        .iter()
        .any(|t| t.len() >= 2 && !t.chars().all(char::is_alphanumeric))
    {
        return false;
    }
    let bytes = lower.as_bytes();
    let mut prev_alnum = false;
    for (at, c) in lower.char_indices() {
        let alnum = c.is_alphanumeric();
        if alnum && !prev_alnum {
            for (ti, t) in terms.iter().enumerate() {
                if t.len() >= 2 && bytes[at..].starts_with(t.as_bytes()) {
                    hits.push((at, ti));
                }
            }
            if hits.len() > HIT_CAP {
                return false;
            }
        }
        prev_alnum = alnum;
    }
    true
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::{preview, searched_hits, word_start_hits};

    fn terms(ts: &[&str]) -> Vec<String> {
        ts.iter().map(|t| t.to_string()).collect()
    }

    /// A window that starts just before a no-break space (two bytes in UTF-8)
    /// begins after it, not inside it: a KEP's text with one made `ctx search`
    /// panic.
    #[test]
    fn a_window_starting_at_a_wide_space_begins_after_it() {
        for pad in 20..40 {
            let text = format!(
                "{}\u{a0}ordinals start at zero unless the field says otherwise",
                "a".repeat(pad)
            );
            let p = preview(&text, &terms(&["ordinals"]), 40, false);
            assert!(p.contains("ordinals"), "{p}");
        }
    }

    /// The preview opens near the stretch holding the most distinct query
    /// terms, not at the first term that occurs.
    #[test]
    fn preview_centers_on_the_densest_window() {
        let filler = "lorem ipsum dolor sit amet ".repeat(20);
        let text = format!(
            "lock appears early. {filler} here the stale lock timeout policy is explained. {filler}"
        );
        let p = preview(&text, &terms(&["stale", "lock", "timeout"]), 80, false);
        assert!(p.starts_with('…'), "{p}");
        assert!(p.contains("stale lock timeout policy"), "{p}");
        // One term only: the first occurrence wins.
        let p = preview(&text, &terms(&["lock"]), 80, false);
        assert!(p.starts_with("lock appears early."), "{p}");
        // No term: the head, and a zero width does not panic.
        let p = preview(&text, &terms(&["zebra"]), 40, false);
        assert!(p.starts_with("lock appears"), "{p}");
        let _ = preview(&text, &terms(&["lock", "stale"]), 0, false);
    }

    /// Where every record says one term, the preview shows the record that
    /// also says the other, not the first stretch holding both.
    #[test]
    fn preview_shows_the_tightest_stretch_holding_the_terms() {
        let text: String = (70..80)
            .map(|i| format!("{{ \"name\": \"label-{i}\", \"color\": \"e11d21\" }}, "))
            .collect();
        let p = preview(&text, &terms(&["label", "77"]), 120, false);
        assert!(p.contains("\"label-77\", \"color\""), "{p}");
    }

    /// A code preview reads as prose: no `///` or `#` between the words.
    #[test]
    fn code_previews_drop_comment_markers() {
        let text = "/// Replaces the pack\n/// atomically.\n#[inline]\npub fn swap() {\n    // why: ext4\n}\n";
        let p = preview(text, &terms(&["pack"]), 200, true);
        assert_eq!(
            p,
            "Replaces the pack atomically. #[inline] pub fn swap() { why: ext4 }"
        );
        let py = "def f():\n    # counts the lines\n    return n\n";
        assert_eq!(
            preview(py, &[], 200, true),
            "def f(): counts the lines return n"
        );
        // Prose keeps its characters.
        assert_eq!(preview("# Title\ntext", &[], 200, false), "# Title text");
    }

    /// The one-pass scan finds what a search per term finds, or declines.
    #[test]
    fn word_start_scan_matches_the_search_per_term() {
        let many = "lock ".repeat(300);
        let cases: &[(&str, &[&str])] = &[
            (
                "the stale lock, a lockfile; relock x-lock lock",
                &["lock", "stale", "x"],
            ),
            ("max_size max_size_b a_b_b a_b", &["max", "size", "b", "ab"]),
            ("a_b_b a_b", &["a_b"]),
            ("überlock lock über", &["über", "lock"]),
            (&many, &["lock"]),
            ("", &["lock"]),
        ];
        for (text, ts) in cases {
            let ts = terms(ts);
            let lower = text.to_lowercase();
            let mut fast = Vec::new();
            if word_start_hits(&lower, &ts, &mut fast) {
                let mut slow = searched_hits(&lower, &ts);
                fast.sort_unstable();
                slow.sort_unstable();
                assert_eq!(fast, slow, "{text:?} {ts:?}");
            }
        }
        // Declined: a term that can hide another occurrence, and the cap.
        assert!(!word_start_hits("a_b_b", &terms(&["a_b"]), &mut Vec::new()));
        assert!(!word_start_hits(&many, &terms(&["lock"]), &mut Vec::new()));
    }
}
