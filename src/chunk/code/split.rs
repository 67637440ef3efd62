//! Splitting a byte range at line boundaries into parts under a token budget.

use std::ops::Range;

use crate::tokens;

/// Splits `range` of `text` into consecutive ranges of at most `max_tokens`
/// (estimated) each, cutting only after a newline. Cuts prefer blank lines near
/// an even share of the range, so parts come out about the same size and
/// paragraphs stay whole; a single line longer than the budget stays one part.
/// No part is whitespace-only: such a stretch joins the part before it.
pub(crate) fn split_lines(text: &str, range: Range<usize>, max_tokens: usize) -> Vec<Range<usize>> {
    let estimate = tokens::estimate(&text[range.clone()]);
    if estimate <= max_tokens {
        return vec![range];
    }
    // Budgets become byte lengths at this range's own bytes per token (code and
    // prose differ), with a tenth of headroom for uneven density; parts still
    // over budget are split again below.
    let budget = (range.len() * max_tokens.max(1) * 9 / (estimate * 10)).max(1);
    let parts = range.len().div_ceil(budget);
    let target = range.len().div_ceil(parts);
    let mut cuts = Vec::new();
    let mut start = range.start;
    while range.end - start > budget {
        let Some(cut) = choose_cut(text, start, range.end, budget, target) else {
            break;
        };
        cuts.push(cut);
        start = cut;
    }
    let mut out: Vec<Range<usize>> = Vec::with_capacity(cuts.len() + 1);
    let mut start = range.start;
    for end in cuts.into_iter().chain([range.end]) {
        let part = start..end;
        match out.last_mut() {
            Some(previous) if super::trim(&text[part.clone()]).is_empty() => previous.end = end,
            _ => out.push(part),
        }
        start = end;
    }
    // A leading whitespace-only part cannot join a predecessor: give it to the next.
    if out.len() > 1 && super::trim(&text[out[0].clone()]).is_empty() {
        let first = out.remove(0);
        out[0].start = first.start;
    }
    if out.len() > 1 {
        // Dense stretches can still overshoot; split those again (each is
        // smaller than `range`, so this ends).
        out = out
            .into_iter()
            .flat_map(|part| split_lines(text, part, max_tokens))
            .collect();
    }
    out
}

/// The cut after `start`: a blank line in the second half of the window closest
/// to `start + target`, else the line end closest to it within the budget, else
/// the end of the (over-long) line that starts the window.
fn choose_cut(text: &str, start: usize, end: usize, budget: usize, target: usize) -> Option<usize> {
    let mut window_end = (start + budget).min(end);
    while !text.is_char_boundary(window_end) {
        window_end -= 1;
    }
    let ideal = start + target;
    let bytes = text.as_bytes();
    let mut best_line: Option<usize> = None;
    let mut best_blank: Option<usize> = None;
    let distance = |cut: usize| cut.abs_diff(ideal);
    for (offset, _) in text[start..window_end].match_indices('\n') {
        let cut = start + offset + 1;
        if cut >= end {
            break;
        }
        if best_line.is_none_or(|best| distance(cut) < distance(best)) {
            best_line = Some(cut);
        }
        let blank_follows = bytes.get(cut).is_some_and(|&byte| byte == b'\n');
        let blank_precedes = offset > 0 && bytes[start + offset - 1] == b'\n';
        let in_second_half = cut >= start + target / 2;
        if (blank_follows || blank_precedes)
            && in_second_half
            && best_blank.is_none_or(|best| distance(cut) < distance(best))
        {
            best_blank = Some(cut);
        }
    }
    best_blank.or(best_line).or_else(|| {
        text[window_end..end]
            .find('\n')
            .map(|offset| window_end + offset + 1)
            .filter(|&cut| cut < end)
    })
}
