//! Trimming a chunk to a token budget: windows around query terms, code fences
//! kept balanced, and a skeleton view (heading path and first lines).

use crate::tokens;

/// Marker between non-adjacent windows.
const GAP: &str = "[…]";

fn is_fence(line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// For each line, the fence opener line index it lies inside (or `None`).
fn fence_map(lines: &[&str]) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(lines.len());
    let mut open: Option<(usize, char, usize)> = None;
    for (i, l) in lines.iter().enumerate() {
        match (open, is_fence(l)) {
            (None, Some((c, n))) => {
                open = Some((i, c, n));
                out.push(Some(i));
            }
            (Some((o, c, n)), Some((c2, n2)))
                if c2 == c && n2 >= n && l.trim().chars().all(|x| x == c) =>
            {
                out.push(Some(o));
                open = None;
            }
            (Some((o, _, _)), _) => out.push(Some(o)),
            (None, None) => out.push(None),
        }
    }
    out
}

/// Tokens a chunk holding none of the query's terms gets when others hold
/// some: its heading line and a little of its first, enough to say what it is.
const UNMATCHED_SHARE: usize = 32;

/// How a budget is shared among chunks excerpted in order for a query: a
/// chunk holding none of its terms gets [`UNMATCHED_SHARE`], and those that
/// hold some split the rest evenly (their order already says which matters
/// most). Without a query, or when no chunk holds a term, every chunk gets an
/// even share. An even split of all had given a file's one section about the
/// query the same few tokens as every other: its heading and nothing of what
/// matched.
pub struct Shares {
    /// Whether each chunk holds a term of the query.
    matched: Vec<bool>,
}

impl Shares {
    /// Tells which of `texts` (the chunks, in the order they are shown) hold
    /// one of `terms`.
    pub fn new(texts: impl Iterator<Item = impl AsRef<str>>, terms: &[String]) -> Shares {
        if terms.iter().all(String::is_empty) {
            return Shares {
                matched: texts.map(|_| false).collect(),
            };
        }
        let matched = texts
            .map(|text| {
                let lower = text.as_ref().to_lowercase();
                terms
                    .iter()
                    .any(|t| !t.is_empty() && lower.contains(t.as_str()))
            })
            .collect();
        Shares { matched }
    }

    /// The share of `remaining` tokens for chunk `i`, when chunks `i..` are
    /// still to be shown.
    pub fn of(&self, i: usize, remaining: usize) -> usize {
        let rest = self.matched.get(i..).unwrap_or_default();
        let even = remaining / rest.len().max(1);
        if !self.matched.contains(&true) {
            return even;
        }
        if !rest.first().copied().unwrap_or(false) {
            return even.min(UNMATCHED_SHARE);
        }
        let matched = rest.iter().filter(|&&m| m).count();
        let unmatched = rest.len() - matched;
        let reserve = unmatched.saturating_mul(UNMATCHED_SHARE).min(remaining / 2);
        (remaining - reserve) / matched
    }
}

