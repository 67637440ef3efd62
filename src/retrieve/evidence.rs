//! `evidence`: search, choose hits by score per token within the budget, fetch
//! excerpts, and format one read-only block — one call instead of a search–get loop.

use serde::Serialize;

use super::search::query_notes;
use super::{
    Budget, Fetched, GetOptions, Hit, Mode, Omitted, Retriever, SearchOptions, SearchResult,
};
use crate::error::Result;
use crate::tokens;

/// Parameters of `evidence`.
#[derive(Debug, Clone)]
pub struct EvidenceOptions {
    /// Token budget of the returned text.
    pub budget: usize,
    /// The configured hard cap.
    pub cap: usize,
    /// At most this many chunks.
    pub max_chunks: usize,
    /// Search parameters (k is raised to look past the first few hits).
    pub search: SearchOptions,
}

/// The answer to `evidence`.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    /// The query.
    pub query: String,
    /// Chosen chunks, best first.
    pub chunks: Vec<Fetched>,
    /// Nothing answers the query.
    pub no_evidence: bool,
    /// The search behind it (for suggestions).
    #[serde(skip)]
    pub search: Option<SearchResult>,
    /// Tokens returned.
    pub used: usize,
    /// The budget asked for and the one applied.
    pub budget: Budget,
    /// What to know about the answer (a budget over the cap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why there is no evidence, when the query itself is the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Words of the query that no indexed text holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
    /// Package directories the query names (see [`SearchResult::packages`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<String>,
    /// Chosen chunks that did not fit with a useful excerpt.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<Omitted>,
}

