//! Trimming a chunk to a token budget: windows around query terms, code fences
//! kept balanced, and a skeleton view (heading path and first lines).

use crate::tokens;

/// Marker between non-adjacent windows, and where a cut text stops.
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

/// How much of one line an excerpt shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    /// Nothing.
    No,
    /// All of it.
    Whole,
    /// The words in these bytes, with `…` where the line goes on.
    Words(usize, usize),
}

/// The words of `line`: byte ranges between whitespace.
fn words(line: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in line.char_indices() {
        match (ch.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, line.len()));
    }
    out
}

/// How many times `terms` occur in `text`: what an excerpt shows of the
/// query, to compare two excerpts by.
fn matches(text: &str, terms: &[String]) -> usize {
    let lower = text.to_lowercase();
    terms
        .iter()
        .filter(|t| !t.is_empty())
        .map(|t| lower.matches(t.as_str()).count())
        .sum()
}

/// The lines of a text being excerpted and what is shown of each.
struct Lines<'a> {
    lines: Vec<&'a str>,
    fences: Vec<Option<usize>>,
    shown: Vec<Shown>,
    budget: usize,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str, budget: usize) -> Lines<'a> {
        let lines: Vec<&str> = text.lines().collect();
        let fences = fence_map(&lines);
        let shown = vec![Shown::No; lines.len()];
        Lines {
            lines,
            fences,
            shown,
            budget,
        }
    }

    fn render(&self) -> String {
        render(&self.lines, &self.fences, &self.shown)
    }

    /// Shows lines `lo..=hi` whole when the result still fits; says whether
    /// it did.
    fn try_whole(&mut self, lo: usize, hi: usize) -> bool {
        let before = self.shown.clone();
        for s in &mut self.shown[lo..=hi] {
            *s = Shown::Whole;
        }
        if tokens::estimate(&self.render()) <= self.budget {
            return true;
        }
        self.shown = before;
        false
    }

    /// Shows as many words of line `i` as fit, around its word `anchor`
    /// (a third of them before it); says whether one did. A fence line is
    /// never cut: half a fence is no fence.
    fn try_words(&mut self, i: usize, anchor: usize) -> bool {
        if self.shown[i] == Shown::Whole || is_fence(self.lines[i]).is_some() {
            return false;
        }
        let words = words(self.lines[i]);
        if words.is_empty() {
            return false;
        }
        let anchor = anchor.min(words.len() - 1);
        let span = |k: usize| {
            let first = anchor.saturating_sub(k / 3).min(words.len() - k);
            (words[first].0, words[first + k - 1].1)
        };
        let before = self.shown[i];
        // Longer windows cost more, so the longest that fits is found by
        // bisection: a line can be a whole generated file.
        let (mut lo, mut hi) = (0, words.len());
        while lo < hi {
            let k = (lo + hi).div_ceil(2);
            let (a, b) = span(k);
            self.shown[i] = Shown::Words(a, b);
            if tokens::estimate(&self.render()) <= self.budget {
                lo = k;
            } else {
                hi = k - 1;
            }
        }
        self.shown[i] = if lo == 0 {
            before
        } else {
            let (a, b) = span(lo);
            Shown::Words(a, b)
        };
        lo > 0
    }
}

/// The word of `line` to center a window of words on: the matching word
/// with the most distinct terms among the dozen words from it, the first
/// of those.
fn anchor(line: &str, terms: &[String]) -> usize {
    const SPAN: usize = 12;
    let words: Vec<String> = words(line)
        .iter()
        .map(|&(a, b)| line[a..b].to_lowercase())
        .collect();
    let holds = |w: &str, t: &String| !t.is_empty() && w.contains(t.as_str());
    let mut best = (0, 0);
    for (i, w) in words.iter().enumerate() {
        if !terms.iter().any(|t| holds(w, t)) {
            continue;
        }
        let distinct = terms
            .iter()
            .filter(|t| {
                words[i..(i + SPAN).min(words.len())]
                    .iter()
                    .any(|w| holds(w, t))
            })
            .count();
        if distinct > best.1 {
            best = (i, distinct);
        }
    }
    best.0
}

