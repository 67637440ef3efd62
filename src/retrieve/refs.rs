//! `refs`: where a name is used. The index names the chunks holding the
//! name's terms; each is confirmed by the name as a whole word in its text,
//! and the lines that have it are listed under the symbol they are in. This
//! is by name, not by type: `new` finds every `new`.

use std::collections::HashSet;

use regex::Regex;
use serde::Serialize;

use super::aliases::Words;
use super::{Budget, Retriever, reading_order};
use crate::chunk::{Chunk, ChunkKind};
use crate::error::{Error, Result};
use crate::tokens::estimate;

/// Lines listed per chunk before the rest are counted.
const LINES_SHOWN: usize = 3;

/// What to look for.
#[derive(Debug, Clone)]
pub struct RefsOptions {
    /// An identifier, or a qualified name whose last part is looked for.
    pub name: String,
    /// The place (file, directory or package) of the one definition whose
    /// uses are wanted, when several files define the name.
    pub file: Option<String>,
    /// Code chunks only (otherwise Markdown too).
    pub code_only: bool,
    /// Token budget of the list.
    pub budget: usize,
    /// The configured hard cap on budgets.
    pub cap: usize,
}

/// The places that use a name.
#[derive(Debug, Clone, Serialize)]
pub struct Refs {
    /// The identifier looked for.
    pub name: String,
    /// The chunks using it, by document and line, within the budget.
    pub refs: Vec<Ref>,
    /// What the budget left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<MoreRefs>,
    /// With `--file`, the document of the definition the uses are of.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// With `--file`, the chunks using the name that mean another definition
    /// (or that nothing ties to this one), not listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub other_meanings: usize,
    /// Chunks using it, in all.
    pub chunks: usize,
    /// Lines using it, in all.
    pub lines: usize,
    /// Estimated tokens of the listed entries.
    pub token_est: usize,
    /// The budget applied.
    pub budget: Budget,
}

/// One chunk that uses the name.
#[derive(Debug, Clone, Serialize)]
pub struct Ref {
    /// Chunk ID (`ctx get` or `ctx symbol` takes it).
    pub id: String,
    /// Document path.
    pub doc: String,
    /// The symbol the chunk belongs to, or its heading path for Markdown.
    pub within: String,
    /// The name the chunk's file imports it as, when the listed lines use
    /// that name (`use a::Name as Alias`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The first lines using the name, by line number.
    pub hits: Vec<RefLine>,
    /// Lines of this chunk using it beyond those listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_lines: usize,
}

/// A line that uses the name.
#[derive(Debug, Clone, Serialize)]
pub struct RefLine {
    /// Its line number in the document.
    pub line: usize,
    /// Its text, trimmed.
    pub text: String,
}

/// The chunks a budget left out.
#[derive(Debug, Clone, Serialize)]
pub struct MoreRefs {
    /// How many.
    pub count: usize,
    /// The budget that lists every chunk.
    pub budget_needed: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Ref {
    /// How a text answer prints it: `[id] doc  within`, then one indented
    /// `line: text` per hit.
    pub fn render(&self) -> String {
        let via = match &self.via {
            Some(alias) => format!("  (as {alias})"),
            None => String::new(),
        };
        let mut out = format!("[{}] {}  {}{via}\n", self.id, self.doc, self.within);
        for hit in &self.hits {
            out.push_str(&format!("  {}: {}\n", hit.line, hit.text));
        }
        if self.more_lines > 0 {
            let n = self.more_lines;
            let lines = if n == 1 { "line" } else { "lines" };
            out.push_str(&format!("  … {n} more {lines}\n"));
        }
        out
    }
}

impl Refs {
    /// What a text answer says when nothing uses the name; `all` is how the
    /// caller adds Markdown (`--all`, `"all": true`), when it has not.
    pub fn none_note(&self, all: Option<&str>) -> String {
        let scope = all.map_or(String::new(), |all| format!(" code ({all} adds Markdown)"));
        format!(
            "no uses of `{}` outside its definition in this pack's{scope}",
            self.name
        )
    }

