//! A JSON value's shape: its top type and keys, the values of its main
//! array's categorical fields, and jq queries built from it that run as
//! written.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::clip;
use super::values::{self, Category};
use crate::tokens;

/// The shape of a JSON value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JsonShape {
    /// The top-level type, e.g. `object{items,count} (2 keys)` or `array[120] of object{…}`.
    pub top: String,
    /// `(jq path, type)` of keys at the top level and one level down.
    pub fields: Vec<(String, String)>,
    /// Keys not listed in `fields`.
    pub more_fields: usize,
    /// The categorical fields of its main array's items, with their values'
    /// counts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<Category>,
    /// How many items `values` counted, when not all of the array's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values_of: Option<ValuesOf>,
    /// jq queries that run on this value as written.
    pub examples: Vec<String>,
}

impl JsonShape {
    /// The shape as text: the top type and keys within about `keys_budget`
    /// tokens, then jq examples while the whole stays within `budget`.
    pub fn render(&self, keys_budget: usize, budget: usize) -> String {
        let mut out = format!("shape: {}\n", clip(&self.top, 160));
        let mut listed = 0;
        for (path, kind) in &self.fields {
            let line = format!("  {}: {}\n", clip(path, 60), clip(kind, 100));
            if tokens::estimate(&out) + tokens::estimate(&line) > keys_budget {
                break;
            }
            out.push_str(&line);
            listed += 1;
        }
        let unlisted = self.fields.len() - listed + self.more_fields;
        if unlisted > 0 {
            let _ = writeln!(out, "  … {unlisted} more keys (jq `keys`)");
        }
        let header = match self.values_of {
            Some(v) => format!("values (the first {} of {} items):\n", v.counted, v.items),
            None => "values:\n".to_string(),
        };
        let mut header = header.as_str();
        for c in self.values.iter().take(MAX_VALUE_LINES) {
            let line = format!(
                "{header}  {}: {}\n",
                clip(&c.path, 60),
                values::render_counts(&c.counts, 120)
            );
            if tokens::estimate(&out) + tokens::estimate(&line) > budget {
                break;
            }
            out.push_str(&line);
            header = "";
        }
        if !self.examples.is_empty() {
            out.push_str("try jq:\n");
            for example in &self.examples {
                let line = format!("  {}\n", clip(example, 120));
                if tokens::estimate(&out) + tokens::estimate(&line) > budget {
                    break;
                }
                out.push_str(&line);
            }
        }
        out
    }
}

/// The items counted for [`JsonShape::values`] out of the array's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ValuesOf {
    /// The first this many items were counted…
    pub counted: usize,
    /// …of this many.
    pub items: usize,
}

/// Categorical fields shown in a shape (more are in its JSON).
const MAX_VALUE_LINES: usize = 3;

/// The shape of `value` when it parses as JSON, listing at most `max_keys` keys.
pub fn json_shape(value: &str, max_keys: usize) -> Option<JsonShape> {
    serde_json::from_str::<Value>(value.trim_start_matches('\u{feff}'))
        .ok()
        .map(|v| shape(&v, max_keys))
}

fn shape(value: &Value, max_keys: usize) -> JsonShape {
    let mut fields = Vec::new();
    let mut more_fields = 0;
    if let Value::Object(map) = value {
        for (key, child) in map {
            if fields.len() >= max_keys {
                more_fields += 1;
                continue;
            }
            let path = child_path(".", key);
            fields.push((path.clone(), type_of(child)));
            if let Value::Object(inner) = child {
                for (inner_key, grandchild) in inner.iter().take(4) {
                    if fields.len() < max_keys {
                        fields.push((child_path(&path, inner_key), type_of(grandchild)));
                    }
                }
            }
        }
    }
    let array = find_array(value, ".", 0);
    let (values, values_of) = match &array {
        Some((path, items)) => {
            let values = values::categories(&each_item(path), items);
            let partial = !values.is_empty() && items.len() > values::MAX_ITEMS_COUNTED;
            let of = partial.then_some(ValuesOf {
                counted: values::MAX_ITEMS_COUNTED,
                items: items.len(),
            });
            (values, of)
        }
        None => (Vec::new(), None),
    };
    JsonShape {
        top: type_of(value),
        fields,
        more_fields,
        examples: examples(value, array, &values),
        values,
        values_of,
    }
}

