//! `symbol` (get_symbol / get_window): the exact code node for a name, with
//! context lines around it, within a budget. Several candidates give a list,
//! never a guess; copies of one symbol at other places (compiled `cjs`/`esm`
//! trees) and its declarations (a header's prototype, a `.d.ts` stub) count
//! as one candidate and are named with it.

use std::collections::HashMap;

use serde::Serialize;

use super::attached::{self, Attached, MoreAttached, Owner};
use super::candidates::{Found, Kinds, candidates, canon, in_place};
use super::modpath::{self, Places, candidates_by_path};
use super::outline::{self, Member, MoreMembers};
use super::window::{self, Elided};
use super::{Budget, Duplicate, Retriever};
use crate::chunk::{Chunk, id};
use crate::error::{Error, Result};
use crate::index::{self, packages};
use crate::sources::manifest::{self, MANIFESTS};
use crate::tokens;

/// Parameters of `symbol`.
#[derive(Debug, Clone)]
pub struct SymbolOptions {
    /// `name`, or `Container::name` (`Container.name` works too; in Go
    /// `package.Name` too).
    pub name: String,
    /// Only symbols in this file or directory (its path in the project, or
    /// the end of it).
    pub file: Option<String>,
    /// Lines of context before and after the symbol.
    pub context_lines: usize,
    /// Token budget requested for the window.
    pub budget: usize,
    /// The configured hard cap.
    pub cap: usize,
}

/// One symbol that matches, when several do.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    /// Chunk ID of its (first) chunk.
    pub id: String,
    /// Qualified name.
    pub symbol: String,
    /// function, method, struct, class…
    pub kind: String,
    /// Document path.
    pub doc: String,
    /// The definition's lines.
    pub lines: [usize; 2],
    /// The same code at other places.
    pub duplicates: Vec<Duplicate>,
    /// Its declarations elsewhere (a header's prototype, a `.d.ts` stub).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declarations: Vec<Duplicate>,
    /// The container whose chunk declares it, for a member without a chunk
    /// of its own (`trait ProgressTracker`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<String>,
}

/// The source window of the one symbol that matches.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    /// Chunk ID of its (first) chunk.
    pub id: String,
    /// Qualified name.
    pub symbol: String,
    /// function, method, struct, class…
    pub kind: String,
    /// Document path.
    pub doc: String,
    /// The definition's lines.
    pub symbol_lines: [usize; 2],
    /// The lines shown: the definition and its context, less what the budget cut.
    pub lines: [usize; 2],
    /// Their text.
    pub text: String,
    /// Token estimate of what is shown: `text`, and `members` or
    /// `attached` with their IDs and lines.
    pub token_est: usize,
    /// Whether the budget cut the window short of `wanted_to`.
    pub truncated: bool,
    /// The last line the window would show with budget to spare.
    #[serde(skip)]
    pub wanted_to: usize,
    /// The same code at other places.
    pub duplicates: Vec<Duplicate>,
    /// Its declarations elsewhere (a header's prototype, a `.d.ts` stub).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declarations: Vec<Duplicate>,
    /// The container whose chunk declares it, for a member without a chunk
    /// of its own (a required method, a prototype, a field): `trait
    /// ProgressTracker`. `id` is then the chunk holding its lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<String>,
    /// Token estimate of the whole window (the definition and its context).
    pub full_token_est: usize,
    /// When a container is over the budget: its members, one signature each,
    /// in file order, after its header in `text`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// Members the budget left out, after the last one in `members`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_members: Option<MoreMembers>,
    /// A type's impl blocks and methods defined outside its node, after
    /// `text`, while the budget lasts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attached: Vec<Attached>,
    /// Entries of `attached` the budget left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_attached: Option<MoreAttached>,
    /// Doc comment lines left out so the code fits (a `[…]` line in `text`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elided: Option<Elided>,
    /// Budget asked and applied.
    pub budget: Budget,
    /// What to do about clamping, when the budget was over the cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Window {
    /// "method Walk::next", or an impl block's header alone
    /// (`impl Iterator for Walk`), which already says what it is.
    pub fn label(&self) -> String {
        if let Some(container) = &self.declared_in {
            return format!("{} {} (declared in {container})", self.kind, self.symbol);
        }
        // `impl<'s> Worker<'s>` says what it is too.
        if self
            .symbol
            .strip_prefix(&self.kind)
            .is_some_and(|rest| rest.starts_with([' ', '<']))
        {
            self.symbol.clone()
        } else {
            format!("{} {}", self.kind, self.symbol)
        }
    }
}

