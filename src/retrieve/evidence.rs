//! `evidence`: search, choose hits by score per token within the budget, fetch
//! excerpts, and format one read-only block — one call instead of a search–get loop.

use serde::Serialize;

use super::search::query_notes;
use super::{Budget, Fetched, GetOptions, Mode, Retriever, SearchOptions, SearchResult};
use crate::error::Result;

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
        out
    }
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
        if result.no_evidence {
            return Ok(Evidence {
                query: query.to_string(),
                chunks: Vec::new(),
                no_evidence: true,
                note: result.note.clone(),
                absent: result.absent.clone(),
                packages: result.packages.clone(),
                search: Some(result),
                used: 0,
                budget: asked,
                hint: asked.clamp_note(),
            });
        }
        // The best hit always leads; the rest are taken by score per token while
        // they fit, so many small relevant sections beat one huge one.
        let mut chosen = vec![result.hits[0].clone()];
        let mut rest: Vec<_> = result.hits[1..].to_vec();
        let top = result.hits[0].score.max(f32::EPSILON);
        rest.retain(|h| h.score >= top * 0.35);
        rest.sort_by(|a, b| {
            let da = a.score / a.token_est.max(1) as f32;
            let db = b.score / b.token_est.max(1) as f32;
            db.total_cmp(&da)
        });
        let mut spent = chosen[0].token_est.min(budget / 2);
        for h in rest {
            if chosen.len() >= opts.max_chunks {
                break;
            }
            if spent + h.token_est <= budget {
                spent += h.token_est;
                chosen.push(h);
            }
        }
        let ids: Vec<String> = chosen.iter().map(|h| h.id.clone()).collect();
        let got = self.get(
            &ids,
            &GetOptions {
                mode: Mode::Excerpt,
                budget,
                cap: opts.cap,
                query: Some(query.to_string()),
            },
        )?;
        Ok(Evidence {
            query: query.to_string(),
            absent: result.absent.clone(),
            packages: result.packages.clone(),
            used: got.used,
            chunks: got.chunks,
            no_evidence: false,
            search: Some(result),
            budget: asked,
            hint: asked.clamp_note(),
            note: None,
        })
    }
}