    /// The line after the list: what the budget left out and the budget
    /// that lists it, or how many lines and chunks use the name (`budget`
    /// and `file` as the caller names them: `--budget`, `"budget":`).
    pub fn summary(&self, budget: &str, file: &str) -> String {
        match &self.more {
            Some(more) => format!(
                "{} of {} chunks using {} listed; {} more need {budget} {}",
                self.refs.len(),
                self.chunks,
                match &self.definition {
                    Some(doc) => format!("the `{}` of {doc}", self.name),
                    None => format!("`{}`", self.name),
                },
                more.count,
                more.budget_needed
            ),
            None => match &self.definition {
                Some(doc) => format!(
                    "{} in {} use the `{}` of {doc}, by the paths their files' imports give it{}",
                    super::counted(self.lines, "line", "lines"),
                    super::counted(self.chunks, "chunk", "chunks"),
                    self.name,
                    match self.other_meanings {
                        0 => String::new(),
                        n => format!(
                            "; {} using the name {} another definition's, or no import ties {} to it",
                            super::counted(n, "other chunk", "other chunks"),
                            if n == 1 { "is" } else { "are" },
                            if n == 1 { "it" } else { "them" }
                        ),
                    }
                ),
                None => format!(
                    "{} in {} use `{}` (by name: same-named items elsewhere count too; {file} picks one definition)",
                    super::counted(self.lines, "line", "lines"),
                    super::counted(self.chunks, "chunk", "chunks"),
                    self.name
                ),
            },
        }
    }
}

impl Retriever {
    /// The chunks that use `opts.name` as a whole word, outside its own
    /// definition, in document and line order, within the budget.
    pub fn refs(&self, opts: &RefsOptions) -> Result<Refs> {
        let budget = Budget::new(opts.budget, opts.cap)?;
        let name = identifier(&opts.name)?;
        let kind = opts.code_only.then_some("code");
        let ids = self.reader.chunks_with_terms_of(name, kind, None)?;
        let mut chunks = self.read_chunks(&ids)?;
        // A file that imports the name as another (`use a::Name as Alias`)
        // uses it wherever it writes the alias.
        let aliases = self.aliases(name, &chunks)?;
        let mut known: HashSet<String> = ids.into_iter().collect();
        for (doc, names) in &aliases {
            for alias in names {
                let more = self.reader.chunks_with_terms_of(alias, kind, Some(doc))?;
                let more: Vec<String> = more
                    .into_iter()
                    .filter(|id| known.insert(id.clone()))
                    .collect();
                chunks.extend(self.read_chunks(&more)?);
            }
        }
        let words = Words::new(name, aliases)?;
        chunks.sort_by(|a, b| {
            reading_order(&a.doc, a.lines[0]).cmp(&reading_order(&b.doc, b.lines[0]))
        });
        let of = match &opts.file {
            Some(place) => Some(self.uses_of_definition(name, place, &chunks, &words)?),
            None => None,
        };
        let mut all: Vec<Ref> = chunks
            .iter()
            .filter(|c| !defines(c, name))
            .filter_map(|c| words.uses(c))
            .collect();
        let by_name = all.len();
        if let Some(ids) = of.as_ref().and_then(|o| o.ids.as_ref()) {
            all.retain(|r| ids.contains(&r.id));
        }
        let chunks = all.len();
        let lines = all.iter().map(|r| r.hits.len() + r.more_lines).sum();
        let costs: Vec<usize> = all.iter().map(|r| estimate(&r.render())).collect();
        let mut token_est = 0;
        let mut shown = 0;
        for cost in &costs {
            if token_est + cost > budget.applied {
                break;
            }
            token_est += cost;
            shown += 1;
        }
        let more = (shown < all.len()).then(|| MoreRefs {
            count: all.len() - shown,
            budget_needed: costs.iter().sum(),
        });
        all.truncate(shown);
        Ok(Refs {
            name: name.to_string(),
            refs: all,
            more,
            other_meanings: by_name - chunks,
            definition: of.map(|o| o.doc),
            chunks,
            lines,
            token_est,
            budget,
        })
    }

