//! Programmer abbreviations and everyday synonyms, expanded at query time.
//!
//! Code names things `dir`, `cfg`, `buf`; a question says "directory",
//! "configuration", "buffer" (and the other way round). BM25 matches words, so
//! the two never meet. Each group below lists spellings of one word that code
//! and prose use interchangeably; a query word in a group also searches for the
//! group's other spellings, with less weight than the word itself.
//!
//! The table is general programming vocabulary, not any corpus's: each entry is
//! an abbreviation common across languages and code bases. Ambiguous short forms
//! (`def`: define or default, `res`: result, resource or response, `term`: word
//! or terminal) are left out, since a wrong expansion costs more than a missed
//! one.
//!
//! Synonyms ([`SYNONYMS`]) expand the same way, but unlike an abbreviation a
//! synonym is another word: it ranks a chunk, and does not count as the query's
//! word being answered (coverage, abstention).
//!
//! Irregular inflections ([`FORMS`]) are spellings of one word that the
//! stemmer leaves apart: "broken" stems to `broken`, "break" to `break`, so a
//! question about a broken lock missed docs that say how a lock is broken
//! only as "break". They join the group of their base form, as the same word.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use super::tokenizer;

/// Groups of interchangeable spellings. Every spelling's stem belongs to one
/// group only (checked by a test).
const GROUPS: &[&[&str]] = &[
    &["dir", "directory", "folder"],
    &["cfg", "conf", "config", "configuration"],
    &["init", "initialize", "initialization"],
    &["len", "length"],
    &["num", "number"],
    &["str", "string"],
    &["buf", "buffer"],
    &["idx", "index"],
    &["msg", "message"],
    &["err", "error"],
    &["env", "environment"],
    &["arg", "argument"],
    &["param", "parameter"],
    &["repo", "repository"],
    &["fn", "func", "function"],
    &["ptr", "pointer"],
    &["ref", "reference"],
    &["val", "value"],
    &["var", "variable"],
    &["max", "maximum"],
    &["min", "minimum"],
    &["tmp", "temp", "temporary"],
    &["src", "source"],
    &["dst", "dest", "destination"],
    &["opt", "option"],
    &["iter", "iterator"],
    &["alloc", "allocate", "allocation"],
    &["impl", "implementation"],
    &["spec", "specification"],
    &["sep", "separator"],
    &["pos", "position"],
    &["prev", "previous"],
    &["cur", "curr", "current"],
    &["attr", "attribute"],
    &["ident", "identifier"],
    &["db", "database"],
    &["doc", "document"],
    &["info", "information"],
    &["lib", "library"],
    &["pkg", "package"],
    &["req", "request"],
    &["resp", "response"],
    &["ctx", "context"],
    &["cmd", "command"],
    &["desc", "description"],
    &["elem", "element"],
    &["expr", "expression"],
    &["fmt", "format"],
    &["addr", "address"],
    &["conn", "connection"],
    &["col", "column"],
    &["char", "chr", "character"],
    &["cnt", "count"],
    &["calc", "calculate"],
    &["cmp", "compare", "comparison"],
    &["dep", "dependency"],
    &["ext", "extension"],
    &["hdr", "header"],
    &["lang", "language"],
    &["mem", "memory"],
    &["mgr", "manager"],
    &["obj", "object"],
    &["proc", "process"],
    &["prop", "property"],
    &["recv", "receive"],
    &["sys", "system"],
    &["util", "utility"],
    &["abs", "absolute"],
    &["rel", "relative"],
    &["seq", "sequence"],
    &["stmt", "statement"],
    &["tbl", "table"],
    &["tok", "token"],
    &["txt", "text"],
    &["usr", "user"],
    &["ver", "version"],
    &["auth", "authentication"],
    &["sync", "synchronize", "synchronous"],
    &["async", "asynchronous"],
    &["dup", "duplicate"],
    &["gen", "generate"],
    &["mut", "mutable"],
    &["perm", "permission"],
    &["exe", "executable"],
    &["dbg", "debug"],
];

