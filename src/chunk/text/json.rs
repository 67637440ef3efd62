//! The JSON chunker: a container split into its members, small ones grouped,
//! array records labelled by their names (see [`super`]).

use super::{Piece, Tally, build, chunk_text, split_text};
use crate::chunk::{ChunkKind, ChunkNote, ChunkOptions, Chunked};
use crate::tokens;

/// Chunks a JSON value by members; not-JSON input is chunked as text with a note.
pub fn chunk_json(doc: &str, text: &str, title_root: &[String], opts: &ChunkOptions) -> Chunked {
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
        let mut chunked = chunk_text(doc, text, title_root, opts);
        if !text.trim().is_empty() {
            chunked.notes.push(ChunkNote {
                line: Some(error.line()),
                message: format!("not valid JSON ({error}); chunked as plain text"),
                kind: crate::error::WarningKind::NotJson,
            });
        }
        return chunked;
    }
    let value_start = text.len() - text.trim_start().len();
    let mut pieces = Vec::new();
    let max = opts.max_chunk_tokens.max(1);
    split_json(
        text,
        (0, text.len()),
        value_start,
        title_root,
        max,
        0,
        &mut pieces,
    );
    Chunked {
        chunks: build(doc, text, ChunkKind::Json, pieces.into_iter()),
        ..Chunked::default()
    }
}

/// One direct member of a JSON container.
struct Member {
    /// Where the member starts: its key's opening quote, or the item's first byte.
    start: usize,
    /// First byte of the member's value.
    value: usize,
    /// Object key (decoded) or array index as `[i]`.
    label: String,
}

/// Containers split into their members this many levels down at most; a
/// member deeper than that is split as text. Validation takes any depth (it
/// does not recurse), so without a bound `[[[…]]]` twenty thousand levels deep
/// recursed once per level here and overflowed the stack of `ctx box`, each
/// level rescanning the rest of the value.
const MAX_SPLIT_DEPTH: usize = 64;

/// Splits `region` (one value at `value_start`, plus the bytes around it that this
/// piece owns, like a key or a trailing comma) into pieces of at most `max` tokens;
/// `depth` counts the containers it lies in.
fn split_json(
    text: &str,
    region: (usize, usize),
    value_start: usize,
    title: &[String],
    max: usize,
    depth: usize,
    out: &mut Vec<Piece>,
) {
    let (start, end) = region;
    if start == end {
        return;
    }
    if tokens::estimate(&text[start..end]) <= max {
        out.push(Piece {
            start,
            end,
            title_path: title.to_vec(),
            part: None,
        });
        return;
    }
    let opener = text.as_bytes().get(value_start).copied();
    let members = match opener {
        Some(b'{' | b'[') if depth < MAX_SPLIT_DEPTH => members(text, value_start),
        _ => Vec::new(),
    };
    if members.is_empty() {
        let mut spans = Vec::new();
        split_text(text, start, end, max, &mut spans);
        let n = spans.len();
        out.extend(spans.into_iter().enumerate().map(|(i, (s, e))| Piece {
            start: s,
            end: e,
            title_path: title.to_vec(),
            part: (n > 1).then_some([i + 1, n]),
        }));
        return;
    }
    let is_array = opener == Some(b'[');
    // Member regions tile the container: the first also owns the opening bracket,
    // the last the closing one and whatever follows the value in `region`.
    let bounds: Vec<usize> = std::iter::once(start)
        .chain(members.iter().skip(1).map(|m| m.start))
        .chain(std::iter::once(end))
        .collect();
    let mut group: Vec<usize> = Vec::new();
    let mut tally = Tally::default();
    let flush = |group: &mut Vec<usize>, out: &mut Vec<Piece>| {
        let (Some(&first), Some(&last)) = (group.first(), group.last()) else {
            return;
        };
        let mut title_path = title.to_vec();
        title_path.push(if first == last {
            labelled(text, &members[first], is_array)
        } else if is_array {
            group_label(text, &members, first, last)
        } else {
            format!("{} … {}", members[first].label, members[last].label)
        });
        out.push(Piece {
            start: bounds[first],
            end: bounds[last + 1],
            title_path,
            part: None,
        });
        group.clear();
    };
    for (i, member) in members.iter().enumerate() {
        let member_tokens = tokens::estimate(&text[bounds[i]..bounds[i + 1]]);
        if member_tokens > max {
            flush(&mut group, out);
            tally = Tally::default();
            let mut inner = title.to_vec();
            inner.push(labelled(text, member, is_array));
            split_json(
                text,
                (bounds[i], bounds[i + 1]),
                member.value,
                &inner,
                max,
                depth + 1,
                out,
            );
            continue;
        }
        // A named record big enough to read alone (a pod, a package) is its own
        // chunk, so a search for it returns it and not its neighbours as well.
        // The first item's region also holds what opens the array (and, for
        // a first member, its container): its size alone is its own.
        let own_tokens = || match i {
            0 => tokens::estimate(&text[member.start..bounds[1]]),
            _ => member_tokens,
        };
        if is_array
            && member_tokens * ALONE_SHARE >= max
            && own_tokens() * ALONE_SHARE >= max
            && record_name_of(text, member.value).is_some()
        {
            flush(&mut group, out);
            group.push(i);
            flush(&mut group, out);
            tally = Tally::default();
            continue;
        }
        match group.first() {
            Some(&g0) => {
                let joined = || tokens::estimate(&text[bounds[g0]..bounds[i + 1]]);
                if !tally.fits(member_tokens, max, joined) {
                    flush(&mut group, out);
                    tally = Tally::starting(member_tokens);
                }
            }
            None => tally = Tally::starting(member_tokens),
        }
        group.push(i);
    }
    flush(&mut group, out);
}

