//! `ctx eval`: retrieval quality on a labelled query set (JSON lines).
//!
//! Line schema: `{"qid", "query", "kind": "keyword|question|none", "targets":
//! [{"doc", "title_path"}]}`. A hit is relevant when its `doc` equals a target's
//! and the target's normalized title path is a prefix of the hit's.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::{Cli, open};
use crate::error::Error;
use crate::rerank::VectorCounts;
use crate::retrieve::coverage::{DEFAULT_MIN_COVERAGE, min_coverage_for};
use crate::retrieve::{DEFAULT_BUDGET, Hit, Retriever, SearchOptions, evidence};
use crate::surface::mcp::params::DEFAULT_MAX_CHUNKS;
use crate::surface::output::Printer;

/// Arguments of `ctx eval`.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    /// The query file (JSON lines).
    pub queries: PathBuf,
    /// Coverage below which a search abstains.
    #[arg(long, default_value_t = DEFAULT_MIN_COVERAGE)]
    pub min_coverage: f32,
    /// List the queries that missed.
    #[arg(long)]
    pub details: bool,
    /// Print abstention rates for a range of coverage thresholds.
    #[arg(long)]
    pub sweep: bool,
    /// Do not build or refresh the pack first.
    #[arg(long)]
    pub no_build: bool,
    #[command(flatten)]
    pub rerank: super::search::RerankArgs,
}

#[derive(Debug, Deserialize)]
struct Query {
    qid: String,
    query: String,
    kind: String,
    #[serde(default)]
    targets: Vec<Target>,
}

/// A relevant section (`doc` + `title_path` prefix) or code symbol (`file` +
/// qualified `symbol`, `::` and `.` separators equivalent).
#[derive(Debug, Deserialize)]
struct Target {
    #[serde(default, alias = "file")]
    doc: String,
    #[serde(default)]
    title_path: Vec<String>,
    #[serde(default)]
    symbol: Option<String>,
}

/// The metrics `ctx eval` prints.
#[derive(Debug, Serialize)]
pub struct Metrics {
    queries: usize,
    answerable: usize,
    unanswerable: usize,
    hit_at_5: f64,
    recall_at_5: f64,
    mrr_at_10: f64,
    abstained_on_unanswerable: f64,
    abstained_on_answerable: f64,
    median_latency_ms: f64,
    median_tokens_to_evidence: f64,
    /// Share of answerable queries whose `ctx evidence` block (default budget
    /// and chunk count) holds a relevant chunk.
    evidence_hit: f64,
    /// Median tokens of those blocks (before excerpts trim them to the budget).
    median_evidence_tokens: f64,
    min_coverage: f32,
    /// The sentence encoder that re-ranked the hits, if any.
    rerank_model: Option<PathBuf>,
    /// Where its vectors came from: a warm cache makes latency a lookup's.
    #[serde(skip_serializing_if = "Option::is_none")]
    rerank_vectors: Option<VectorCounts>,
}

fn norm(path: &[String]) -> Vec<String> {
    path.iter().map(|h| norm_one(h)).collect()
}