/// Everyday synonyms of developer questions and docs: a question says
/// "upgrade" or "remove" where the docs say "update" or "uninstall". General
/// vocabulary again; words with a second, technical sense in common languages
/// or tools (`clone`, `print`, `panic`, `issue`, `parallel`) are left out.
const SYNONYMS: &[&[&str]] = &[
    &["update", "upgrade"],
    &["remove", "del", "delete", "uninstall", "erase"],
    &["start", "begin", "launch"],
    &["stop", "halt", "terminate"],
    &["show", "display"],
    &["change", "modify", "alter", "edit"],
    &["check", "verify", "validate"],
    &["find", "search", "locate", "lookup"],
    &["combine", "merge"],
    &["split", "divide"],
    &["allow", "permit"],
    &["forbid", "prohibit", "disallow"],
    &["big", "large", "huge"],
    &["small", "tiny"],
    &["fast", "quick"],
    &["enable", "activate"],
    &["disable", "deactivate"],
    &["limit", "restrict"],
    &["build", "compile"],
    &["deprecated", "obsolete", "outdated"],
    &["latest", "newest"],
    &["create", "construct"],
    &["fetch", "retrieve", "obtain"],
    &["empty", "blank"],
    &["example", "sample"],
];

/// Irregular inflections: the base form first, then the forms the stemmer
/// does not bring back to it. Forms with a second common sense in code or docs
/// are left out: `bound` (trait bounds), `left`, `led`, `lay`, `saw`, `went`
/// and `gone` (`go`), `got` (`get`), `leaves` (stems as `leave`), `won`, and
/// Latin plurals (`indices` stems as `indicate` does).
const FORMS: &[&[&str]] = &[
    &["break", "broke", "broken"],
    &["build", "built"],
    &["rebuild", "rebuilt"],
    &["find", "found"],
    &["write", "wrote", "written"],
    &["rewrite", "rewrote", "rewritten"],
    &["override", "overrode", "overridden"],
    &["choose", "chose", "chosen"],
    &["take", "took", "taken"],
    &["hide", "hid", "hidden"],
    &["give", "gave", "given"],
    &["drive", "drove", "driven"],
    &["throw", "threw", "thrown"],
    &["freeze", "froze", "frozen"],
    &["forbid", "forbade", "forbidden"],
    &["begin", "began", "begun"],
    &["show", "shown"],
    &["know", "knew", "known"],
    &["grow", "grew", "grown"],
    &["draw", "drew", "drawn"],
    &["fall", "fell", "fallen"],
    &["forget", "forgot", "forgotten"],
    &["steal", "stole", "stolen"],
    &["tear", "tore", "torn"],
    &["wake", "woke", "woken"],
    &["shrink", "shrank", "shrunk"],
    &["speak", "spoke", "spoken"],
    &["run", "ran"],
    &["send", "sent"],
    &["spend", "spent"],
    &["keep", "kept"],
    &["hold", "held"],
    &["lose", "lost"],
    &["sleep", "slept"],
    &["sweep", "swept"],
    &["deal", "dealt"],
    &["hang", "hung"],
    &["pay", "paid"],
    &["sell", "sold"],
    &["tell", "told"],
    &["say", "said"],
    &["make", "made"],
    &["seek", "sought"],
    &["teach", "taught"],
    &["think", "thought"],
    &["bring", "brought"],
    &["buy", "bought"],
    &["catch", "caught"],
    &["understand", "understood"],
    &["withhold", "withheld"],
    &["undo", "undone"],
    &["child", "children"],
];

/// One spelling of a group: its stem (for stemmed fields) and its lowercase
/// form (for identifier and path fields).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Stemmed form.
    pub stem: String,
    /// Unstemmed, lowercase form.
    pub plain: String,
    /// Which word of its group it spells: spellings of one word (`dir`,
    /// `directory`; `break`, `broken`) share it, synonyms do not.
    word: usize,
    /// An irregular inflection ([`FORMS`]) rather than a base form.
    form: bool,
}