/// `text` cut to at most `budget` estimated tokens around `terms` (lowercase
/// stems or words). Returns the text unchanged when it fits.
pub fn excerpt(text: &str, terms: &[String], budget: usize) -> String {
    if tokens::estimate(text) <= budget {
        return text.to_string();
    }
    let lines: Vec<&str> = text.lines().collect();
    let fences = fence_map(&lines);
    let lower: Vec<String> = lines.iter().map(|l| l.to_lowercase()).collect();
    let mut scored: Vec<(usize, usize)> = lower
        .iter()
        .enumerate()
        .map(|(i, l)| {
            (
                terms
                    .iter()
                    .filter(|t| !t.is_empty() && l.contains(t.as_str()))
                    .count(),
                i,
            )
        })
        .filter(|(s, _)| *s > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    // Always start with the first line (usually the heading).
    let mut chosen = vec![false; lines.len()];
    chosen[0] = true;
    let mut result = render(&lines, &fences, &chosen);
    let centers: Vec<usize> = if scored.is_empty() {
        (1..lines.len()).collect()
    } else {
        scored.iter().map(|(_, i)| *i).collect()
    };
    for c in centers {
        let (lo, hi) = if scored.is_empty() {
            (c, c)
        } else {
            (c.saturating_sub(2), (c + 2).min(lines.len() - 1))
        };
        let mut trial = chosen.clone();
        for flag in &mut trial[lo..=hi] {
            *flag = true;
        }
        let candidate = render(&lines, &fences, &trial);
        if tokens::estimate(&candidate) <= budget {
            chosen = trial;
            result = candidate;
        } else if scored.is_empty() {
            break;
        }
    }
    if tokens::estimate(&result) > budget {
        // Even the first line is too long: cut it at a character boundary.
        let mut cut = String::new();
        for ch in result.chars() {
            cut.push(ch);
            if tokens::estimate(&cut) + 1 >= budget {
                break;
            }
        }
        cut.push('…');
        return cut;
    }
    result
}

/// The chosen lines in order, with gap markers and fences re-opened/closed so the
/// result is valid Markdown.
fn render(lines: &[&str], fences: &[Option<usize>], chosen: &[bool]) -> String {
    let mut out = String::new();
    let mut open: Option<usize> = None;
    // Where the opener of a fence with nothing after it yet starts in `out`:
    // a window that ends on an opener would print an empty code block, which
    // costs tokens and says nothing, so such an opener is taken back instead.
    let mut bare_opener: Option<usize> = None;
    let close = |out: &mut String, opener: usize, bare: Option<usize>| match bare {
        Some(at) => out.truncate(at),
        None => out.push_str(&closer(lines[opener])),
    };
    let mut prev: Option<usize> = None;
    for i in (0..lines.len()).filter(|&i| chosen[i]) {
        let gap = prev.is_some_and(|p| i > p + 1);
        if gap {
            if let Some(o) = open.take() {
                close(&mut out, o, bare_opener);
            }
            out.push_str(GAP);
            out.push('\n');
        }
        let at = out.len();
        let fence = fences[i];
        if open.is_none()
            && fence != Some(i)
            && let Some(o) = fence
        {
            out.push_str(lines[o]);
            out.push('\n');
            open = Some(o);
        }
        out.push_str(lines[i]);
        out.push('\n');
        bare_opener = None;
        if fence == Some(i) && open.is_none() {
            open = Some(i);
            bare_opener = Some(at);
        } else if fence.is_some()
            && is_fence(lines[i]).is_some()
            && open == fence
            && fence != Some(i)
        {
            open = None;
        }
        prev = Some(i);
    }
    if prev.is_some_and(|p| p + 1 < lines.len()) {
        if let Some(o) = open.take() {
            close(&mut out, o, bare_opener);
        }
        out.push_str(GAP);
        out.push('\n');
    } else if let Some(o) = open {
        close(&mut out, o, bare_opener);
    }
    out
}

fn closer(opener: &str) -> String {
    match is_fence(opener) {
        Some((c, n)) => format!("{}\n", c.to_string().repeat(n)),
        None => "```\n".into(),
    }
}

/// Heading path and the first non-empty lines of each paragraph-level block, up
/// to `max_lines` lines.
pub fn skeleton(title_path: &[String], text: &str, max_lines: usize) -> String {
    let mut out = format!("{}\n", title_path.join(" > "));
    let mut taken = 0;
    let mut in_fence = false;
    let mut after_blank = true;
    for line in text.lines() {
        if is_fence(line).is_some() {
            in_fence = !in_fence;
            if in_fence && taken < max_lines {
                out.push_str(line.trim_end());
                out.push_str(" … (code)\n");
                taken += 1;
            }
            continue;
        }
        if in_fence {
            continue;
        }
        let t = line.trim();
        if t.is_empty() {
            after_blank = true;
            continue;
        }
        if (after_blank || t.starts_with('#')) && taken < max_lines {
            let short: String = t.chars().take(160).collect();
            out.push_str(&short);
            if short.len() < t.len() {
                out.push('…');
            }
            out.push('\n');
            taken += 1;
        }
        after_blank = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_follow_the_query() {
        let terms = vec!["snapshot".to_string(), "retent".to_string()];
        let texts = [
            "## Install",
            "## Backups\nsnapshot retention",
            "## Logs",
            "snapshot",
        ];
        let shares = Shares::new(texts.iter(), &terms);
        // 1000 tokens: the first holds nothing, so a heading's worth.
        assert_eq!(shares.of(0, 1000), UNMATCHED_SHARE);
        // Then 968 for three: one unmatched reserve, half the rest.
        assert_eq!(shares.of(1, 968), (968 - UNMATCHED_SHARE) / 2);
        assert_eq!(shares.of(2, 300), UNMATCHED_SHARE);
        assert_eq!(shares.of(3, 268), 268);
        // No query, or no chunk holding a term: even shares.
        let none = Shares::new(texts.iter(), &[]);
        assert_eq!(none.of(0, 1000), 250);
        let unmatched = Shares::new(["a", "b"].iter(), &terms);
        assert_eq!(unmatched.of(0, 100), 50);
    }

    #[test]
    fn excerpt_keeps_fences_balanced_and_fits() {
        let mut text = String::from("## Locks\n\nintro line\n\n```sh\n");
        for i in 0..200 {
            text.push_str(&format!("echo step {i}\n"));
        }
        text.push_str("rm stale.lock\n");
        for i in 0..200 {
            text.push_str(&format!("echo after {i}\n"));
        }
        text.push_str("```\n\nthe end\n");
        let out = excerpt(&text, &["stale".to_string()], 80);
        assert!(tokens::estimate(&out) <= 80, "{}", tokens::estimate(&out));
        assert!(out.contains("rm stale.lock"));
        let fences = out.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences % 2, 0, "{out}");
        assert!(out.starts_with("## Locks"));
    }

    #[test]
    fn a_window_ending_on_a_fence_opener_prints_no_empty_block() {
        let mut text = String::from("## Listing\n\nthe longest function\n\n```rust\n");
        for i in 0..200 {
            text.push_str(&format!("let x{i} = {i};\n"));
        }
        text.push_str("```\n\nclosing words\n");
        let out = excerpt(&text, &["longest".to_string()], 40);
        assert!(out.contains("the longest function"), "{out}");
        assert!(!out.contains("```rust"), "{out}");
        assert_eq!(
            out.lines().filter(|l| l.starts_with("```")).count(),
            0,
            "{out}"
        );
    }

    #[test]
    fn fits_unchanged() {
        assert_eq!(excerpt("short", &[], 100), "short");
    }
}
