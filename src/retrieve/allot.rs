//! How `get` shares a budget among the chunks it excerpts: which chunks get
//! room enough for an excerpt that says something, and how much each gets.
//! A chunk that cannot get that room is left out and named, not printed as a
//! sliver: an even split of 50 tokens over a file's 30 sections had printed
//! 30 headers over bodies like `#…`, and the headers alone were 2,000
//! characters.

use std::collections::HashSet;

/// Text tokens under which an excerpt says nothing useful: a heading and a
/// dozen words of its text, or around a match of the query.
pub(super) const USEFUL: usize = 24;

/// Text tokens a chunk holding none of the query's words gets at most when
/// others hold some: its heading and first words, enough to say what it is.
pub(super) const UNMATCHED: usize = 32;

/// One chunk to excerpt, as the allotment sees it.
#[derive(Debug, Clone)]
pub(super) struct Need {
    /// What the lines around its text cost (the line naming it, a part
    /// note): paid in full whatever the text gets.
    pub fixed: usize,
    /// Its whole text.
    pub text: usize,
    /// How many of the query's words it holds.
    pub matched: usize,
    /// Its document, when it was asked for as part of a file.
    pub file: Option<String>,
}

/// Which chunks are shown and the most text each may take.
#[derive(Debug)]
pub(super) struct Allotment {
    /// Per chunk: its fixed cost and the most text tokens it can use, or
    /// `None` when it is left out.
    shown: Vec<Option<(usize, usize)>>,
    /// Every chunk fits whole: each takes its own, with no sharing to work out.
    whole: bool,
}

impl Allotment {
    /// Chooses the chunks of `needs` (in the order they are shown) that fit
    /// `budget` with a useful excerpt each. Without a query, or when no chunk
    /// holds its words, they are taken in order, and a file's chunks stop at
    /// its first that does not fit, so what is shown of a file is its
    /// beginning. With a query, the chunks holding most of its words come
    /// first, then
    /// the others, at [`UNMATCHED`] tokens at most, in at most half the
    /// budget.
    /// When all fit whole, all are shown whole.
    pub(super) fn new(needs: &[Need], budget: usize) -> Allotment {
        let any_match = needs.iter().any(|n| n.matched > 0);
        let cap = |n: &Need| {
            if any_match && n.matched == 0 {
                n.text.min(UNMATCHED)
            } else {
                n.text
            }
        };
        if needs.iter().map(|n| n.fixed + n.text).sum::<usize>() <= budget {
            return Allotment {
                shown: needs.iter().map(|n| Some((n.fixed, n.text))).collect(),
                whole: true,
            };
        }
        // Those holding more of the query's words first; the sort is
        // stable, so among equals the order asked for (or the file's) holds.
        let mut order: Vec<usize> = (0..needs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(needs[i].matched));
        let mut shown = vec![None; needs.len()];
        let mut spent = 0;
        let mut unmatched = 0;
        let mut cut: HashSet<&str> = HashSet::new();
        for i in order {
            let n = &needs[i];
            let file = n.file.as_deref().filter(|_| !any_match);
            if file.is_some_and(|f| cut.contains(f)) {
                continue;
            }
            let least = n.fixed + cap(n).min(USEFUL);
            let extra = any_match && n.matched == 0;
            if spent + least <= budget && (!extra || unmatched + least <= budget / 2) {
                spent += least;
                if extra {
                    unmatched += least;
                }
                shown[i] = Some((n.fixed, cap(n)));
            } else if let Some(f) = file {
                cut.insert(f);
            }
        }
        Allotment {
            shown,
            whole: false,
        }
    }

    /// Whether chunk `i` is shown.
    pub(super) fn admitted(&self, i: usize) -> bool {
        self.shown.get(i).is_some_and(Option::is_some)
    }