    /// The chunks `ids`, read from the catalog (in its order; the caller sorts).
    fn read_chunks(&self, ids: &[String]) -> Result<Vec<Chunk>> {
        self.catalog.read_chunks(|r| r.chunks(ids))
    }
}

/// The identifier `given` names: itself, or the last part of `a::b`,
/// `a.b` or `a->b`.
fn identifier(given: &str) -> Result<&str> {
    let last = given
        .trim()
        .rsplit("::")
        .next()
        .and_then(|s| s.rsplit('.').next())
        .and_then(|s| s.rsplit("->").next())
        .unwrap_or_default();
    let valid = last.starts_with(|c: char| c.is_alphabetic() || c == '_')
        && last.chars().all(|c| c.is_alphanumeric() || c == '_');
    if valid {
        Ok(last)
    } else {
        Err(Error::Invalid(format!(
            "`{given}` is not a name to look for; give an identifier such as `WalkBuilder` or `Walk::new`"
        )))
    }
}

/// Whether `c` is the definition of `name` itself (not an impl block of it).
pub(super) fn defines(c: &Chunk, name: &str) -> bool {
    c.symbol
        .as_ref()
        .is_some_and(|s| s.name == name && s.kind != "impl")
}

/// The lines of `c` that have `word`, as a [`Ref`].
pub(super) fn uses(c: &Chunk, word: &Regex) -> Option<Ref> {
    let mut hits = Vec::new();
    let mut more_lines = 0;
    // A chunk's text is its source lines but for three rewrites: front matter
    // left out of a document's first chunk (fewer lines, missing at the
    // start), a fence re-opened and closed around each part of a split block
    // (one line more at each end), and data URI payloads elided (within a line).
    let span = c.lines[1] + 1 - c.lines[0];
    let count = c.text.lines().count();
    let (first, skip) = if count < span {
        (c.lines[0] + span - count, 0)
    } else if count > span && c.text.starts_with(['`', '~']) {
        (c.lines[0].saturating_sub(1), 1)
    } else {
        (c.lines[0], 0)
    };
    for (i, line) in c.text.lines().enumerate().skip(skip) {
        if !word.is_match(line) || first + i > c.lines[1] {
            continue;
        }
        if hits.len() < LINES_SHOWN {
            hits.push(RefLine {
                line: first + i,
                text: line.trim().to_string(),
            });
        } else {
            more_lines += 1;
        }
    }
    if hits.is_empty() {
        return None;
    }
    let within = match (&c.symbol, c.kind) {
        (Some(s), _) => s.qualified.clone(),
        (None, ChunkKind::Code) => "(between symbols)".to_string(),
        (None, _) => c.title_path.join(" > "),
    };
    Some(Ref {
        id: c.id.clone(),
        doc: c.doc.clone(),
        within,
        via: None,
        hits,
        more_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::super::secondary;
    use super::*;

    fn lines_of(c: &Chunk) -> Vec<(usize, String)> {
        let word = Regex::new(r"\bPolygon\b").expect("regex");
        uses(c, &word)
            .map(|r| r.hits.into_iter().map(|h| (h.line, h.text)).collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_lines_left_out_are_counted_in_words() {
        let r = |more_lines| Ref {
            id: "walk:1b2c3d4e5f".into(),
            doc: "src/walk.rs".into(),
            within: "Walk::next".into(),
            via: None,
            hits: vec![RefLine {
                line: 7,
                text: "let p = Polygon::new();".into(),
            }],
            more_lines,
        };
        assert_eq!(
            r(0).render(),
            "[walk:1b2c3d4e5f] src/walk.rs  Walk::next\n  7: let p = Polygon::new();\n"
        );
        assert!(r(1).render().ends_with("  … 1 more line\n"));
        assert!(r(2).render().ends_with("  … 2 more lines\n"));
    }

    #[test]
    fn a_reopened_fence_is_not_a_source_line() {
        // Part 2 of a split block: lines 10-11 of the file, between a fence
        // re-opened before them and one closed after.
        let mut c = Chunk::sample(
            "guide.md",
            &["Guide"],
            "```rust\nlet p = Polygon::new();\ndraw(Polygon::new());\n```\n",
            ChunkKind::Markdown,
        );
        c.lines = [10, 12];
        assert_eq!(
            lines_of(&c),
            [
                (10, "let p = Polygon::new();".to_string()),
                (11, "draw(Polygon::new());".to_string())
            ]
        );
    }

    #[test]
    fn tests_benches_and_examples_come_after_sources() {
        for doc in [
            "benches/workloads.rs",
            "crates/ignore/tests/gitignore.rs",
            "examples/walk.rs",
            "pkg/cache_test.go",
            "tests/test_server.py",
            "src/app.test.ts",
            "web/button.spec.tsx",
        ] {
            assert!(secondary(doc), "{doc}");
        }
        for doc in [
            "src/walk.rs",
            "src/testing.rs",
            "lib/contest.py",
            "README.md",
        ] {
            assert!(!secondary(doc), "{doc}");
        }
    }

    #[test]
    fn names_are_identifiers_or_their_last_part() {
        assert_eq!(identifier("Walk::new").ok(), Some("new"));
        assert_eq!(identifier("self.items").ok(), Some("items"));
        assert_eq!(identifier("p->next").ok(), Some("next"));
        assert_eq!(identifier(" _private ").ok(), Some("_private"));
        assert!(identifier("9lives").is_err());
        assert!(identifier("Walk::").is_err());
        assert!(identifier("a-b").is_err());
    }
}
