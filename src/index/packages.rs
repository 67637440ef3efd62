//! The packages a query names. In a workspace or monorepo a question often
//! says which member it is about ("in regex-syntax, how is a class negated"),
//! while neighbouring members answer the same words (regex-automata parses
//! classes too). A query word, or up to three adjacent ones, that is a
//! package's name makes the chunks of the other packages rank below that
//! package's; the index finds a package's records by its documents' paths.
//! A package is known by its directory's name (its version suffix dropped)
//! and by each name its manifests declare (`crates/searcher` is also
//! `grep-searcher`), with `-` and `_` alike and case folded.

use std::collections::HashMap;

use tantivy::schema::IndexRecordOption;
use tantivy::{BitSet, DocSet};

use super::index_err;
use super::query_words::{is_question_word, straight_apostrophes};
use super::reader::IndexReader;
use super::tokenizer::is_stop_word;
use crate::error::Result;
use crate::sources::Package;

/// The most adjacent query words read as one package name (`tantivy query
/// grammar` is `tantivy-query-grammar`).
const NAME_WORDS: usize = 3;

/// A one-word name shorter than this is too likely an ordinary word
/// (`io`, `os`) to scope a query.
const MIN_NAME_BYTES: usize = 3;

/// What a query says about packages: the directories it names and the
/// query without the words that named them.
#[derive(Debug, Default, PartialEq)]
pub struct Named {
    /// Package directories, each with a trailing `/`, sorted.
    pub dirs: Vec<String>,
    /// The query with the naming words blanked out.
    pub rest: String,
}

/// The packages among `packages` (as the walk found them) that `query`
/// names.
pub fn named(query: &str, packages: &[Package]) -> Named {
    let query = straight_apostrophes(query);
    if packages.is_empty() {
        return Named {
            dirs: Vec::new(),
            rest: query,
        };
    }
    let mut by_name: HashMap<String, Vec<&str>> = HashMap::new();
    for p in packages {
        let declared = p.names.iter().map(|n| declared_key(n));
        for name in dir_name(&p.dir).into_iter().chain(declared) {
            let dirs = by_name.entry(name).or_default();
            if !dirs.contains(&p.dir.as_str()) {
                dirs.push(&p.dir);
            }
        }
    }
    let words = words(&query);
    let mut found: Vec<String> = Vec::new();
    let mut rest = query.clone();
    let mut i = 0;
    while i < words.len() {
        // The longest run first: "regex syntax" is regex-syntax, not regex.
        let matched = (1..=NAME_WORDS.min(words.len() - i)).rev().find_map(|n| {
            let run = &words[i..i + n];
            if n == 1 && (run[0].key.len() < MIN_NAME_BYTES || is_common(&run[0].key)) {
                return None;
            }
            let name: Vec<&str> = run.iter().map(|w| w.key.as_str()).collect();
            by_name.get(&name.join("_")).map(|dirs| (n, dirs))
        });
        match matched {
            Some((n, dirs)) => {
                found.extend(dirs.iter().map(|d| format!("{d}/")));
                let (start, end) = with_punctuation(&rest, words[i].start, words[i + n - 1].end);
                rest.replace_range(start..end, &" ".repeat(end - start));
                i += n;
            }
            None => i += 1,
        }
    }
    found.sort();
    found.dedup();
    Named { dirs: found, rest }
}

impl IndexReader {
    /// The records of documents under any of the directories `prefixes`
    /// (each ending in `/`), by segment; `None` without prefixes. Read from
    /// the document field's sorted terms: one range per prefix.
    pub(super) fn under(&self, prefixes: &[String]) -> Result<Option<Vec<BitSet>>> {
        if prefixes.is_empty() {
            return Ok(None);
        }
        let err = |e: &dyn std::fmt::Display| index_err(&self.dir, e);
        let mut out = Vec::new();
        for segment in self.searcher.segment_readers() {
            let inverted = segment
                .inverted_index(self.fields.doc)
                .map_err(|e| err(&e))?;
            // A package can hold a tenth of a large tree's chunks: a bitset
            // is filled and read faster than a hash set of that many.
            let mut docs = BitSet::with_max_value(segment.max_doc());
            for prefix in prefixes {
                // `/` + 1 is `0`: the first path past every `prefix…`.
                let end = format!("{}0", &prefix[..prefix.len() - 1]);
                let mut terms = inverted
                    .terms()
                    .range()
                    .ge(prefix.as_bytes())
                    .lt(end.as_bytes())
                    .into_stream()
                    .map_err(|e| err(&e))?;
                while terms.advance() {
                    let mut postings = inverted
                        .read_postings_from_terminfo(terms.value(), IndexRecordOption::Basic)
                        .map_err(|e| err(&e))?;
                    while postings.doc() != tantivy::TERMINATED {
                        docs.insert(postings.doc());
                        postings.advance();
                    }
                }
            }
            out.push(docs);
        }
        Ok(Some(out))
    }
}