/// Keys whose short string value names an object, most telling first.
const NAME_KEYS: &[&str] = &["name", "title", "id", "key", "path"];

/// Longest name a label shows.
const NAME_CHARS: usize = 60;

/// An object nested under this key names the record holding it when the record
/// has no naming key of its own (Kubernetes objects: `metadata.name`).
const NAME_HOLDER: &str = "metadata";

/// A named array item of at least `max / ALONE_SHARE` tokens is not grouped.
const ALONE_SHARE: usize = 4;

/// A member's label; an array item that is an object with a naming key
/// (`"name": "tantivy"`) shows its name after its index (`[281] tantivy`),
/// so a list of records reads, and is searched, by what each one is.
fn labelled(text: &str, member: &Member, is_array: bool) -> String {
    match is_array
        .then(|| record_name_of(text, member.value))
        .flatten()
    {
        Some(name) => format!("{} {name}", member.label),
        None => member.label.clone(),
    }
}

/// The label of array items `first..=last` grouped in one chunk: their range,
/// then the first and last names when both are records (`[4..9] bug … wontfix`).
fn group_label(text: &str, members: &[Member], first: usize, last: usize) -> String {
    let range = format!("[{first}..{}]", last + 1);
    match (
        record_name_of(text, members[first].value),
        record_name_of(text, members[last].value),
    ) {
        (Some(a), Some(b)) => format!("{range} {a} … {b}"),
        _ => range,
    }
}

/// The name of the value at `value` when it is an object: the string value of
/// its first naming key ([`NAME_KEYS`]), else of its [`NAME_HOLDER`] object's.
fn record_name_of(text: &str, value: usize) -> Option<String> {
    let named = |value: usize| {
        (text.as_bytes().get(value) == Some(&b'{')).then(|| {
            let fields = members(text, value);
            let name = NAME_KEYS.iter().find_map(|key| {
                let field = fields.iter().find(|f| f.label == *key)?;
                short_string(&text[field.value..])
            });
            (name, fields)
        })
    };
    let (name, fields) = named(value)?;
    name.or_else(|| {
        let holder = fields.iter().find(|f| f.label == NAME_HOLDER)?;
        named(holder.value)?.0
    })
}

/// The JSON string `json` starts with, trimmed, when it is short enough to
/// name something: one line of at most [`NAME_CHARS`] chars.
fn short_string(json: &str) -> Option<String> {
    let mut values = serde_json::Deserializer::from_str(json).into_iter::<String>();
    let value = values.next()?.ok()?;
    let value = value.trim();
    (!value.is_empty() && value.chars().count() <= NAME_CHARS && !value.contains('\n'))
        .then(|| value.to_string())
}

/// The innermost named record a JSON chunk lies in: its title (`packages >
/// [281] tantivy` of `packages > [281] tantivy > dependencies`, the labels
/// [`labelled`] writes), which the chunks of one record share, and its name
/// (`tantivy`), by which a query can find it.
pub fn record_path(title_path: &[String]) -> Option<(&[String], &str)> {
    let (last, name) = title_path
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, label)| Some((i, record_name(label)?)))?;
    Some((&title_path[..=last], name))
}

