//! jq queries on JSON values, through jaq with jq's standard library.
//!
//! The program is compiled per call (a few milliseconds), the value parsed with
//! jaq's own reader, and outputs formatted as jq prints them (`-c`, `-r`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::ResolveError;
use crate::relay::{nesting, preview};
/// Options for [`query`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueryOptions {
    /// One line per output (`jq -c`) instead of indented JSON.
    pub compact: bool,
    /// Strings without quotes or escapes (`jq -r`).
    pub raw: bool,
    /// Stop once the outputs hold this many chars (the last one is cut).
    pub max_output_chars: usize,
    /// Stop with an error when running takes longer (checked between outputs).
    pub timeout: Duration,
}

impl Default for QueryOptions {
    fn default() -> Self {
        QueryOptions {
            compact: false,
            raw: false,
            max_output_chars: 20_000,
            timeout: Duration::from_secs(10),
        }
    }
}

/// Outputs of a jq query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryResult {
    /// One string per jq output.
    pub outputs: Vec<String>,
    /// True when `max_output_chars` cut the outputs short.
    pub truncated: bool,
    /// Why the outputs are all `null` when the query's path names a key the
    /// value lacks (`.itemz`): jq answers `null`, which reads as "no data".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Runs a jq program (jaq, with jq's standard library) on a JSON value.
///
/// The time limit is checked between outputs: jaq yields outputs lazily, but one
/// output that takes long to compute (`[range(1e9)] | length`) cannot be stopped
/// from here; a caller that must bound that runs the query on a thread it can
/// abandon. Parsing the value is not counted.
pub fn query(value: &str, jq: &str, opts: &QueryOptions) -> Result<QueryResult, ResolveError> {
    use jaq_core::load::{Arena, File, Loader};
    use jaq_core::{Compiler, Ctx, Vars, data};
    use jaq_json::Val;

    let arena = Arena::default();
    let loader = Loader::new(
        jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs()),
    );
    let invalid = |message: String| ResolveError::InvalidQuery {
        query: jq.to_string(),
        message,
    };
    let modules = loader
        .load(&arena, File { code: jq, path: () })
        .map_err(|errors| invalid(load_errors(jq, errors)))?;
    // `env` would hand the process environment (tokens, keys) to whatever prompt
    // wrote the query; relayed values never need it.
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .filter(|(name, _, _)| *name != "env");
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| invalid(compile_errors(errors)))?;

    // jaq's reader, evaluator, printer and the drop of its tree all recurse
    // once per level: a deeper value would overflow the stack.
    if nesting::nests_deeper(value, nesting::MAX_JSON_DEPTH) {
        return Err(ResolveError::NestedTooDeep {
            limit: nesting::MAX_JSON_DEPTH,
        });
    }
    // Detection skips a byte order mark (`media_type`), so jq does too: the
    // preview of such a value suggested queries that then failed at byte 0.
    let json = value.strip_prefix('\u{feff}').unwrap_or(value);
    let input =
        jaq_json::read::parse_single(json.as_bytes()).map_err(|e| ResolveError::NotJson {
            media: preview::media_type(value).mime(),
            detail: format!("JSON parse failed at {e}"),
        })?;

    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let started = Instant::now();
    let mut outputs = Vec::new();
    let mut used = 0;
    let mut truncated = false;
    let mut all_null = true;
    for item in filter.id.run((ctx, input.clone())) {
        if used >= opts.max_output_chars {
            // Only now is it known that something was left out.
            truncated = true;
            break;
        }
        let val = item.map_err(|exn| {
            let mut message = match exn.get_err() {
                Ok(error) => error.to_string(),
                Err(exn) => match exn.get_halt() {
                    Ok(code) => format!("the query called `halt` (exit code {code})"),
                    Err(_) => "internal jaq control flow escaped".to_string(),
                },
            };
            // `.itemz[]` fails on iterating the null a missing key gives.
            if let Some(note) = missing_key(&input, jq) {
                let _ = write!(message, "; {note}");
            }
            ResolveError::QueryFailed {
                query: jq.to_string(),
                message,
                outputs: outputs.len(),
            }
        })?;
        all_null &= matches!(val, Val::Null);
        let remaining = opts.max_output_chars.saturating_sub(used);
        let (text, cut) = format_output(&val, opts, remaining);
        used += text.chars().count();
        outputs.push(text);
        if cut {
            truncated = true;
            break;
        }
        if started.elapsed() > opts.timeout {
            return Err(ResolveError::QueryTimedOut {
                query: jq.to_string(),
                limit: opts.timeout,
                outputs: outputs.len(),
            });
        }
    }
    let note = if all_null && !outputs.is_empty() {
        missing_key(&input, jq)
    } else {
        None
    };
    Ok(QueryResult {
        outputs,
        truncated,
        note,
    })
}

/// Keys listed in a missing key's note, at most.
const KEYS_LISTED: usize = 12;