/// `start..end` of `text` widened over the punctuation attached to it
/// (`alpha:`, `(alpha)`), which alone would read as an operator.
fn with_punctuation(text: &str, start: usize, end: usize) -> (usize, usize) {
    let attached = |c: char| !c.is_whitespace() && !c.is_alphanumeric();
    let before = text[..start]
        .chars()
        .rev()
        .take_while(|&c| attached(c))
        .map(char::len_utf8)
        .sum::<usize>();
    let after = text[end..]
        .chars()
        .take_while(|&c| attached(c))
        .map(char::len_utf8)
        .sum::<usize>();
    (start - before, end + after)
}

/// The name a package directory is known by: its last component without a
/// version suffix (`serde_json-1.0.154`, `toml-1.2.1+spec-1.1.0`), folded
/// by [`key`].
pub fn dir_name(dir: &str) -> Option<String> {
    let last = dir.rsplit('/').next()?;
    let mut parts: Vec<&str> = last.split('-').collect();
    while parts.len() > 1
        && parts
            .last()
            .is_some_and(|p| p.starts_with(|c: char| c.is_ascii_digit()))
    {
        parts.pop();
    }
    let name = key(&parts.join("-"));
    (!name.is_empty()).then_some(name)
}

/// The innermost package holding `doc`, if any but the root.
pub fn holding<'a>(doc: &str, packages: &'a [Package]) -> Option<&'a Package> {
    packages
        .iter()
        .filter(|p| {
            doc.strip_prefix(p.dir.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|p| p.dir.len())
}

/// The directory of the one package that declares the name `name`
/// (`grep-searcher` is `crates/searcher`), in any spelling a query may use.
pub fn declared_dir<'a>(name: &str, packages: &'a [Package]) -> Option<&'a str> {
    let wanted = declared_key(name);
    let mut found = packages
        .iter()
        .filter(|p| p.names.iter().any(|n| declared_key(n) == wanted));
    match (found.next(), found.next()) {
        (Some(p), None) => Some(&p.dir),
        _ => None,
    }
}

/// The names `package` declares that its directory's name does not already
/// say (`grep-searcher` for `crates/searcher`, not `regex` for `crates/regex`).
pub fn aliases(package: &Package) -> Vec<&str> {
    let own = dir_name(&package.dir);
    package
        .names
        .iter()
        .filter(|n| own.as_deref() != Some(declared_key(n).as_str()))
        .map(String::as_str)
        .collect()
}

/// A declared package name folded by [`key`], a scope's `@` and `/` read
/// as the word break a query puts there (`@babel/core` is `babel core`).
pub fn declared_key(name: &str) -> String {
    key(&name.trim_start_matches('@').replace('/', "_"))
}

/// `word` case folded, with `-` read as `_` (a crate is `regex-syntax` on
/// disk and `regex_syntax` in code).
pub fn key(word: &str) -> String {
    word.to_lowercase().replace('-', "_")
}

/// A word of a query: its byte range (a possessive `'s` included) and its
/// [`key`].
struct Word {
    start: usize,
    end: usize,
    key: String,
}

/// The query's words: split at whitespace and at punctuation other than `-`,
/// `_`, `.` and `'` inside a word, a possessive `'s` dropped from the key.
fn words(query: &str) -> Vec<Word> {
    let inner = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '\'');
    let mut out = Vec::new();
    let mut at = 0;
    for piece in query.split(|c: char| !inner(c)) {
        let start = at
            + (piece.len()
                - piece
                    .trim_start_matches(|c: char| !c.is_alphanumeric())
                    .len());
        at += piece.len()
            + query[at + piece.len()..]
                .chars()
                .next()
                .map_or(0, char::len_utf8);
        let word = piece.trim_matches(|c: char| !c.is_alphanumeric());
        let end = start + word.len();
        let word = word.strip_suffix("'s").unwrap_or(word);
        if !word.is_empty() {
            out.push(Word {
                start,
                end,
                key: key(word),
            });
        }
    }
    out
}