/// A heading with inline markup stripped, whitespace collapsed, case folded.
fn norm_one(heading: &str) -> String {
    heading
        .replace(['`', '*'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether `hit`, or a copy folded into it, is the target: a copy sits at the
/// same place within its own document, so the hit names it for the reader.
fn relevant(hit: &Hit, t: &Target) -> bool {
    let at = |doc: &str| {
        if doc != t.doc {
            return false;
        }
        if let Some(symbol) = &t.symbol {
            let canon = |s: &str| s.replace("::", ".");
            return hit.symbol.as_deref().map(canon) == Some(canon(symbol));
        }
        let (tp, mut hp) = (norm(&t.title_path), norm(&hit.title_path));
        // A code chunk's path starts with its own file.
        if hit.title_path.first() == Some(&hit.doc) && !hp.is_empty() {
            hp[0] = norm_one(doc);
        }
        hp.len() >= tp.len() && hp[..tp.len()] == tp[..]
    };
    at(&hit.doc) || hit.duplicates.iter().any(|d| at(&d.doc))
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

struct Outcome<'a> {
    q: &'a Query,
    hits: Vec<Hit>,
    coverage: f32,
    /// Words of the query no text of the scope searched holds.
    absent: Vec<String>,
    ms: f64,
}

pub(super) fn eval(cli: &Cli, p: &Printer, args: &EvalArgs) -> anyhow::Result<ExitCode> {
    let (seg, settings) = open(cli)?;
    super::search::refresh(&seg, &settings, args.no_build, p)?;
    let text = std::fs::read_to_string(&args.queries)
        .map_err(|e| Error::io("cannot read", &args.queries, e))?;
    let mut queries = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let q: Query = serde_json::from_str(line).map_err(|e| {
            Error::Invalid(format!("{} line {}: {e}", args.queries.display(), i + 1))
        })?;
        queries.push(q);
    }
    let r = args.rerank.apply(Retriever::open(&seg)?, &seg, &settings)?;
    let opts = SearchOptions {
        k: 10,
        min_coverage: 0.0,
        ..SearchOptions::default()
    };
    let mut outcomes = Vec::with_capacity(queries.len());
    for q in &queries {
        let t = Instant::now();
        let res = r.search(&q.query, &opts)?;
        outcomes.push(Outcome {
            q,
            hits: res.hits,
            coverage: res.coverage,
            absent: res.absent,
            ms: t.elapsed().as_secs_f64() * 1000.0,
        });
    }
    let m = Metrics {
        rerank_model: r.reranker.as_ref().map(|x| x.dir().to_path_buf()),
        rerank_vectors: r.reranker.as_ref().map(|x| x.counts()),
        ..metrics(&outcomes, args.min_coverage)
    };
    if args.sweep && !p.json {
        p.text("coverage  abstain(unanswerable)  abstain(answerable)  hit@5\n");
        for step in 0..=16 {
            let th = 0.30 + step as f32 * 0.025;
            let s = metrics(&outcomes, th);
            p.text(&format!(
                "{th:8.3}  {:21.3}  {:19.3}  {:.3}\n",
                s.abstained_on_unanswerable, s.abstained_on_answerable, s.hit_at_5
            ));
        }
    }
    if p.json {
        p.json(&m);
    } else {
        p.text(&format!(
            "queries {} ({} answerable, {} unanswerable)\nhit@5 {:.3}\nrecall@5 {:.3}\nMRR@10 {:.3}\nabstained on unanswerable {:.3}\nabstained on answerable {:.3}\nmedian latency {:.2} ms\nmedian tokens-to-evidence {:.0}\nevidence hit {:.3} (median {:.0} tokens)\n",
            m.queries, m.answerable, m.unanswerable, m.hit_at_5, m.recall_at_5, m.mrr_at_10,
            m.abstained_on_unanswerable, m.abstained_on_answerable, m.median_latency_ms,
            m.median_tokens_to_evidence, m.evidence_hit, m.median_evidence_tokens
        ));
        if let (Some(dir), Some(v)) = (&m.rerank_model, m.rerank_vectors) {
            p.text(&format!(
                "re-ranked by {} ({} vectors encoded, {} from the cache)\n",
                dir.display(),
                v.encoded,
                v.cached
            ));
        }
    }
    if args.details {
        for o in &outcomes {
            let abstain = o.abstains(args.min_coverage);
            let answerable = o.q.kind != "none";
            let rank = first_relevant(o, 5);
            let bad = (answerable && (abstain || rank.is_none())) || (!answerable && !abstain);
            if bad {
                let top: Vec<String> = o
                    .hits
                    .iter()
                    .take(3)
                    .map(|h| {
                        // A code chunk's path starts with its file, already named.
                        let path = match h.title_path.split_first() {
                            Some((file, rest)) if *file == h.doc => rest,
                            _ => &h.title_path[..],
                        };
                        if path.is_empty() {
                            h.doc.clone()
                        } else {
                            format!("{} > {}", h.doc, path.join(" > "))
                        }
                    })
                    .collect();
                let absent = if o.absent.is_empty() {
                    String::new()
                } else {
                    format!(" absent {:?}", o.absent)
                };
                p.text(&format!(
                    "MISS {} [{}] cov {:.2}{}{} {:?}\n  top: {}\n",
                    o.q.qid,
                    o.q.kind,
                    o.coverage,
                    absent,
                    if abstain { " (abstained)" } else { "" },
                    o.q.query,
                    top.join(" | ")
                ));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

impl Outcome<'_> {
    /// Whether search would say "no evidence" at threshold `min_coverage`.
    fn abstains(&self, min_coverage: f32) -> bool {
        self.hits.first().is_none_or(|h| {
            self.coverage < min_coverage_for(&h.kind, min_coverage, &self.q.query, &self.absent)
        })
    }
}

fn first_relevant(o: &Outcome<'_>, within: usize) -> Option<usize> {
    o.hits
        .iter()
        .take(within)
        .position(|h| o.q.targets.iter().any(|t| relevant(h, t)))
}

fn metrics(outcomes: &[Outcome<'_>], min_coverage: f32) -> Metrics {
    let (mut hit5, mut recall5, mut mrr, mut abst_a, mut abst_u) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut n_a, mut n_u) = (0usize, 0usize);
    let mut tte = Vec::new();
    let (mut ev_hit, mut ev_tokens) = (0.0, Vec::new());
    for o in outcomes {
        let abstain = o.abstains(min_coverage);
        if o.q.kind == "none" {
            n_u += 1;
            if abstain {
                abst_u += 1.0;
            }
            continue;
        }
        n_a += 1;
        if abstain {
            abst_a += 1.0;
            continue;
        }
        if first_relevant(o, 5).is_some() {
            hit5 += 1.0;
        }
        let block = evidence::choose(&o.hits, DEFAULT_BUDGET, DEFAULT_MAX_CHUNKS);
        if block
            .iter()
            .any(|h| o.q.targets.iter().any(|t| relevant(h, t)))
        {
            ev_hit += 1.0;
        }
        ev_tokens.push(block.iter().map(|h| h.token_est).sum::<usize>() as f64);
        let found =
            o.q.targets
                .iter()
                .filter(|t| o.hits.iter().take(5).any(|h| relevant(h, t)))
                .count();
        recall5 += found as f64 / o.q.targets.len().max(1) as f64;
        if let Some(r) = first_relevant(o, 10) {
            mrr += 1.0 / (r + 1) as f64;
            tte.push(o.hits[..=r].iter().map(|h| h.token_est as f64).sum());
        }
    }
    let a = n_a.max(1) as f64;
    Metrics {
        queries: outcomes.len(),
        answerable: n_a,
        unanswerable: n_u,
        hit_at_5: hit5 / a,
        recall_at_5: recall5 / a,
        mrr_at_10: mrr / a,
        abstained_on_unanswerable: abst_u / n_u.max(1) as f64,
        abstained_on_answerable: abst_a / a,
        median_latency_ms: median(outcomes.iter().map(|o| o.ms).collect()),
        median_tokens_to_evidence: median(tte),
        evidence_hit: ev_hit / a,
        median_evidence_tokens: median(ev_tokens),
        min_coverage,
        rerank_model: None,
        rerank_vectors: None,
    }
}