/// The answer to `symbol`.
#[derive(Debug, Clone)]
pub enum SymbolAnswer {
    /// Exactly one symbol matched.
    Window(Box<Window>),
    /// Several did: choose with a file or a qualified name.
    Choices(Choices),
}

/// The symbols to choose from when several match.
#[derive(Debug, Clone, Serialize)]
pub struct Choices {
    /// Every one that matched, in document order.
    pub candidates: Vec<Candidate>,
    /// For a list longer than a screen ([`LONG_LIST`]), a name by a place
    /// that picks one of them (`anyhow::Error`, `tar.Reader`), checked to
    /// answer alone: how to write the one wanted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub for_example: Option<String>,
}

/// Candidates shown before the rest are counted.
pub const LONG_LIST: usize = 20;

impl Retriever {
    /// The symbol `opts.name` stands for (a name, `impl Trait for Type` or a
    /// chunk ID; exact match first, then case-insensitive): its window
    /// within the budget, its outline when it is a container over the budget,
    /// or the candidates to choose from.
    pub fn symbol(&self, opts: &SymbolOptions) -> Result<SymbolAnswer> {
        let budget = Budget::new(opts.budget, opts.cap)?;
        let file = opts.file.as_deref().map(|f| self.place(f)).transpose()?;
        let file = file.as_deref();
        let (mut found, pool) = self.select(opts.name.trim(), file)?;
        if found.len() > 1 {
            let candidates: Vec<Candidate> = found
                .into_iter()
                .map(|f| Candidate {
                    symbol: f.shown_name(),
                    id: f.whole.id,
                    kind: f.kind,
                    doc: f.whole.doc,
                    lines: f.lines,
                    duplicates: f.copies,
                    declarations: f.declarations,
                    declared_in: f.declared_in,
                })
                .collect();
            let by_name = !opts.name.trim().starts_with("impl ");
            let for_example = match by_name && candidates.len() > LONG_LIST {
                true => self.example_by_place(&candidates, &pool)?,
                false => None,
            };
            return Ok(SymbolAnswer::Choices(Choices {
                candidates,
                for_example,
            }));
        }
        let Some(f) = found.pop() else {
            if let Some(f) = file
                && let Some(e) = self.not_indexed(f, f)?
            {
                return Err(e);
            }
            // A mistyped `--file` is the mistake, not the name.
            if let Some(f) = file
                && !self.catalog.files()?.keys().any(|doc| in_place(doc, f))
            {
                return Err(Error::Invalid(format!(
                    "--file `{}` matches no indexed file: give a path in the project as search prints it (`src/walk.rs`), the end of one (`walk.rs`) or a directory (`src/`)",
                    f.escape_debug()
                )));
            }
            let next = match shorter_name(&pool, opts.name.trim(), file) {
                Some((name, found)) => format!(
                    "`ctx symbol {name}` names {} in {}",
                    super::counted(found.len(), "symbol", "symbols"),
                    places(&found)
                ),
                None => {
                    let search = format!("try `ctx search \"{}\" --kind code`", opts.name);
                    let similar = self.similar_names(opts.name.trim(), file)?;
                    match similar.is_empty() {
                        true => search,
                        false => format!("similar names: {}; or {search}", similar.join(", ")),
                    }
                }
            };
            return Err(Error::Invalid(format!(
                "no symbol `{}`{} in this pack; {next}",
                opts.name,
                file.map(|f| format!(" in `{f}`")).unwrap_or_default(),
            )));
        };
        // The file as the pack last saw it (a code file's chunks tile it
        // verbatim), not as it is on disk now: the symbol's lines are the
        // pack's, and a pack answers without its sources (`--no-build` after
        // an edit, a pack built elsewhere).
        let mut chunks = Vec::new();
        self.catalog.for_each_chunk_of(&f.whole.doc, |c| {
            chunks.push(c.clone());
            Ok(())
        })?;
        let source: String = chunks.iter().map(|c| c.text.as_str()).collect();
        let rows: Vec<&str> = source.split_inclusive('\n').collect();
        let first = f.lines[0].saturating_sub(opts.context_lines).max(1);
        let wanted_to = (f.lines[1] + opts.context_lines).min(rows.len());
        let wanted = rows.get(first - 1..wanted_to).unwrap_or_default();
        let full_token_est = tokens::estimate(&wanted.concat());
        // A declared member's text is in whichever part of its container
        // holds its lines.
        let id = match f.declared_in {
            Some(_) => outline::part_holding(&chunks, f.lines[0]).map_or(&f.whole.id, |c| &c.id),
            None => &f.whole.id,
        };
        let mut window = Window {
            id: id.clone(),
            symbol: f.shown_name(),
            kind: f.kind.clone(),
            doc: f.whole.doc.clone(),
            symbol_lines: f.lines,
            lines: [first, first.saturating_sub(1)],
            text: String::new(),
            token_est: 0,
            truncated: false,
            wanted_to,
            duplicates: f.copies.clone(),
            declarations: f.declarations.clone(),
            declared_in: f.declared_in.clone(),
            full_token_est,
            members: Vec::new(),
            more_members: None,
            attached: Vec::new(),
            more_attached: None,
            elided: None,
            hint: budget.clamp_note(),
            budget,
        };
        // What is attached to a type (its impl blocks, methods defined
        // outside it) is its container's, not a declared member's.
        let list = match f.kind != "impl" && f.declared_in.is_none() {
            true => {
                let name = f.whole.symbol.as_ref().map_or("", |s| s.name.as_str());
                let owner = Owner {
                    name,
                    qualified: &f.qualified,
                    kind: &f.kind,
                    doc: &f.whole.doc,
                    lines: f.lines,
                };
                // For an ID, `select` read only the chunk's own file.
                let pool = match id::parse(opts.name.trim()) {
                    Some(_) => self.named(name)?,
                    None => pool,
                };
                let named = |key: &str| self.reader.symbols_named(key);
                attached::collect(
                    &self.catalog,
                    &named,
                    self.root_names(),
                    &owner,
                    f.whole.symbol.as_ref(),
                    pool,
                )?
            }
            false => Vec::new(),
        };
        // A container over the budget is shown as its outline (its header,
        // then one signature per member) when that names more members than
        // its first screenful shows whole. The outline would take all of the
        // budget, leaving what is attached out; so the list keeps up to a
        // third of it, and more budget never shows less of the list.
        let cut = window::cut(wanted, first, f.lines[0], budget.applied);
        let list = attached::Priced::new(list, &f.qualified, &f.whole.doc);
        let whole_list = list.whole();
        let reserve = whole_list.min(budget.applied / 3);
        let outline = (full_token_est > budget.applied)
            .then(|| outline::outline(&f, &chunks, &rows, budget.applied - reserve, cut.last))
            .flatten();
        // What the window needs beside the whole list: the type's text, or
        // with an outline at least twice the list, so that the list's third
        // holds all of it.
        let mut window_whole = full_token_est;
        if let Some(o) = outline {
            window.text = o.text;
            window.lines = o.lines;
            window.token_est = o.token_est;
            window.truncated = true;
            window.members = o.members;
            // The members left out need the outline's budget and the list's
            // share beside it: all of the list, or half the outline's.
            window.more_members = o.more.map(|mut more| {
                more.budget_needed += whole_list.min(more.budget_needed.div_ceil(2));
                more
            });
            window_whole = (2 * whole_list).max(budget.applied - reserve);
        } else {
            window.text = cut.text;
            window.lines[1] = cut.last;
            window.token_est = cut.token_est;
            window.elided = cut.elided;
            window.truncated = window.lines[1] < wanted_to;
        }
        let (list, cost, more) = list.fit(budget.applied, window.token_est, window_whole);
        window.attached = list;
        window.token_est += cost;
        window.more_attached = more;
        Ok(SymbolAnswer::Window(Box::new(window)))
    }