/// A word that shapes a sentence rather than naming anything.
fn is_common(word: &str) -> bool {
    is_stop_word(word) || is_question_word(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(list: &[&str]) -> Vec<Package> {
        list.iter()
            .map(|d| Package {
                dir: d.to_string(),
                names: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn a_declared_name_names_its_directory_too() {
        let ws = vec![
            Package::declaring("crates/searcher", &["grep-searcher"]),
            Package::declaring("query-grammar", &["tantivy-query-grammar"]),
            Package::declaring("packages/core", &["@babel/core"]),
            Package::declaring("crates/regex", &["regex"]),
        ];
        for (q, want) in [
            (
                "in grep-searcher, how are binary files detected",
                "crates/searcher/",
            ),
            ("grep_searcher binary detection", "crates/searcher/"),
            ("the searcher crate's binary detection", "crates/searcher/"),
            ("tantivy-query-grammar: parse a range", "query-grammar/"),
            (
                "how does tantivy query grammar parse a range",
                "query-grammar/",
            ),
            ("query grammar range", "query-grammar/"),
            ("@babel/core config loading", "packages/core/"),
            ("babel core config loading", "packages/core/"),
            ("regex cache", "crates/regex/"),
        ] {
            assert_eq!(named(q, &ws).dirs, [want], "{q}");
        }
        let n = named("in grep-searcher, how?", &ws);
        assert_eq!(n.rest, format!("in {} how?", " ".repeat(14)));
        assert_eq!(declared_dir("grep_searcher", &ws), Some("crates/searcher"));
        assert_eq!(declared_dir("@babel/core", &ws), Some("packages/core"));
        assert_eq!(declared_dir("searcher", &ws), None);
        let twice = [
            Package::declaring("a/x", &["x"]),
            Package::declaring("b/x", &["x"]),
        ];
        assert_eq!(declared_dir("x", &twice), None);
        let aliases: Vec<Vec<&str>> = ws.iter().map(aliases).collect();
        assert_eq!(
            aliases,
            [
                vec!["grep-searcher"],
                vec!["tantivy-query-grammar"],
                vec!["@babel/core"],
                vec![]
            ]
        );
    }

    #[test]
    fn a_named_member_is_found_in_any_spelling() {
        let ws = dirs(&["crates/regex", "crates/regex-syntax", "crates/toml_edit"]);
        for q in [
            "in regex-syntax, how is a class negated?",
            "regex_syntax negated class",
            "how does Regex-Syntax negate a class",
            "regex syntax: negated class",
            "regex-syntax's class negation",
        ] {
            assert_eq!(named(q, &ws).dirs, ["crates/regex-syntax/"], "{q}");
        }
        assert_eq!(
            named("the regex crate's cache", &ws).dirs,
            ["crates/regex/"]
        );
        assert_eq!(
            named("toml-edit keeps comments", &ws).dirs,
            ["crates/toml_edit/"]
        );
        assert!(named("parse a negated class", &ws).dirs.is_empty());
    }

    #[test]
    fn versions_are_not_part_of_a_name() {
        let registry = dirs(&[
            "serde_json-1.0.154",
            "toml-1.2.1+spec-1.1.0",
            "base64-0.22.1",
        ]);
        assert_eq!(
            named("serde_json escape string", &registry).dirs,
            ["serde_json-1.0.154/"]
        );
        assert_eq!(
            named("toml dotted keys", &registry).dirs,
            ["toml-1.2.1+spec-1.1.0/"]
        );
        assert_eq!(named("base64 decode", &registry).dirs, ["base64-0.22.1/"]);
    }

    #[test]
    fn every_directory_of_a_name_and_every_name_count() {
        let ws = dirs(&["packages/server", "apps/web/server", "packages/client"]);
        assert_eq!(
            named("does the server retry when the client disconnects", &ws).dirs,
            ["apps/web/server/", "packages/client/", "packages/server/"]
        );
    }

    #[test]
    fn the_naming_words_are_blanked_out_of_the_rest() {
        let ws = dirs(&["crates/regex-syntax", "crates/toml"]);
        let n = named("In regex-syntax, how is a class negated?", &ws);
        assert_eq!(
            n.rest,
            format!("In {} how is a class negated?", " ".repeat(13))
        );
        let n = named("(regex-syntax): class", &ws);
        assert_eq!(n.rest, format!("{} class", " ".repeat(15)));
        let n = named("the toml crate's parser; regex syntax’s lexer", &ws);
        assert_eq!(n.dirs, ["crates/regex-syntax/", "crates/toml/"]);
        assert_eq!(n.rest, "the      crate's parser;                lexer");
        let n = named("héllo wörld", &ws);
        assert_eq!(n.rest, "héllo wörld");
    }

    #[test]
    fn sentence_words_and_short_words_name_nothing() {
        let ws = dirs(&[
            "crates/which",
            "crates/the",
            "crates/io",
            "crates/same-file",
        ]);
        assert!(
            named("which file does the walker open", &ws)
                .dirs
                .is_empty()
        );
        assert!(named("io errors", &ws).dirs.is_empty());
        assert_eq!(named("same file check", &ws).dirs, ["crates/same-file/"]);
        assert!(named("anything", &[]).dirs.is_empty());
    }
}