    /// The text tokens chunk `i` may take when `remaining` tokens are left
    /// for it and the shown chunks after it: after their fixed costs, an
    /// even level over what each can use, so a short chunk shown whole
    /// leaves the rest to the longer ones.
    pub(super) fn share(&self, i: usize, remaining: usize) -> usize {
        let Some(Some((_, own))) = self.shown.get(i) else {
            return 0;
        };
        if self.whole {
            return *own;
        }
        let rest: Vec<(usize, usize)> = self.shown[i..].iter().flatten().copied().collect();
        let fixed: usize = rest.iter().map(|(f, _)| f).sum();
        let mut caps: Vec<usize> = rest.iter().map(|(_, c)| *c).collect();
        (*own).min(level(&mut caps, remaining.saturating_sub(fixed)))
    }
}

/// The largest share `l` such that giving each of `caps` `min(cap, l)`
/// spends at most `available`.
fn level(caps: &mut [usize], available: usize) -> usize {
    caps.sort_unstable();
    let mut left = available;
    for (k, &cap) in caps.iter().enumerate() {
        let sharing = caps.len() - k;
        match cap.checked_mul(sharing) {
            Some(all) if all <= left => left -= cap,
            _ => return left / sharing,
        }
    }
    usize::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    fn need(fixed: usize, text: usize, matched: usize, file: Option<&str>) -> Need {
        Need {
            fixed,
            text,
            matched,
            file: file.map(str::to_string),
        }
    }

    #[test]
    fn a_file_shows_its_beginning_with_room_to_be_useful() {
        // Thirty sections of 20 tokens under 18-token headers, 50 tokens:
        // the first whole, the rest left out (not thirty slivers).
        let needs: Vec<Need> = (0..30).map(|_| need(18, 20, 0, Some("g.md"))).collect();
        let a = Allotment::new(&needs, 50);
        assert!(a.admitted(0));
        assert!((1..30).all(|i| !a.admitted(i)));
        assert_eq!(a.share(0, 50), 20);
        // A file stops at its first chunk that does not fit, even when a
        // later one would: a prefix, not a sample. Chunks asked for by ID
        // are each taken if they fit.
        let needs = [
            need(10, 100, 0, Some("a.md")),
            need(10, 200, 0, Some("a.md")),
            need(10, 1, 0, Some("a.md")),
            need(10, 1, 0, None),
        ];
        let a = Allotment::new(&needs, 60);
        let shown: Vec<bool> = (0..4).map(|i| a.admitted(i)).collect();
        assert_eq!(shown, [true, false, false, true]);
        // The short one is shown whole and the rest goes to the long one.
        assert_eq!(a.share(0, 60), 60 - 20 - 1);
    }

    #[test]
    fn chunks_holding_the_query_come_first() {
        // One section about the query among twenty: it is shown, the others
        // get a heading's worth in at most half the budget.
        let needs: Vec<Need> = (0..20)
            .map(|i| need(15, 300, usize::from(i == 12), Some("g.md")))
            .collect();
        let a = Allotment::new(&needs, 200);
        assert!(a.admitted(12));
        let others: Vec<usize> = (0..20).filter(|&i| i != 12 && a.admitted(i)).collect();
        assert_eq!(others, [0, 1]);
        // 200 - 3 × 15 fixed = 155: two unmatched at 32, the match the rest.
        assert_eq!(a.share(0, 200), UNMATCHED);
        assert_eq!(a.share(12, 200 - 2 * (15 + UNMATCHED)), 155 - 2 * UNMATCHED);
        // When all hold some, those holding more come first, whatever
        // their place in the file.
        let needs: Vec<Need> = [1, 1, 3, 1, 2]
            .into_iter()
            .map(|m| need(15, 300, m, Some("g.md")))
            .collect();
        let a = Allotment::new(&needs, 100);
        let shown: Vec<usize> = (0..5).filter(|&i| a.admitted(i)).collect();
        assert_eq!(shown, [2, 4]);
    }

    #[test]
    fn the_level_spends_what_is_left_over_on_the_longest() {
        assert_eq!(level(&mut [1000, 10, 100], 300), 190);
        assert_eq!(level(&mut [10, 20], 300), usize::MAX);
        assert_eq!(level(&mut [], 300), usize::MAX);
        assert_eq!(level(&mut [usize::MAX, 5], 7), 3);
    }
}