impl Evidence {
    /// The block an agent reads.
    pub fn render(&self) -> String {
        let mut out = if self.no_evidence {
            format!("No evidence in indexed context for: {}\n", self.query)
        } else {
            String::from("EVIDENCE (read-only)\n")
        };
        let notes = query_notes(&self.absent, &self.packages);
        for note in self.note.iter().cloned().chain(notes) {
            out.push_str(&format!("Note: {note}.\n"));
        }
        if self.no_evidence {
            return out;
        }
        for c in &self.chunks {
            out.push_str(&format!(
                "\n[{}] {} ({}:{}-{})\n",
                c.id,
                c.title_path.join(" > "),
                c.doc,
                c.lines[0],
                c.lines[1]
            ));
            out.push_str(c.text.trim_end());
            out.push('\n');
            if let Some(note) = c.part_note() {
                out.push_str(&note);
                out.push('\n');
            }
        }
        if !self.omitted.is_empty() {
            out.push('\n');
        }
        for line in Omitted::lines(&self.omitted) {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}

/// The hits an evidence block of `budget` tokens and at most `max_chunks`
/// chunks holds, from a search's `hits` (best first).
pub fn choose(hits: &[Hit], budget: usize, max_chunks: usize) -> Vec<&Hit> {
    let Some((best, rest)) = hits.split_first() else {
        return Vec::new();
    };
    // The best hit always leads; the rest are taken by score per token while
    // they fit, so many small relevant sections beat one huge one. A chunk
    // costs at least its share of the budget, since it also takes one of the
    // few places: by tokens alone, three-line getters crowded out the
    // function that does the work (evidence held a relevant chunk for 0.673
    // of `ignore`'s answerable queries, then 0.800). A code symbol costs its
    // place alone, so symbols go in rank order: a function is as long as its
    // work, while a section's length is its writer's choice (`ignore` 0.836;
    // the prose sets lose to rank order, a long section taking the budget).
    let mut chosen = vec![best];
    let top = best.score.max(f32::EPSILON);
    let mut rest: Vec<&Hit> = rest.iter().filter(|h| h.score >= top * 0.35).collect();
    let place = budget / max_chunks.max(1);
    let cost = |h: &Hit| {
        let tokens = if h.kind == "code" { 0 } else { h.token_est };
        tokens.max(place).max(1) as f32
    };
    rest.sort_by(|a, b| (b.score / cost(b)).total_cmp(&(a.score / cost(a))));
    let mut spent = best.token_est.min(budget / 2);
    for h in rest {
        if chosen.len() >= max_chunks {
            break;
        }
        if spent + h.token_est <= budget {
            spent += h.token_est;
            chosen.push(h);
        }
    }
    chosen
}

impl Retriever {
    /// Search + get in one call.
    pub fn evidence(&self, query: &str, opts: &EvidenceOptions) -> Result<Evidence> {
        // Before the search: a budget nothing fits is refused without one.
        let asked = Budget::new(opts.budget, opts.cap)?;
        let budget = asked.applied;
        let mut search = opts.search.clone();
        search.k = search.k.max(opts.max_chunks * 2).max(8);
        let result = self.search(query, &search)?;
        let mut evidence = Evidence {
            query: query.to_string(),
            chunks: Vec::new(),
            no_evidence: result.no_evidence,
            note: result.no_evidence.then(|| result.note.clone()).flatten(),
            absent: result.absent.clone(),
            packages: result.packages.clone(),
            search: None,
            used: 0,
            budget: asked,
            hint: asked.clamp_note(),
            omitted: Vec::new(),
        };
        if result.no_evidence {
            evidence.search = Some(result);
            return Ok(evidence);
        }
        // The block's first lines are printed with the chunks, so they are
        // paid for from the same budget.
        let preamble = tokens::estimate(&evidence.render());
        let chosen = choose(&result.hits, budget, opts.max_chunks);
        let ids: Vec<String> = chosen.iter().map(|h| h.id.clone()).collect();
        let got = self.get(
            &ids,
            &GetOptions {
                mode: Mode::Excerpt,
                budget: budget.saturating_sub(preamble).max(1),
                cap: opts.cap,
                query: Some(query.to_string()),
            },
        )?;
        if !got.omitted.is_empty() {
            let need = preamble + got.whole;
            let note = format!(
                "{} did not fit with a useful excerpt; {}, or get {} by ID",
                super::counted(got.omitted.len(), "chosen chunk", "chosen chunks"),
                asked.raise_to(need),
                if got.omitted.len() == 1 { "it" } else { "them" }
            );
            evidence.hint = Some(match evidence.hint {
                Some(clamped) => format!("{clamped}; {note}"),
                None => note,
            });
        }
        evidence.used = preamble + got.used;
        evidence.chunks = got.chunks;
        evidence.omitted = got.omitted;
        evidence.search = Some(result);
        Ok(evidence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, score: f32, token_est: usize) -> Hit {
        Hit {
            id: id.into(),
            doc: "src/lib.rs".into(),
            title_path: vec![id.into()],
            preview: String::new(),
            token_est,
            source_path: "src/lib.rs".into(),
            lines: [1, 2],
            score,
            kind: "code".into(),
            part: None,
            symbol: Some(id.into()),
            duplicates: Vec::new(),
            declarations: Vec::new(),
            definitions: Vec::new(),
            boxed: None,
        }
    }

    fn ids(chosen: &[&Hit]) -> Vec<String> {
        chosen.iter().map(|h| h.id.clone()).collect()
    }

    /// The best hit, one near it, two short ones, one over any budget and
    /// one too weak to take, all of chunk kind `kind`.
    fn ranked(kind: &str) -> Vec<Hit> {
        [
            hit("best", 10.0, 500),
            hit("worker", 9.5, 280),
            hit("getter", 6.0, 20),
            hit("setter", 5.9, 25),
            hit("huge", 9.0, 2000),
            hit("weak", 3.0, 10),
        ]
        .map(|h| Hit {
            kind: kind.into(),
            ..h
        })
        .into()
    }

    #[test]
    fn small_sections_cost_a_place_and_the_budget_holds() {
        let hits = ranked("markdown");
        // Four places of 300 tokens: the 280-token section that scores near
        // the best beats the short ones, which score per token alone would
        // take first; what does not fit is passed over; a hit under 0.35 of
        // the best is never taken.
        let chosen = choose(&hits, 1200, 4);
        assert_eq!(ids(&chosen), ["best", "worker", "getter", "setter"]);
        let chosen = choose(&hits, 1200, 2);
        assert_eq!(ids(&chosen), ["best", "worker"]);
        // Places of 150 tokens: per token, the short ones come first, and
        // then the 280 tokens no longer fit.
        let chosen = choose(&hits, 600, 4);
        assert_eq!(ids(&chosen), ["best", "getter", "setter"]);
        assert!(choose(&[], 1200, 4).is_empty());
    }

    #[test]
    fn code_symbols_go_in_rank_order_while_they_fit() {
        let hits = ranked("code");
        // The function that does the work is not traded for two getters
        // that fit beside it in fewer tokens.
        let chosen = choose(&hits, 600, 4);
        assert_eq!(ids(&chosen), ["best", "worker", "getter"]);
        let chosen = choose(&hits, 1200, 3);
        assert_eq!(ids(&chosen), ["best", "worker", "getter"]);
    }
}