    /// A `--file` value as a place in the project: a path or the end of
    /// one, or a name a package's manifest declares (`grep-searcher`), read
    /// as that package's directory.
    pub(super) fn place(&self, given: &str) -> Result<String> {
        // A scoped npm name (`@acme/core`) has a `/` but is no path.
        if (!given.contains('/') || given.starts_with('@'))
            && let Some(dir) = packages::declared_dir(given, &self.catalog.packages()?)
        {
            return Ok(dir.to_string());
        }
        Ok(self.project_path(given).into_owned())
    }

    /// The symbols `name` stands for: a chunk ID (the symbol that chunk
    /// belongs to), `impl Type` or `impl Trait for Type` (impl blocks only), or
    /// a name, `Container::name` or Go's `package.Name` (exact first, then
    /// case-insensitive), in `file` when given. Also returns the chunks it
    /// chose among.
    fn select(&self, name: &str, file: Option<&str>) -> Result<(Vec<Found>, Vec<Chunk>)> {
        if id::parse(name).is_some() {
            return self.select_by_id(name);
        }
        let (kinds, name) = match name.strip_prefix("impl ") {
            Some(rest) => match rest.trim().split_once(" for ") {
                Some((t, ty)) => (Kinds::Impls(Some(t.trim())), ty.trim()),
                None => (Kinds::Impls(None), rest.trim()),
            },
            None => (Kinds::Definitions, name),
        };
        let last = canon(name).rsplit('.').next().unwrap_or("").to_string();
        if last.is_empty() {
            return Err(Error::Invalid(
                "give a symbol name, e.g. `build`, `WalkBuilder::build`, `impl Iterator for Walk` or a chunk ID".into(),
            ));
        }
        let pool = self.named(&last)?;
        let found = self.select_in(&pool, name, file, kinds)?;
        Ok((found, pool))
    }