struct Table {
    /// Every spelling of each group.
    groups: Vec<Vec<Variant>>,
    /// Group of each spelling's stem.
    by_stem: HashMap<String, usize>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        // Every entry is one lowercase, non-stop word: one term. Built at a
        // search's first query, so without an analyzer: its set-up and token
        // streams cost 0.3 ms of every search process.
        let stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
        let stem = |w: &str| tokenizer::term_of(w, true, &stemmer);
        let mut t = Table {
            groups: Vec::with_capacity(GROUPS.len() + SYNONYMS.len()),
            by_stem: HashMap::new(),
        };
        let mut words = 0;
        for (n, spellings) in GROUPS.iter().chain(SYNONYMS).enumerate() {
            let g = t.groups.len();
            t.groups.push(Vec::with_capacity(spellings.len()));
            for w in *spellings {
                // A synonym group's entries are words of their own.
                if n >= GROUPS.len() || w == &spellings[0] {
                    words += 1;
                }
                if let Some(s) = stem(w) {
                    t.add(g, s, w, words, false);
                }
            }
        }
        for forms in FORMS {
            let Some(base) = stem(forms[0]) else { continue };
            let (g, word) = match t.by_stem.get(&base) {
                Some(&g) => (g, word_of(&t.groups[g], &base).unwrap_or(words)),
                None => {
                    t.groups.push(Vec::new());
                    words += 1;
                    (t.groups.len() - 1, words)
                }
            };
            for (n, w) in forms.iter().enumerate() {
                if let Some(s) = stem(w) {
                    t.add(g, s, w, word, n > 0);
                }
            }
        }
        t
    })
}

impl Table {
    /// Adds spelling `plain` (stem `stem`) of word `word` to group `g`, once.
    fn add(&mut self, g: usize, stem: String, plain: &str, word: usize, form: bool) {
        self.by_stem.entry(stem.clone()).or_insert(g);
        if !self.groups[g].iter().any(|v| v.stem == stem) {
            self.groups[g].push(Variant {
                stem,
                plain: plain.to_string(),
                word,
                form,
            });
        }
    }
}

/// The word that stem `stem` spells in `group`.
fn word_of(group: &[Variant], stem: &str) -> Option<usize> {
    group.iter().find(|v| v.stem == stem).map(|v| v.word)
}

/// Every spelling in the group of the stemmed `term` (empty when it has none).
pub fn variants(term: &str) -> &'static [Variant] {
    let t = table();
    t.by_stem.get(term).map_or(&[], |&g| t.groups[g].as_slice())
}

/// The other spellings of stemmed `term`, each with whether it is a synonym
/// (another word) rather than a spelling of the same word.
pub fn spellings_of(term: &str) -> impl Iterator<Item = (&'static Variant, bool)> {
    let group = variants(term);
    let own = word_of(group, term);
    group
        .iter()
        .filter(move |v| v.stem != term)
        .map(move |v| (v, Some(v.word) != own))
}

/// The other spellings of the stemmed query `terms`, each once, leaving out
/// spellings the query already has.
pub fn expand(terms: &[String]) -> Vec<Variant> {
    expand_parts(terms, &HashSet::new(), 1.0)
        .into_iter()
        .map(|(v, _)| v)
        .collect()
}