/// The names of the records a chunk of grouped array items holds (labelled
/// `[i..j]`, perhaps with names after it): the objects that open and close
/// in its text at the least depth, when there are `j - i` of them, each named
/// as [`labelled`] names it. Empty for any other chunk.
pub fn group_record_names(title_path: &[String], text: &str) -> Vec<String> {
    let Some(count) = title_path.last().and_then(|l| group_size(l)) else {
        return Vec::new();
    };
    // The chunk's text may open containers the group is in (its first
    // group) and close them (its last), but only the items are whole.
    let (mut open, mut whole) = (Vec::new(), Vec::new());
    let mut strings = Strings::default();
    for (at, &byte) in text.as_bytes().iter().enumerate() {
        if strings.holds(byte) {
            continue;
        }
        match byte {
            b'{' | b'[' => open.push(at),
            b'}' | b']' => {
                if let Some(start) = open.pop()
                    && byte == b'}'
                {
                    whole.push((open.len(), start));
                }
            }
            _ => {}
        }
    }
    let Some(least) = whole.iter().map(|&(depth, _)| depth).min() else {
        return Vec::new();
    };
    let mut items: Vec<usize> = whole
        .iter()
        .filter(|&&(depth, _)| depth == least)
        .map(|&(_, start)| start)
        .collect();
    if items.len() != count {
        return Vec::new();
    }
    items.sort_unstable();
    items
        .into_iter()
        .filter_map(|start| record_name_of(text, start))
        .collect()
}

/// `j - i` of a group label `[i..j]` (or `[i..j] first … last`).
fn group_size(label: &str) -> Option<usize> {
    let range = label.strip_prefix('[')?.split(']').next()?;
    let (from, to) = range.split_once("..")?;
    let (from, to): (usize, usize) = (from.parse().ok()?, to.parse().ok()?);
    to.checked_sub(from)
}

fn record_name(label: &str) -> Option<&str> {
    let (index, name) = label.strip_prefix('[')?.split_once("] ")?;
    (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()) && !name.is_empty())
        .then_some(name)
}

/// Where a byte scan over JSON is: in a string or not, after a backslash or not.
#[derive(Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Takes the next byte; true when it is part of a string other than its
    /// opening quote (which is reported, as it opens a key or a value).
    fn holds(&mut self, byte: u8) -> bool {
        if !self.inside {
            self.inside = byte == b'"';
            return false;
        }
        if self.escaped {
            self.escaped = false;
        } else if byte == b'\\' {
            self.escaped = true;
        } else if byte == b'"' {
            self.inside = false;
        }
        true
    }
}

/// The direct members of the valid JSON container opening at `open`, found with a
/// byte scan that tracks string, escape and nesting state (no tree is built).
fn members(text: &str, open: usize) -> Vec<Member> {
    let bytes = text.as_bytes();
    let is_object = bytes[open] == b'{';
    let mut members: Vec<Member> = Vec::new();
    let mut depth = 0usize;
    let mut strings = Strings::default();
    let (mut expect_member, mut expect_value) = (true, false);
    let mut key_start = None;
    let mut at = open + 1;
    while at < bytes.len() {
        let byte = bytes[at];
        if strings.holds(byte) {
            if !strings.inside
                && let Some(key) = key_start.take()
                && let Some(member) = members.last_mut()
            {
                let raw = &text[key..=at];
                member.label = serde_json::from_str(raw).unwrap_or_else(|_| raw.to_string());
            }
            at += 1;
            continue;
        }
        if depth == 0 && !byte.is_ascii_whitespace() {
            match byte {
                b'}' | b']' => break,
                b',' => expect_member = true,
                b':' => expect_value = true,
                _ if expect_member => {
                    let index = members.len();
                    members.push(Member {
                        start: at,
                        value: at,
                        label: format!("[{index}]"),
                    });
                    if is_object {
                        key_start = Some(at);
                    }
                    expect_member = false;
                }
                _ if expect_value => {
                    if let Some(member) = members.last_mut() {
                        member.value = at;
                    }
                    expect_value = false;
                }
                _ => {}
            }
        }
        match byte {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    members
}
