//! `get`: chunks by ID within a token budget, with backpressure: what does not fit
//! is named with its size and a hint, never silently dropped.

use serde::Serialize;

use super::allot::{Allotment, Need};
use super::file_outline::{Nesting, entry_cost, header_cost, outline_line_at};
pub use super::parts::PartOf;
use super::parts::Placed;
use super::{Budget, Retriever, excerpt};
use crate::chunk::{Chunk, id};
use crate::error::{Error, Result};
use crate::tokens;

/// How much of each chunk to return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Whole chunks; what does not fit is omitted.
    Raw,
    /// Chunks trimmed to fit, around the query's words.
    #[default]
    Excerpt,
    /// Heading path and first lines (signatures for code).
    Skeleton,
}

/// Parameters of `get`.
#[derive(Debug, Clone)]
pub struct GetOptions {
    /// Returned text as a whole.
    pub mode: Mode,
    /// Token budget requested.
    pub budget: usize,
    /// The configured hard cap.
    pub cap: usize,
    /// Words to center excerpts on.
    pub query: Option<String>,
}

/// A returned chunk.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    /// The ID served (may differ from the one asked for when it was stale).
    pub id: String,
    /// Document path.
    pub doc: String,
    /// Heading path.
    pub title_path: Vec<String>,
    /// Line range in the source file.
    pub lines: [usize; 2],
    /// The text returned (whole, excerpt or skeleton).
    pub text: String,
    /// What showing it costs: the token estimate of `text` and of the
    /// line naming it (of an outline entry: its ID and lines).
    pub token_est: usize,
    /// Token estimate of the whole chunk.
    pub full_token_est: usize,
    /// Whether `text` is less than the whole chunk.
    pub trimmed: bool,
    /// Set when the requested ID was stale and this is its successor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// An entry of a file's outline (a file path asked for in skeleton mode).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub outline: bool,
    /// Set when the chunk is one part of a block or symbol split into
    /// several: which part, and the parts next to it this answer lacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<PartOf>,
}

/// A requested chunk that did not fit.
#[derive(Debug, Clone, Serialize)]
pub struct Omitted {
    /// Chunk ID.
    pub id: String,
    /// Its size.
    pub token_est: usize,
    /// Its document.
    pub doc: String,
    /// Its lines there.
    pub lines: [usize; 2],
    /// Whether it was asked for as part of a whole file.
    #[serde(skip)]
    pub of_file: bool,
    /// Its place among the chunks asked for: omitted chunks with a shown
    /// one between them are not one run.
    #[serde(skip)]
    pub seq: usize,
}

impl Omitted {
    fn of(c: &Chunk, of_file: bool, seq: usize) -> Omitted {
        Omitted {
            id: c.id.clone(),
            token_est: c.token_est,
            doc: c.doc.clone(),
            lines: c.lines,
            of_file,
            seq,
        }
    }

    /// One line per omitted chunk asked for by ID, and one per run of a
    /// file's chunks (a 5,000-line file must not list 300 IDs).
    pub fn lines(omitted: &[Omitted]) -> Vec<String> {
        let mut out = Vec::new();
        let mut i = 0;
        while i < omitted.len() {
            let o = &omitted[i];
            let run = omitted[i..]
                .iter()
                .enumerate()
                .take_while(|(k, x)| x.of_file && o.of_file && x.doc == o.doc && x.seq == o.seq + k)
                .count()
                .max(1);
            if run == 1 {
                out.push(format!(
                    "omitted {} (~{} tokens): over budget",
                    o.id, o.token_est
                ));
            } else {
                let last = &omitted[i + run - 1];
                let tokens: usize = omitted[i..i + run].iter().map(|x| x.token_est).sum();
                out.push(format!(
                    "omitted {run} chunks of {} (lines {}-{}, ~{tokens} tokens, from {}): over budget",
                    o.doc, o.lines[0], last.lines[1], o.id
                ));
            }
            i += run;
        }
        out
    }
}

/// The answer to `get`.
#[derive(Debug, Clone, Serialize)]
pub struct GetResult {
    /// Returned chunks, in request order.
    pub chunks: Vec<Fetched>,
    /// Chunks left out for lack of budget.
    pub omitted: Vec<Omitted>,
    /// Budget asked and applied.
    pub budget: Budget,
    /// Tokens returned.
    pub used: usize,
    /// What to do about omissions or clamping.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// What showing every chunk asked for whole would cost.
    #[serde(skip)]
    pub whole: usize,
}