/// [`expand`] with each spelling's weight: `part_weight` for the spellings of
/// words that occur only as `parts` of an identifier the query names, 1 for the
/// others. A spelling stands for the same word as its term, so it weighs what
/// that term does (measured: k8s MRR 0.642 -> 0.644, no other eval change).
pub fn expand_parts(
    terms: &[String],
    parts: &HashSet<String>,
    part_weight: f32,
) -> Vec<(Variant, f32)> {
    let t = table();
    let mut out: Vec<(Variant, f32)> = Vec::new();
    for term in terms {
        let Some(&g) = t.by_stem.get(term) else {
            continue;
        };
        let w = if parts.contains(term) {
            part_weight
        } else {
            1.0
        };
        let own = word_of(&t.groups[g], term);
        for v in &t.groups[g] {
            // A synonym's inflections are two steps from the query's word:
            // "starts" searched "began" and lost a KEP query to the noise.
            if terms.contains(&v.stem) || (v.form && Some(v.word) != own) {
                continue;
            }
            // A spelling of both a part and a word of its own counts in full.
            match out.iter_mut().find(|(o, _)| o == v) {
                Some((_, seen)) => *seen = seen.max(w),
                None => out.push((v.clone(), w)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_stem_belongs_to_one_group() {
        let mut analyzer = tokenizer::stemmed();
        let stemmer = frostem::Stemmer::new(frostem::Algorithm::English);
        let mut seen: HashMap<String, &str> = HashMap::new();
        for words in GROUPS.iter().chain(SYNONYMS).chain(FORMS) {
            let mut stems: Vec<String> = Vec::new();
            for w in *words {
                let toks = tokenizer::analyze(&mut analyzer, w);
                assert_eq!(toks.len(), 1, "`{w}` must analyze to one token");
                // The table is built with `term_of`, which must agree.
                assert!(table().by_stem.contains_key(&toks[0]), "`{w}`");
                assert_eq!(
                    tokenizer::term_of(w, true, &stemmer).as_ref(),
                    Some(&toks[0]),
                    "`{w}`"
                );
                if !stems.contains(&toks[0]) {
                    stems.push(toks[0].clone());
                }
            }
            // Forms join their base form's group: only the base may be seen.
            let forms = FORMS.contains(words);
            for (n, s) in stems.into_iter().enumerate() {
                if forms && n == 0 {
                    continue;
                }
                if let Some(other) = seen.insert(s.clone(), words[0]) {
                    panic!(
                        "stem `{s}` is in the groups of `{other}` and `{}`",
                        words[0]
                    );
                }
            }
        }
    }

    #[test]
    fn irregular_forms_are_the_same_word_and_keep_their_synonyms() {
        let got = |term: &str| -> Vec<(String, bool)> {
            spellings_of(term)
                .map(|(v, synonym)| (v.plain.clone(), synonym))
                .collect()
        };
        let s = |w: &str, syn: bool| (w.to_string(), syn);
        assert_eq!(got("broken"), [s("break", false), s("broke", false)]);
        assert_eq!(got("break"), [s("broke", false), s("broken", false)]);
        // `built` is `build`, and a synonym of `compile` as `build` is.
        assert_eq!(got("built"), [s("build", false), s("compile", true)]);
        assert!(got("compil").contains(&s("built", true)));
        assert!(got("bound").is_empty());
    }

    #[test]
    fn expands_both_ways_without_repeating_the_query() {
        let mut a = tokenizer::stemmed();
        let q = tokenizer::analyze(&mut a, "directories of the config");
        let plain: Vec<String> = expand(&q).into_iter().map(|v| v.plain).collect();
        assert_eq!(plain, ["dir", "folder", "cfg", "conf", "configuration"]);
        let q = tokenizer::analyze(&mut a, "dir cfg");
        let plain: Vec<String> = expand(&q).into_iter().map(|v| v.plain).collect();
        assert_eq!(
            plain,
            ["directory", "folder", "conf", "config", "configuration"]
        );
        assert!(expand(&tokenizer::analyze(&mut a, "walker symlink")).is_empty());
        let q = tokenizer::analyze(&mut a, "upgrade it");
        let plain: Vec<String> = expand(&q).into_iter().map(|v| v.plain).collect();
        assert_eq!(plain, ["update"]);
        assert!(spellings_of(&q[0]).all(|(_, synonym)| synonym));
    }

    #[test]
    fn spellings_of_an_identifier_part_weigh_what_the_part_does() {
        let terms = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let parts: HashSet<String> = ["max", "dir"].iter().map(|s| s.to_string()).collect();
        let weights = |q: &[String]| -> Vec<(String, f32)> {
            expand_parts(q, &parts, 0.4)
                .into_iter()
                .map(|(v, w)| (v.plain, w))
                .collect()
        };
        // `max_dir` names `dir` only as a part.
        let q = terms(&["max_dir", "max", "dir", "string"]);
        assert_eq!(
            weights(&q),
            [
                ("maximum".to_string(), 0.4),
                ("directory".to_string(), 0.4),
                ("folder".to_string(), 0.4),
                ("str".to_string(), 1.0)
            ]
        );
        // Here `dir` is a word of its own too, so it and its spellings count
        // in full; `parts` says which words occur *only* as parts.
        let parts_only_max: HashSet<String> = ["max".to_string()].into();
        let got: Vec<f32> = expand_parts(&terms(&["max_dir", "max", "dir"]), &parts_only_max, 0.4)
            .into_iter()
            .map(|(_, w)| w)
            .collect();
        assert_eq!(got, [0.4, 1.0, 1.0]);
    }
}