/// `object{a,b,…} (n keys)`, `array[n] of <item type>`, `string (n chars)`, …
fn type_of(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Number(_) => "number".into(),
        Value::String(s) => match s.chars().count() {
            n if n > 80 => format!("string ({n} chars)"),
            _ => "string".into(),
        },
        Value::Array(items) => {
            let Some(first) = items.first() else {
                return "array[0]".into();
            };
            let kind = kind_name(first);
            let same = items.iter().take(100).all(|v| kind_name(v) == kind);
            let item = match (same, first) {
                (true, Value::Object(_)) => object_keys(first),
                (true, _) => kind.into(),
                (false, _) => "mixed types".into(),
            };
            format!("array[{}] of {item}", items.len())
        }
        Value::Object(map) => format!("{} ({} keys)", object_keys(value), map.len()),
    }
}

fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn object_keys(value: &Value) -> String {
    let Value::Object(map) = value else {
        return kind_name(value).into();
    };
    let mut keys: Vec<&str> = map.keys().take(6).map(String::as_str).collect();
    if map.len() > 6 {
        keys.push("…");
    }
    format!("object{{{}}}", keys.join(","))
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The jq path of `key` under `parent` (`.` is the root): `.a.b` or `.a["b c"]`.
pub(super) fn child_path(parent: &str, key: &str) -> String {
    let parent = if parent == "." { "" } else { parent };
    if is_identifier(key) {
        format!("{parent}.{key}")
    } else {
        let quoted = Value::String(key.to_string()).to_string();
        if parent.is_empty() {
            format!(".[{quoted}]")
        } else {
            format!("{parent}[{quoted}]")
        }
    }
}

/// The jq path through each item of the array at `path`.
fn each_item(path: &str) -> String {
    if path == "." {
        ".[]".to_string()
    } else {
        format!("{path}[]")
    }
}

/// A few jq queries built from the value itself, aimed at its main array of
/// objects (`array`, with its path), so the first query an agent writes has
/// the right path and key names; a selection picks the rarest value of the
/// categorical field (`values`) where it is rarest, when there is one.
fn examples(
    value: &Value,
    array: Option<(String, &Vec<Value>)>,
    values: &[Category],
) -> Vec<String> {
    let mut out = Vec::new();
    if let Value::Object(_) = value {
        out.push("keys".to_string());
    }
    let Some((path, items)) = array else {
        if let Value::Object(map) = value
            && let Some((key, Value::Object(_))) = map.iter().next()
        {
            out.push(format!("{} | keys", child_path(".", key)));
        }
        return out;
    };
    let root = path == ".";
    out.push(if root {
        "length".to_string()
    } else {
        format!("{path} | length")
    });
    let each = each_item(&path);
    out.push(format!("{}[0]", if root { "." } else { &path }));
    let Some(Value::Object(first)) = items.first() else {
        return out;
    };
    let scalar_keys: Vec<&String> = first
        .iter()
        .filter(|(_, v)| !matches!(v, Value::Array(_) | Value::Object(_)))
        .map(|(k, _)| k)
        .collect();
    if let Some(key) = scalar_keys.first() {
        out.push(format!("{each} | {}", child_path(".", key)));
    }
    let picked: Vec<&&String> = scalar_keys
        .iter()
        .filter(|k| is_identifier(k))
        .take(3)
        .collect();
    if picked.len() >= 2 {
        let keys: Vec<&str> = picked.iter().map(|k| k.as_str()).collect();
        out.push(format!("{each} | {{{}}}", keys.join(", ")));
    }
    if let Some((c, rarest)) = values::most_selective(values).and_then(|c| Some((c, c.rarest()?))) {
        out.push(format!(
            "{each} | select({} == {rarest})",
            child_path(".", &c.key)
        ));
    } else if let Some((key, Value::String(sample))) = first
        .iter()
        .find(|(_, v)| matches!(v, Value::String(s) if s.chars().count() <= 40))
    {
        let literal = Value::String(sample.clone()).to_string();
        out.push(format!(
            "{each} | select({} == {literal})",
            child_path(".", key)
        ));
    }
    out
}

/// The first array of objects reachable through object keys (breadth first, ≤ 3
/// levels), else the top-level array; with its jq path.
fn find_array<'a>(value: &'a Value, path: &str, depth: usize) -> Option<(String, &'a Vec<Value>)> {
    match value {
        Value::Array(items) if depth == 0 || items.first().is_some_and(Value::is_object) => {
            Some((path.to_string(), items))
        }
        Value::Object(map) if depth < 3 => {
            let direct = map.iter().find_map(|(k, v)| match v {
                Value::Array(items) if items.first().is_some_and(Value::is_object) => {
                    Some((child_path(path, k), items))
                }
                _ => None,
            });
            direct.or_else(|| {
                map.iter()
                    .filter(|(_, v)| v.is_object())
                    .find_map(|(k, v)| find_array(v, &child_path(path, k), depth + 1))
            })
        }
        _ => None,
    }
}