/// The first key of the path that `jq` starts with (`.a.b`, `.a[0].b`,
/// `.a[].b`, each step optionally `?`) that `input` lacks, said with the keys
/// there are; `None` when the path is not of that form or every key exists.
/// After `[]` the first item stands for all of them.
fn missing_key(input: &jaq_json::Val, jq: &str) -> Option<String> {
    use jaq_json::Val;
    let mut at = input;
    let mut path = String::new();
    let mut rest = jq.trim_start();
    loop {
        rest = rest.trim_start_matches('?');
        if let Some(after) = rest.strip_prefix("[]") {
            let Val::Arr(items) = at else { return None };
            at = items.first()?;
            path.push_str("[]");
            rest = after;
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let i: usize = after[..end].trim().parse().ok()?;
            let Val::Arr(items) = at else { return None };
            at = items.get(i)?;
            let _ = write!(path, "[{i}]");
            rest = &after[end + 1..];
        } else if let Some(after) = rest.strip_prefix('.') {
            if after.starts_with('[') {
                // `.[0]`, `.[]`: the dot only leads the index.
                rest = after;
                continue;
            }
            let len = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let key = &after[..len];
            if key.is_empty() || key.starts_with(|c: char| c.is_ascii_digit()) {
                return None;
            }
            let Val::Obj(map) = at else { return None };
            let found = map.iter().find_map(|(k, v)| match k {
                Val::TStr(b) if b.as_ref() == key.as_bytes() => Some(v),
                _ => None,
            });
            let Some(next) = found else {
                let keys: Vec<String> = map
                    .keys()
                    .take(KEYS_LISTED)
                    .map(|k| match k {
                        Val::TStr(b) => String::from_utf8_lossy(b).into_owned(),
                        other => other.to_string(),
                    })
                    .collect();
                let more = map.len().saturating_sub(KEYS_LISTED);
                let there = if path.is_empty() {
                    "the value".to_string()
                } else if path == "[]" {
                    "the items of the value (the first shown)".to_string()
                } else if path.ends_with("[]") {
                    format!(
                        "the items of `{}` (the first shown)",
                        &path[..path.len() - 2]
                    )
                } else {
                    format!("`{path}`")
                };
                return Some(format!(
                    "{there} has no key `{key}` (jq gives null for it); its keys: {}{}",
                    keys.join(", "),
                    if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    }
                ));
            };
            at = next;
            let _ = write!(path, ".{key}");
            rest = &after[len..];
        } else {
            return None;
        }
    }
}

/// Formats one output, writing at most `max_chars` chars; the flag says it was cut.
fn format_output(val: &jaq_json::Val, opts: &QueryOptions, max_chars: usize) -> (String, bool) {
    use jaq_json::Val;
    use std::io::Write as _;

    // A char is at most 4 bytes, so `4 × max_chars` bytes always hold enough.
    let mut out = Capped {
        bytes: Vec::new(),
        limit: max_chars.saturating_mul(4),
        full: false,
    };
    let written = match val {
        Val::TStr(s) | Val::BStr(s) if opts.raw => out.write_all(s),
        _ => {
            let pp = jaq_json::write::Pp {
                indent: (!opts.compact).then(|| "  ".to_string()),
                sep_space: !opts.compact,
                ..Default::default()
            };
            jaq_json::write::write(&mut out, &pp, 0, val)
        }
    };
    let full = out.full || written.is_err();
    let text = String::from_utf8_lossy(&out.bytes);
    match text.char_indices().nth(max_chars) {
        Some((cut, _)) => (text[..cut].to_string(), true),
        None => (text.into_owned(), full),
    }
}

/// A writer that keeps the first `limit` bytes and then fails, so formatting a
/// huge output stops early instead of building it whole.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
    full: bool,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let room = self.limit - self.bytes.len();
        if room == 0 {
            self.full = true;
            return Err(std::io::Error::other("output cap reached"));
        }
        let n = buf.len().min(room);
        self.bytes.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn load_errors(jq: &str, errors: jaq_core::load::Errors<&str, ()>) -> String {
    use jaq_core::load::Error;
    let mut message = String::new();
    for (_, error) in errors {
        match error {
            Error::Io(items) => {
                for (path, why) in items {
                    let _ = write!(message, "cannot load module `{path}`: {why}; ");
                }
            }
            Error::Lex(items) => {
                for (expect, rest) in items {
                    let _ = write!(
                        message,
                        "expected {} at {}; ",
                        expect.as_str(),
                        position(jq, rest)
                    );
                }
            }
            Error::Parse(items) => {
                for (expect, rest) in items {
                    let _ = write!(
                        message,
                        "expected {} at {}; ",
                        expect.as_str(),
                        position(jq, rest)
                    );
                }
            }
        }
    }
    message.trim_end_matches("; ").to_string()
}

fn compile_errors(errors: jaq_core::compile::Errors<&str, ()>) -> String {
    let mut message = String::new();
    for (_, items) in errors {
        for (name, undefined) in items {
            let what = match undefined {
                jaq_core::compile::Undefined::Filter(arity) => format!("filter `{name}/{arity}`"),
                other => format!("{} `{name}`", other.as_str()),
            };
            let _ = write!(message, "undefined {what}; ");
        }
    }
    message.trim_end_matches("; ").to_string()
}

/// Describes where `rest` (a suffix of `jq`) starts: a char offset and what follows.
fn position(jq: &str, rest: &str) -> String {
    let offset = jq.len().saturating_sub(rest.len());
    let column = jq.get(..offset).map_or(0, |s| s.chars().count());
    if rest.is_empty() {
        format!("the end of the query (char {column})")
    } else {
        let near: String = rest.chars().take(20).collect();
        format!("char {column} (`{near}`)")
    }
}
