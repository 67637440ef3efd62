//! Relay references: the opaque `internal://<id>` names that stand for stored values.
//!
//! An ID is 16 characters of lowercase RFC 4648 base32 (`a`–`z`, `2`–`7`) drawn from
//! the operating system's random source: 80 bits, so IDs are unguessable and carry
//! no order (a model cannot walk to a neighbour's value by counting). Parsing is
//! strict because a reference comes from model output and ends up in a lookup:
//! anything other than `internal://` followed by base32 characters is refused with
//! a message that shows the input and what a reference looks like, so `../`,
//! absolute paths, NUL bytes and separators can never reach the store.

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

/// The scheme prefix of every reference.
pub const SCHEME: &str = "internal://";

/// Number of characters in a freshly made ID.
pub const ID_LEN: usize = 16;

/// Longest ID [`parse_reference`] accepts; longer input is refused before any lookup.
pub const MAX_ID_LEN: usize = 64;

const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// How a reference looks, quoted in every parse error.
const SHAPE: &str = "a reference looks like `internal://` followed by 16 characters from a-z and 2-7, \
                     e.g. `internal://k7qmz2xw4ra5tn3b`";

/// The ID part of a reference (no scheme), always lowercase base32.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RefId(String);

impl RefId {
    /// The bare ID, safe to use as a file name or a database key.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Checks a bare ID (no scheme), as stored in the catalog.
    pub fn from_id(id: &str) -> Result<RefId, RefError> {
        check_id(id, id)?;
        Ok(RefId(id.to_string()))
    }
}

impl fmt::Display for RefId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SCHEME}{}", self.0)
    }
}

impl FromStr for RefId {
    type Err = RefError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_reference(s)
    }
}

/// Why a string is not a relay reference; every message shows the (escaped) input.
#[derive(Debug, thiserror::Error)]
pub enum RefError {
    /// The input does not start with `internal://`.
    #[error("`{input}` is not a relay reference: {SHAPE}")]
    NotAReference {
        /// The input, escaped and shortened for display.
        input: String,
    },
    /// Nothing follows `internal://`.
    #[error("`{input}` has an empty ID: {SHAPE}")]
    EmptyId {
        /// The input, escaped and shortened for display.
        input: String,
    },
    /// The ID is longer than [`MAX_ID_LEN`].
    #[error("`{input}` has an ID of {len} bytes (the limit is {MAX_ID_LEN}): {SHAPE}")]
    IdTooLong {
        /// The input, escaped and shortened for display.
        input: String,
        /// Length of the ID in bytes.
        len: usize,
    },
    /// The ID holds a character outside lowercase base32.
    #[error(
        "`{input}` has `{character}` at position {position} of its ID, which is not allowed: {SHAPE}"
    )]
    InvalidCharacter {
        /// The input, escaped and shortened for display.
        input: String,
        /// The offending character, escaped.
        character: String,
        /// Zero-based character position inside the ID.
        position: usize,
    },
    /// The operating system's random source failed while making an ID.
    #[error("could not make a relay ID: the system random source failed: {0}")]
    RandomUnavailable(String),
}

/// Makes a fresh random ID (16 base32 characters, 80 bits).
pub fn new_id() -> Result<RefId, RefError> {
    let mut bytes = [0u8; 10];
    getrandom::fill(&mut bytes).map_err(|e| RefError::RandomUnavailable(e.to_string()))?;
    // 10 bytes = 80 bits = 16 groups of 5 bits, so no padding and no bias.
    let mut bits: u128 = 0;
    for b in bytes {
        bits = (bits << 8) | u128::from(b);
    }
    let id: String = (0..ID_LEN)
        .rev()
        .map(|k| ALPHABET[((bits >> (5 * k)) & 31) as usize] as char)
        .collect();
    Ok(RefId(id))
}

/// Parses exactly `internal://<id>`; no surrounding whitespace, no other scheme.
pub fn parse_reference(s: &str) -> Result<RefId, RefError> {
    let Some(id) = s.strip_prefix(SCHEME) else {
        return Err(RefError::NotAReference { input: shown(s) });
    };
    check_id(s, id)?;
    Ok(RefId(id.to_string()))
}

/// Reads the JSON form `{"type":"resource_link","uri":"internal://<id>"}` (other
/// fields such as `name` or `mimeType` are allowed); `None` for anything else.
pub fn parse_json_form(v: &Value) -> Option<RefId> {
    let object = v.as_object()?;
    if object.get("type")?.as_str()? != "resource_link" {
        return None;
    }
    parse_reference(object.get("uri")?.as_str()?).ok()
}

