//! Stable chunk IDs.
//!
//! `id = <doc stem> ":" hex(sha1(doc ␟ normalized title path ␟ text_sha256))[..10]`
//! where ␟ is U+001F (unit separator).
//!
//! **Normalization of the title path**, so cosmetic heading edits that do not change
//! what a reader sees do not churn IDs: each heading is trimmed, every run of
//! Unicode whitespace becomes one space, and the headings are joined with ␟. Case
//! is kept (it can matter in code symbols). Inline markup is already gone: the
//! chunkers store heading *text*, not heading source.
//!
//! **Duplicates.** Identical sections in one document (same normalized path and
//! same text) would hash alike; the second and later occurrences, in document
//! order, get `␟#<n>` (n = 2, 3, …) appended to the hash input. The first occurrence
//! keeps the plain ID, so adding a duplicate later never renames the original.
//!
//! **Doc stem.** The file name without its last extension, with every character
//! other than a letter, a digit (in any script) or `_.-` replaced by `-`, so an
//! ID is one shell word and a file named `日本語.md` or `café.md` keeps a stem
//! that says which file it is (`日本語:…`, `café:…`).

use std::collections::HashMap;

use super::Chunk;
use crate::hash::{sha1_hex, sha256_hex};

const SEP: char = '\u{1f}';

/// Number of hex characters of the SHA-1 kept in an ID.
pub const HASH_LEN: usize = 10;

/// The doc-stem prefix of IDs for document path `doc`.
pub fn stem(doc: &str) -> String {
    let file = doc.rsplit('/').next().unwrap_or(doc);
    let base = match file.rfind('.') {
        Some(dot) if dot > 0 => &file[..dot],
        _ => file,
    };
    let cleaned: String = base
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "doc".to_string()
    } else {
        cleaned
    }
}

/// The normalized title path used in the ID hash (see the module docs).
pub fn normalize_title_path(title_path: &[String]) -> String {
    let mut out = String::new();
    for (i, heading) in title_path.iter().enumerate() {
        if i > 0 {
            out.push(SEP);
        }
        let mut first = true;
        for word in heading.split_whitespace() {
            if !first {
                out.push(' ');
            }
            out.push_str(word);
            first = false;
        }
    }
    out
}

/// The ID of the `occurrence`-th (1-based) chunk with this doc, path and text hash.
pub fn compute(doc: &str, title_path: &[String], text_sha256: &str, occurrence: usize) -> String {
    let mut input = String::with_capacity(doc.len() + text_sha256.len() + 64);
    input.push_str(doc);
    input.push(SEP);
    input.push_str(&normalize_title_path(title_path));
    input.push(SEP);
    input.push_str(text_sha256);
    if occurrence > 1 {
        input.push(SEP);
        input.push('#');
        input.push_str(&occurrence.to_string());
    }
    let digest = sha1_hex(input.as_bytes());
    format!("{}:{}", stem(doc), &digest[..HASH_LEN])
}

/// SHA-256 hex of a chunk's text, as stored in `text_sha256`.
pub fn text_sha256(text: &str) -> String {
    sha256_hex(text.as_bytes())
}

/// Assigns IDs to the chunks of one document, in document order.
pub fn assign(chunks: &mut [Chunk]) {
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for chunk in chunks.iter_mut() {
        let sha = text_sha256(&chunk.text);
        let key = (normalize_title_path(&chunk.title_path), sha.clone());
        let occurrence = seen.entry(key).or_insert(0);
        *occurrence += 1;
        chunk.id = compute(&chunk.doc, &chunk.title_path, &sha, *occurrence);
        chunk.text_sha256 = sha;
    }
}

/// Splits an ID into `(stem, hash)`; `None` when it is not of the ID form.
pub fn parse(id: &str) -> Option<(&str, &str)> {
    let (stem, hash) = id.rsplit_once(':')?;
    let ok = !stem.is_empty()
        && hash.len() == HASH_LEN
        && hash
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then_some((stem, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems() {
        assert_eq!(stem("docs/operations.md"), "operations");
        assert_eq!(stem("README"), "README");
        assert_eq!(stem("a b/c d.e.md"), "c-d.e");
        assert_eq!(stem(".md"), ".md");
        assert_eq!(stem("docs/ñ 日本.md"), "ñ-日本");
        // A combining mark (a decomposed `é`), quotes and `$` are not
        // letters: the stem stays one shell word.
        assert_eq!(stem("cafe\u{301}'s $x.md"), "cafe--s--x");
    }

    #[test]
    fn normalization_collapses_whitespace_only() {
        let a = normalize_title_path(&["  Lock   policy ".into(), "Stale\tlocks".into()]);
        let b = normalize_title_path(&["Lock policy".into(), "Stale locks".into()]);
        assert_eq!(a, b);
        assert_ne!(
            a,
            normalize_title_path(&["lock policy".into(), "Stale locks".into()])
        );
    }

    #[test]
    fn ids_parse() {
        let id = compute("docs/ops.md", &["A".into()], &text_sha256("x"), 1);
        let (s, h) = parse(&id).expect("valid id");
        assert_eq!(s, "ops");
        assert_eq!(h.len(), HASH_LEN);
        assert!(parse("ops:XYZ").is_none());
        assert!(parse("nocolon").is_none());
        assert_ne!(
            id,
            compute("docs/ops.md", &["A".into()], &text_sha256("x"), 2)
        );
    }
}