/// `text` cut to at most `budget` estimated tokens around `terms` (lowercase
/// stems or words). Returns the text unchanged when it fits. Never shows
/// fewer of the terms than the text's opening lines cut to the same budget
/// would: windows around the best lines may not fit where the opening does.
pub fn excerpt(text: &str, terms: &[String], budget: usize) -> String {
    if tokens::estimate(text) <= budget {
        return text.to_string();
    }
    let opening = leading(text, budget);
    match around(text, terms, budget) {
        Some(windows) if matches(&windows, terms) >= matches(&opening, terms) => windows,
        _ => opening,
    }
}

/// The lines of `text` that hold the most of `terms`, best first (and
/// earlier first among equals).
fn ranked_lines(lines: &[&str], terms: &[String]) -> Vec<usize> {
    let mut scored: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let l = l.to_lowercase();
            let n = terms
                .iter()
                .filter(|t| !t.is_empty() && l.contains(t.as_str()))
                .count();
            (n, i)
        })
        .filter(|(n, _)| *n > 0)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, i)| i).collect()
}

/// The first line, then windows around the lines holding the most terms
/// while they fit; a window that does not fit shrinks (fewer lines around
/// its line, then the words around its match) instead of being dropped.
/// `None` when no line holds a term.
fn around(text: &str, terms: &[String], budget: usize) -> Option<String> {
    let mut x = Lines::new(text, budget);
    let centers = ranked_lines(&x.lines, terms);
    if centers.is_empty() {
        return None;
    }
    let last = x.lines.len() - 1;
    // The first line is usually the heading, which says where the rest is.
    x.try_whole(0, 0);
    for c in centers {
        if x.shown[c] == Shown::Whole {
            continue;
        }
        let fitted = [2, 1, 0]
            .into_iter()
            .any(|r| x.try_whole(c.saturating_sub(r), (c + r).min(last)));
        if !fitted {
            let at = anchor(x.lines[c], terms);
            x.try_words(c, at);
        }
    }
    // A line cut to its words early may fit whole once later windows
    // have shown the lines around it (and its gap markers are gone).
    for i in 0..x.lines.len() {
        if matches!(x.shown[i], Shown::Words(..)) {
            x.try_whole(i, i);
        }
    }
    Some(x.render())
}

/// The opening of `text`: whole lines while they fit, then as many words of
/// the next as fit (a long paragraph line is not left out for being long).
fn leading(text: &str, budget: usize) -> String {
    let mut x = Lines::new(text, budget);
    if !x.try_whole(0, 0) && !x.try_words(0, 0) {
        return cut_chars(&x.lines[0..1].concat(), budget);
    }
    for i in 1..x.lines.len() {
        if !x.try_whole(i, i) {
            if !x.lines[i].trim().is_empty() {
                x.try_words(i, 0);
            }
            break;
        }
    }
    x.render()
}

/// `text` cut at a character, for a first line without a word that fits
/// (a 3,000-character identifier).
fn cut_chars(text: &str, budget: usize) -> String {
    let mut cut = String::new();
    for ch in text.chars() {
        cut.push(ch);
        if tokens::estimate(&cut) + 1 >= budget {
            break;
        }
    }
    cut.push('…');
    cut
}

/// The longest run of `text`'s first lines that fits `budget` tokens,
/// with fences closed and a `[…]` line where it stops: a raw text cut
/// where a reader can tell it was, and how many lines of `text` it holds.
/// `Err` with the tokens the first line needs when not even that fits.
pub fn prefix(text: &str, budget: usize) -> std::result::Result<(String, usize), usize> {
    let mut x = Lines::new(text, budget);
    let first = x
        .lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(0);
    let upto = |x: &mut Lines<'_>, k: usize| {
        for (i, s) in x.shown.iter_mut().enumerate() {
            *s = if i < k { Shown::Whole } else { Shown::No };
        }
        x.render()
    };
    // Each line more costs more, so the longest prefix that fits is found
    // by bisection.
    let (mut lo, mut hi) = (0, x.lines.len());
    while lo < hi {
        let k = (lo + hi).div_ceil(2);
        if tokens::estimate(&upto(&mut x, k)) <= budget {
            lo = k;
        } else {
            hi = k - 1;
        }
    }
    if lo <= first {
        return Err(tokens::estimate(&upto(&mut x, first + 1)));
    }
    // Blank lines before the cut would only push the marker down.
    while lo > first + 1 && x.lines[lo - 1].trim().is_empty() {
        lo -= 1;
    }
    Ok((upto(&mut x, lo), lo))
}