    /// The symbols of `pool` that `name` stands for: exactly, then ASCII
    /// case aside, then read as a path.
    fn select_in(
        &self,
        pool: &[Chunk],
        name: &str,
        file: Option<&str>,
        kinds: Kinds<'_>,
    ) -> Result<Vec<Found>> {
        let mut found = candidates(pool, name, file, false, kinds);
        if found.is_empty() {
            found = candidates(pool, name, file, true, kinds);
        }
        if found.is_empty() && matches!(kinds, Kinds::Definitions) && !pool.is_empty() {
            let packages = self.catalog.packages()?;
            let mut places = Places::new(&packages, self.root_names());
            found = candidates_by_path(pool, name, file, kinds, &mut places);
        }
        Ok(found)
    }

    /// The names the project root goes by, which a path may start with: its
    /// directory's (a Python package's root holds its `__init__.py`) and
    /// those its own manifests declare (the crate a root `src/` builds).
    pub(super) fn root_names(&self) -> Vec<String> {
        let own = self
            .seg
            .root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        own.into_iter()
            .chain(
                MANIFESTS
                    .iter()
                    .filter_map(|m| manifest::declared_name(&self.seg.root.join(m), m)),
            )
            .collect()
    }

    /// A name that picks one of `found` by its place: its package's name
    /// before it in Rust (`anyhow::Error`), its directory's elsewhere
    /// (`tar.Reader`). Places that hold one candidate are tried in order,
    /// and the first whose name answers alone in `pool` (the chunks read for
    /// the name's last part, which the example shares) is given.
    fn example_by_place(&self, found: &[Candidate], pool: &[Chunk]) -> Result<Option<String>> {
        let packages = self.catalog.packages()?;
        let place = |c: &Candidate| -> Option<(String, &str)> {
            if c.doc.ends_with(".rs") {
                let package = packages::holding(&c.doc, &packages)?;
                Some((packages::dir_name(&package.dir)?, "::"))
            } else {
                let dir = c.doc.rsplit_once('/')?.0;
                Some((dir.rsplit('/').next()?.to_string(), "."))
            }
        };
        let placed: Vec<(String, &str, &Candidate)> = found
            .iter()
            .filter_map(|c| place(c).map(|(at, sep)| (at, sep, c)))
            .collect();
        let mut held: HashMap<&str, usize> = HashMap::new();
        for (at, _, _) in &placed {
            *held.entry(at).or_default() += 1;
        }
        let tries = placed
            .iter()
            .filter(|(at, _, c)| c.declared_in.is_none() && held.get(at.as_str()) == Some(&1))
            .take(3);
        for (at, sep, c) in tries {
            let name = format!("{at}{sep}{}", c.symbol);
            if self.select_in(pool, &name, None, Kinds::Definitions)?.len() == 1 {
                return Ok(Some(name));
            }
        }
        Ok(None)
    }