/// The JSON form of a reference, as written in place of a boxed value.
pub fn json_form(id: &RefId) -> Value {
    serde_json::json!({ "type": "resource_link", "uri": id.to_string() })
}

fn check_id(input: &str, id: &str) -> Result<(), RefError> {
    if id.is_empty() {
        return Err(RefError::EmptyId {
            input: shown(input),
        });
    }
    if id.len() > MAX_ID_LEN {
        return Err(RefError::IdTooLong {
            input: shown(input),
            len: id.len(),
        });
    }
    if let Some((position, c)) = id
        .chars()
        .enumerate()
        .find(|(_, c)| !matches!(c, 'a'..='z' | '2'..='7'))
    {
        return Err(RefError::InvalidCharacter {
            input: shown(input),
            character: c.escape_debug().to_string(),
            position,
        });
    }
    Ok(())
}

/// The input escaped (NUL, newlines and control characters become visible) and cut
/// to 80 characters, so a hostile input cannot flood or corrupt an error message.
fn shown(s: &str) -> String {
    const LIMIT: usize = 80;
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i == LIMIT {
            out.push('…');
            break;
        }
        out.extend(c.escape_debug());
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn new_ids_are_base32_and_unique() {
        let mut seen = HashSet::new();
        for _ in 0..10_000 {
            let id = new_id().expect("random source");
            assert_eq!(id.as_str().len(), ID_LEN);
            assert!(id.as_str().bytes().all(|b| ALPHABET.contains(&b)));
            assert!(seen.insert(id.as_str().to_string()), "duplicate {id}");
        }
        // Not sequential: two consecutive IDs share a long prefix with negligible odds.
        let a = new_id().expect("random source");
        let b = new_id().expect("random source");
        assert_ne!(a.as_str()[..8], b.as_str()[..8]);
    }

    #[test]
    fn round_trip() {
        let id = new_id().expect("random source");
        let text = id.to_string();
        assert!(text.starts_with(SCHEME));
        assert_eq!(parse_reference(&text).expect("valid"), id);
        assert_eq!(text.parse::<RefId>().expect("valid"), id);
        assert_eq!(parse_json_form(&json_form(&id)), Some(id.clone()));
        assert_eq!(RefId::from_id(id.as_str()).expect("valid"), id);
    }

    #[test]
    fn json_form_requires_type_and_uri() {
        let ok = serde_json::json!({"type":"resource_link","uri":"internal://abcdefgh23456777","name":"x"});
        assert_eq!(
            parse_json_form(&ok).map(|r| r.as_str().to_string()),
            Some("abcdefgh23456777".into())
        );
        for bad in [
            serde_json::json!({"type":"text","uri":"internal://abcdefgh23456777"}),
            serde_json::json!({"type":"resource_link","uri":"file:///etc/passwd"}),
            serde_json::json!({"type":"resource_link","uri":"internal://../x"}),
            serde_json::json!({"type":"resource_link"}),
            serde_json::json!("internal://abcdefgh23456777"),
        ] {
            assert_eq!(parse_json_form(&bad), None, "{bad}");
        }
    }

    #[test]
    fn hostile_references_are_refused_with_the_input_shown() {
        let long = format!("internal://{}", "a".repeat(200));
        let cases: &[(&str, &str)] = &[
            ("internal://../x", "`.` at position 0"),
            ("internal:///etc/passwd", "`/` at position 0"),
            ("internal://abc\0def", "`\\0` at position 3"),
            ("internal://abc/def", "`/` at position 3"),
            ("internal://abc\\def", "`\\\\` at position 3"),
            ("internal://", "empty ID"),
            ("internal://ABCDEFGHIJKLMNOP", "`A` at position 0"),
            ("internal://abcdefgh1", "`1` at position 8"),
            ("internal://abc def", "` ` at position 3"),
            ("INTERNAL://abcdefgh23456777", "not a relay reference"),
            (" internal://abcdefgh23456777", "not a relay reference"),
            ("/etc/passwd", "not a relay reference"),
            ("", "not a relay reference"),
            (&long, "ID of 200 bytes"),
        ];
        for (input, expected) in cases {
            let err = parse_reference(input).expect_err(input).to_string();
            assert!(err.contains(expected), "{input:?}: {err}");
            assert!(err.contains("internal://k7qmz2xw4ra5tn3b"), "{err}");
            assert!(!err.contains('\0'), "raw NUL in {err:?}");
            assert!(err.len() < 400, "message too long: {err}");
        }
        let err = parse_reference("internal://../x")
            .expect_err("hostile")
            .to_string();
        assert!(err.starts_with("`internal://../x` has `.`"), "{err}");
        assert!(RefId::from_id("../x").is_err());
    }
}