impl Retriever {
    /// Resolves one requested ID: the chunk, or its successor when stale.
    pub fn lookup(&self, requested: &str) -> Result<(Chunk, Option<String>)> {
        if id::parse(requested).is_none() {
            return Err(Error::Invalid(format!(
                "`{}` is not a chunk ID; {}. Use `ctx search` to find them",
                requested.escape_debug(),
                super::locate::ID_SHAPE
            )));
        }
        if let Some(c) = self.catalog.chunk(requested)? {
            return Ok((c, None));
        }
        if let Some(r) = self.catalog.retired(requested)? {
            return match self.catalog.chunk_at(&r.doc, &r.title_path, r.ordinal)? {
                Some(c) => Ok((c, Some(requested.to_string()))),
                None => Err(Error::Invalid(format!(
                    "chunk `{requested}` is stale: its section `{}` of `{}` no longer exists; run `ctx search` again",
                    r.title_path.join(" > "),
                    r.doc
                ))),
            };
        }
        let stem = requested.rsplit_once(':').map(|(s, _)| s).unwrap_or("");
        let near = self.catalog.ids_with_stem(stem, 3)?;
        let hint = if near.is_empty() {
            "use `ctx search` to find IDs".to_string()
        } else {
            format!(
                "IDs of `{}` include {}",
                near[0].doc,
                near.iter()
                    .map(|m| format!("`{}`", m.id))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        Err(Error::Invalid(format!(
            "unknown chunk ID `{requested}`: it is not in this pack; {hint}"
        )))
    }

    /// Chunks by ID (or every chunk of a named file, or of some of its
    /// lines) within the budget.
    pub fn get(&self, ids: &[String], opts: &GetOptions) -> Result<GetResult> {
        if ids.is_empty() {
            return Err(Error::Invalid(
                "no IDs given; pass one or more chunk IDs".into(),
            ));
        }
        let budget = Budget::new(opts.budget, opts.cap)?;
        let mut found = Vec::with_capacity(ids.len());
        let mut errors = Vec::new();
        for requested in ids {
            match self.expand(requested) {
                Ok(x) => found.extend(x),
                Err(e) => errors.push(e.to_string()),
            }
        }
        if !errors.is_empty() {
            return Err(Error::Invalid(errors.join("\n")));
        }
        // A chunk asked for twice (an ID repeated, overlapping lines, a
        // stale ID whose successor is also asked for) is returned once, where
        // it was first asked for: the budget pays for it once.
        let mut seen = std::collections::HashSet::new();
        found.retain(|(c, _, _)| seen.insert(c.id.clone()));
        let terms = opts
            .query
            .as_deref()
            .map(|q| self.reader.query_terms(q))
            .unwrap_or_default();
        // Skeletons are computed up front: when they all fit, none is
        // trimmed; when they do not, a whole file becomes an outline of
        // signatures and headings, taken in order while the budget lasts.
        let skeletons: Vec<String> = match opts.mode {
            Mode::Skeleton => self.skeletons(&found)?,
            _ => Vec::new(),
        };
        // An outline entry is shown with its ID and lines, which cost as
        // much as a short signature, and each file's entries under a line
        // naming it: they count against the budget too.
        let full_cost: usize = skeletons
            .iter()
            .zip(&found)
            .enumerate()
            .map(|(i, (s, (c, _, of_file)))| {
                let first_of_file =
                    *of_file && (i == 0 || !found[i - 1].2 || found[i - 1].0.doc != c.doc);
                let entry = if *of_file {
                    entry_cost(&c.id, c.lines, s)
                } else {
                    tokens::estimate(s) + heading_cost(c)
                };
                entry
                    + if first_of_file {
                        header_cost(&c.doc)
                    } else {
                        0
                    }
            })
            .sum();
        let all_fit = full_cost <= budget.applied;
        let mut compact = false;
        let mut remaining = budget.applied;
        let mut chunks = Vec::new();
        let mut omitted = Vec::new();
        // Files whose chunks stopped fitting: the rest of each is omitted, so
        // what is shown of a file is a prefix of it, not a sample.
        let mut exhausted: Vec<String> = Vec::new();
        let n = found.len();
        // What the omitted chunks would cost as this mode shows them.
        let mut short = 0;
        // What every chunk costs shown whole, each under the line naming it:
        // the budget a raw or excerpt answer needs to leave nothing out.
        let mut whole = 0;
        // A raw file cut to fit: its path and the last line shown.
        let mut cut: Option<(String, usize)> = None;
        // A raw file whose first line alone is over what is left: its path
        // and what that line needs.
        let mut first_line: Option<(String, usize)> = None;
        let mut nesting = Nesting::default();
        // Where each returned chunk sits, for [`Retriever::place_parts`].
        let mut placed: Vec<Placed> = Vec::new();
        let readable: Vec<String> = match opts.mode {
            Mode::Excerpt => found
                .iter()
                .map(|(c, _, _)| super::readable(c).into_owned())
                .collect(),
            _ => Vec::new(),
        };
        let allotment = (opts.mode == Mode::Excerpt).then(|| {
            let needs: Vec<Need> = found
                .iter()
                .zip(&readable)
                .map(|((c, _, of_file), text)| Need {
                    fixed: heading_cost(c),
                    text: tokens::estimate(text),
                    matched: held(text, &terms),
                    file: of_file.then(|| c.doc.clone()),
                })
                .collect();
            Allotment::new(&needs, budget.applied)
        });
        for (i, (c, replaces, of_file)) in found.into_iter().enumerate() {
            let outline = of_file && opts.mode == Mode::Skeleton;
            // The line naming a chunk (and its part note) is printed with
            // it, so it is paid for like its text; an outline entry's ID and
            // lines are in its own cost.
            let heading = if outline { 0 } else { heading_cost(&c) };
            whole += heading
                + match opts.mode {
                    Mode::Excerpt => tokens::estimate(&readable[i]),
                    _ => c.token_est,
                };
            let share = match (opts.mode, &allotment) {
                (Mode::Excerpt, Some(a)) if a.admitted(i) => a.share(i, remaining),
                (Mode::Excerpt, _) => {
                    // Left out for a useful excerpt of those shown.
                    omitted.push(Omitted::of(&c, of_file, i));
                    continue;
                }
                (Mode::Raw, _) => remaining.saturating_sub(heading),
                (Mode::Skeleton, _) => (remaining / (n - i).max(1)).saturating_sub(heading),
            };
            let mut text = match opts.mode {
                Mode::Raw => c.text.clone(),
                Mode::Excerpt => excerpt::excerpt(&readable[i], &terms, share),
                // Nothing of it is shape: a later part of a body elided in
                // its first.
                Mode::Skeleton if of_file && skeletons[i].is_empty() => continue,
                Mode::Skeleton if all_fit => skeletons[i].clone(),
                Mode::Skeleton if of_file => {
                    compact = true;
                    let line = outline_line_at(&c, nesting.depth(&c));
                    if line.is_empty() {
                        // Text between symbols and later parts of a split
                        // one: the hint says the outline leaves them out.
                        continue;
                    }
                    line
                }
                Mode::Skeleton => excerpt::excerpt(&skeletons[i], &terms, share),
            };
            // The file's path heads its first shown entry
            // ([`Fetched::outline_text`]), so that entry pays for it.
            let headed = outline
                && chunks
                    .last()
                    .is_none_or(|p: &Fetched| !p.outline || p.doc != c.doc);
            let cost = |text: &str| {
                if outline {
                    entry_cost(&c.id, c.lines, text)
                } else {
                    tokens::estimate(text) + heading
                }
            };
            let mut est = cost(&text) + if headed { header_cost(&c.doc) } else { 0 };
            let after_cut = of_file && exhausted.contains(&c.doc);
            // A raw file over the budget is cut to its first lines, rather
            // than answered with nothing; the rest of it is omitted.
            if opts.mode == Mode::Raw && of_file && !after_cut && est > remaining {
                match excerpt::prefix(&c.text, share) {
                    Ok((first, shown)) => {
                        cut = Some((c.doc.clone(), c.lines[0] + shown.saturating_sub(1)));
                        text = first;
                        est = cost(&text);
                    }
                    Err(need) => {
                        first_line.get_or_insert((c.doc.clone(), need + heading));
                    }
                }
            }
            let empty = tokens::estimate(&text) == 0 && !c.text.is_empty();
            if after_cut || est > remaining || empty {
                omitted.push(Omitted::of(&c, of_file, i));
                short += est.max(1);
                if of_file && !after_cut {
                    exhausted.push(c.doc.clone());
                }
                continue;
            }
            remaining -= est;
            placed.push(Placed {
                bytes: c.bytes,
                part: c.part.filter(|_| !outline),
            });
            chunks.push(Fetched {
                trimmed: text != c.text,
                id: c.id,
                doc: c.doc,
                title_path: c.title_path,
                lines: c.lines,
                token_est: est,
                full_token_est: c.token_est,
                text,
                replaces,
                outline,
                part: None,
            });
        }
        self.place_parts(&mut chunks, &placed)?;
        let used = budget.applied - remaining;
        if chunks.is_empty()
            && let Some((doc, need)) = &first_line
        {
            // Not even a first line fits: an empty answer with exit 0 would
            // read as an empty file.
            return Err(Error::Invalid(format!(
                "`{doc}`: not even its first line fits the budget of {} tokens as raw text; {}, or use --mode excerpt or --mode skeleton",
                budget.applied,
                budget.raise_to(*need)
            )));
        }
        let mut hints = Vec::new();
        if let Some(note) = budget.clamp_note() {
            hints.push(note);
        }
        if compact {
            hints.push(format!(
                "the outline shows headings and signatures only, to fit (first lines, doc comments and the code between symbols are left out); the full skeleton needs {}",
                budget.flag(full_cost)
            ));
        }
        if let Some((doc, line)) = &cut {
            hints.push(format!(
                "`{doc}` is cut after line {line} to fit; {} for all of it, or use --mode excerpt (with --query for the lines about it) or --mode skeleton for its outline",
                budget.raise_to(whole)
            ));
        }
        if compact && !omitted.is_empty() {
            hints.push(format!(
                "{} {} {}",
                super::counted(omitted.len(), "more outline entry", "more outline entries"),
                super::needs(omitted.len()),
                budget.flag(used + short)
            ));
        } else if !omitted.is_empty() && cut.is_none() {
            let need = match opts.mode {
                Mode::Skeleton => used + short,
                _ => whole,
            };
            let file = omitted.iter().any(|o| o.of_file);
            let instead = match opts.mode {
                Mode::Raw if file => {
                    "or use --mode excerpt, or --mode skeleton for a file's outline"
                }
                Mode::Raw => "or use --mode excerpt, or narrow the search",
                _ if file => "or use --mode skeleton for a file's outline",
                _ => "or ask for fewer IDs",
            };
            hints.push(format!(
                "{} chunk(s) did not fit; {}, {instead}",
                omitted.len(),
                budget.raise_to(need)
            ));
        }
        Ok(GetResult {
            chunks,
            omitted,
            budget,
            used,
            hint: (!hints.is_empty()).then(|| hints.join("; ")),
            whole,
        })
    }
}

impl Fetched {
    /// What a text answer shows after a chunk's `[ID]`: its title path,
    /// place and size, and whether it is trimmed.
    pub fn label(&self) -> String {
        label(
            &self.title_path,
            &self.doc,
            self.lines,
            self.token_est,
            self.trimmed,
        )
    }
}

/// [`Fetched::label`] of these fields.
fn label(
    title_path: &[String],
    doc: &str,
    lines: [usize; 2],
    tokens: usize,
    trimmed: bool,
) -> String {
    format!(
        "{} ({doc}:{}-{}, ~{tokens} tokens{})",
        title_path.join(" > "),
        lines[0],
        lines[1],
        if trimmed { ", trimmed" } else { "" }
    )
}

/// What the lines printed around a chunk's text cost: the line naming it
/// (as trimmed, with its whole size for the count it shows) with the
/// blank line after it, and the note a part of a split block may get,
/// with IDs as long as its own. One token more pays for the seam: the
/// estimate of two texts joined can exceed the sum of theirs by one where
/// they meet (a 90-token answer printed 91 without it).
fn heading_cost(c: &Chunk) -> usize {
    let line = format!(
        "[{}] {}\n\n",
        c.id,
        label(&c.title_path, &c.doc, c.lines, c.token_est, true)
    );
    let part = c.part.map_or(0, |[i, n]| {
        tokens::estimate(&format!(
            "[part {i} of {n}; previous part: {}; next part: {}]\n",
            c.id, c.id
        ))
    });
    tokens::estimate(&line) + part + 1
}

/// How many of `terms` (lowercase stems or words) `text` holds.
fn held(text: &str, terms: &[String]) -> usize {
    let lower = text.to_lowercase();
    terms
        .iter()
        .filter(|t| !t.is_empty() && lower.contains(t.as_str()))
        .count()
}