    /// The symbol chunks that may answer to `name` (a name's last part): those
    /// the index lists under its key. A name without letters or digits has no
    /// key, and no symbol answers to it.
    fn named(&self, name: &str) -> Result<Vec<Chunk>> {
        let key = index::name_key(name);
        if key.is_empty() {
            return Ok(Vec::new());
        }
        self.catalog.chunks_by_id(&self.reader.symbols_named(&key)?)
    }

    /// The symbol whose chunk `id` is (a part of a split one, a method, an
    /// impl block), whole.
    fn select_by_id(&self, id: &str) -> Result<(Vec<Found>, Vec<Chunk>)> {
        let (c, _) = self.lookup(id)?;
        let Some(sym) = &c.symbol else {
            return Err(Error::Invalid(format!(
                "chunk `{id}` is not a code symbol (it is in `{}`, lines {}-{}); use `ctx get {id}` for its text",
                c.doc, c.lines[0], c.lines[1]
            )));
        };
        // The chunk's own document holds the whole symbol: no need to scan
        // every symbol of the pack for its name.
        let mut pool = Vec::new();
        self.catalog.for_each_chunk_of(&c.doc, |x| {
            pool.push(x.clone());
            Ok(())
        })?;
        let found = candidates(&pool, &sym.qualified, Some(&c.doc), false, Kinds::All);
        let found = found
            .into_iter()
            .filter(|f| {
                f.whole.id == c.id
                    || (f.kind == sym.kind
                        && f.whole.lines[0] <= c.lines[0]
                        && c.lines[1] <= f.lines[1].max(f.whole.lines[1]))
            })
            .take(1)
            .collect();
        Ok((found, pool))
    }
}

/// For a name no path made sense of (`clap::Command::new`, when clap
/// re-exports `clap_builder`'s), its longest tail that names symbols, spelled
/// as given (`Command::new`), with them.
fn shorter_name(pool: &[Chunk], name: &str, file: Option<&str>) -> Option<(String, Vec<Found>)> {
    let separator = if name.contains("::") { "::" } else { "." };
    modpath::splits(&canon(name))
        .into_iter()
        .find_map(|(_, rest)| {
            let found = candidates(pool, &rest, file, true, Kinds::Definitions);
            (!found.is_empty()).then(|| (rest.replace('.', separator), found))
        })
}

/// Up to three documents `found` are in, and how many more.
fn places(found: &[Found]) -> String {
    let mut docs: Vec<&str> = found.iter().map(|f| f.whole.doc.as_str()).collect();
    docs.dedup();
    let shown: Vec<String> = docs.iter().take(3).map(|d| format!("`{d}`")).collect();
    match docs.len().saturating_sub(3) {
        0 => shown.join(", "),
        more => format!(
            "{} and {more} more {}",
            shown.join(", "),
            if more == 1 { "file" } else { "files" }
        ),
    }
}