/// The shown lines in order, with gap markers and fences re-opened/closed so the
/// result is valid Markdown.
fn render(lines: &[&str], fences: &[Option<usize>], shown: &[Shown]) -> String {
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
    for i in (0..lines.len()).filter(|&i| shown[i] != Shown::No) {
        let gap = prev.map_or(i > 0, |p| i > p + 1);
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
        match shown[i] {
            Shown::Words(a, b) => {
                let line = lines[i];
                out.push_str(if a > 0 { "…" } else { "" });
                out.push_str(&line[a..b]);
                out.push_str(if b < line.len() { "…" } else { "" });
            }
            _ => out.push_str(lines[i]),
        }
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

    /// Paragraphs of one long line each, the second and fifth holding
    /// "stale" and "lock" far from their start.
    fn long_paragraphs() -> String {
        let filler = |n: usize| -> String { (0..n).map(|i| format!("word{i} ")).collect() };
        let mut text = String::from("# Big Doc\n\n");
        for p in 0..6 {
            let middle = if p == 1 || p == 4 {
                "the stale lock is kept "
            } else {
                ""
            };
            text.push_str(&format!("{}{middle}{}\n\n", filler(40), filler(20)));
        }
        text
    }

    #[test]
    fn a_window_that_does_not_fit_shrinks_to_the_words_around_the_match() {
        let text = long_paragraphs();
        let terms = vec!["stale".to_string(), "lock".to_string()];
        for budget in [20, 40, 80, 120] {
            let out = excerpt(&text, &terms, budget);
            assert!(tokens::estimate(&out) <= budget, "{budget}: {out}");
            assert!(out.contains("stale lock"), "{budget}: {out}");
            assert!(out.starts_with("# Big Doc\n"), "{budget}: {out}");
            // Cut lines say so.
            let cut = out
                .lines()
                .find(|l| l.contains("stale lock"))
                .unwrap_or_default();
            assert!(cut.starts_with('…') && cut.ends_with('…'), "{out}");
            // Never less of the query than the opening lines show.
            assert!(matches(&out, &terms) >= matches(&excerpt(&text, &[], budget), &terms));
        }
    }

    #[test]
    fn the_opening_cuts_a_long_line_to_the_words_that_fit() {
        let text = long_paragraphs();
        let out = excerpt(&text, &[], 30);
        assert!(tokens::estimate(&out) <= 30, "{out}");
        assert!(out.starts_with("# Big Doc\n\nword0 word1 "), "{out}");
        assert!(out.ends_with("…\n[…]\n"), "{out}");
    }

    #[test]
    fn a_prefix_is_whole_lines_with_fences_closed_and_marked_cut() {
        let mut text = String::from("# Setup\n\n```sh\n");
        for i in 0..100 {
            text.push_str(&format!("echo step {i}\n"));
        }
        text.push_str("```\n");
        let (out, shown) = prefix(&text, 60).expect("a prefix fits");
        assert_eq!(out.lines().count(), shown + 2, "{out}");
        assert!(tokens::estimate(&out) <= 60, "{out}");
        assert!(out.starts_with("# Setup\n\n```sh\necho step 0\n"), "{out}");
        assert!(out.ends_with("```\n[…]\n"), "{out}");
        // Whole lines only: the last shown step is complete.
        let last = out.lines().rev().nth(2).expect("a step");
        assert!(last.starts_with("echo step "), "{out}");
        // A first line over the budget cannot start a prefix: what it needs.
        let long = format!("{}\nmore\n", "word ".repeat(200));
        let need = prefix(&long, 50).expect_err("no prefix fits");
        assert!(need > 50, "{need}");
        assert!(prefix(&long, need).is_ok());
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
