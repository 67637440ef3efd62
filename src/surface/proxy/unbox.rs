//! Unboxing `tools/call` arguments: every string that is exactly a reference of
//! this relay's session (`internal://<id>`), or an object in the JSON form
//! `{"type":"resource_link","uri":"internal://<id>"}`, is replaced by the stored
//! value before the call is forwarded, so the server never sees a reference.
//!
//! - Where the tool's `inputSchema` says the argument is not a string (an array,
//!   an object, a number) and the stored value parses as JSON, the parsed value
//!   is substituted; otherwise the stored text, byte for byte.
//! - A reference of another session is left as it is: it belongs to another relay
//!   (relays can be chained), not to this one.
//! - A string that starts with `internal://` and has no whitespace is meant as a
//!   reference: when it is malformed or unknown the call is not forwarded, and
//!   the model gets an `isError` result naming it.

use serde_json::Value;

use crate::relay::reference::{self, SCHEME};
use crate::relay::store::{self, Access};
use crate::segment::Segment;

/// Whether `v` holds anything that looks like a reference (cheap: no lookups).
pub fn has_refs(v: &Value) -> bool {
    match v {
        Value::String(s) => looks_like_ref(s),
        Value::Array(a) => a.iter().any(has_refs),
        Value::Object(_) if reference::parse_json_form(v).is_some() => true,
        Value::Object(o) => o.values().any(has_refs),
        _ => false,
    }
}

fn looks_like_ref(s: &str) -> bool {
    s.starts_with(SCHEME) && s.len() <= SCHEME.len() + 80 && !s.contains(char::is_whitespace)
}

/// Replaces references in `args` (see the module docs). `schema` is the tool's
/// `inputSchema`, when known. Returns how many were replaced, or the message for
/// the model when one cannot be resolved.
pub fn unbox(
    args: &mut Value,
    schema: Option<&Value>,
    seg: &Segment,
    session: &str,
) -> Result<usize, String> {
    let mut errors = Vec::new();
    let mut count = 0;
    let root = schema.cloned().unwrap_or(Value::Bool(true));
    walk(
        args,
        Some(&root),
        &root,
        seg,
        session,
        &mut errors,
        &mut count,
    );
    if errors.is_empty() {
        Ok(count)
    } else {
        errors.dedup();
        Err(format!(
            "ctx relay could not resolve the reference(s) in the arguments, so the call was not sent:\n{}\nUse a reference exactly as a boxed result gave it (`internal://` + 16 characters), from this session.",
            errors.join("\n")
        ))
    }
}

fn walk(
    v: &mut Value,
    schema: Option<&Value>,
    root: &Value,
    seg: &Segment,
    session: &str,
    errors: &mut Vec<String>,
    count: &mut usize,
) {
    let schema = schema.map(|s| deref(root, s));
    let target = match &*v {
        Value::String(s) if looks_like_ref(s) => Some(reference::parse_reference(s)),
        Value::Object(_) => reference::parse_json_form(v).map(Ok),
        _ => None,
    };
    if let Some(parsed) = target {
        let id = match parsed {
            Ok(id) => id,
            Err(e) => {
                errors.push(format!("- {e}"));
                return;
            }
        };
        let access = Access {
            session: session.to_string(),
            any_session: true,
        };
        match store::open_id(seg, &id, &access) {
            Ok(opened) if opened.row.session == session => {
                *v = typed(opened.value, schema);
                *count += 1;
            }
            Ok(_) => {}
            Err(e) => errors.push(format!("- {e}")),
        }
        return;
    }
    match v {
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                let sub = schema.and_then(|s| {
                    s.get("prefixItems")
                        .and_then(|p| p.get(i))
                        .or_else(|| s.get("items").filter(|x| x.is_object()))
                });
                walk(item, sub, root, seg, session, errors, count);
            }
        }
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                let sub = schema.and_then(|s| {
                    s.get("properties")
                        .and_then(|p| p.get(key))
                        .or_else(|| s.get("additionalProperties").filter(|x| x.is_object()))
                });
                walk(field, sub, root, seg, session, errors, count);
            }
        }
        _ => {}
    }
}

fn deref<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) if r.starts_with('#') => root.pointer(&r[1..]).unwrap_or(schema),
        _ => schema,
    }
}

/// The stored text, or its parsed JSON where the schema wants something other
/// than a string.
fn typed(text: String, schema: Option<&Value>) -> Value {
    let wants_string = match schema.and_then(|s| s.get("type")) {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some("string")),
        // No type given: the text, as the server would get it without the relay.
        _ => true,
    };
    if !wants_string && let Ok(parsed) = serde_json::from_str::<Value>(&text) {
        return parsed;
    }
    Value::String(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn detects_references() {
        assert!(has_refs(
            &json!({"a": ["x", "internal://abcdefgh23456777"]})
        ));
        assert!(has_refs(
            &json!({"a": {"type": "resource_link", "uri": "internal://abcdefgh23456777"}})
        ));
        assert!(!has_refs(&json!({"a": "internal:// is a scheme"})));
        assert!(!has_refs(&json!({"a": "see internal://abcdefgh23456777"})));
    }

    #[test]
    fn typed_follows_the_schema() {
        let arr = json!({"type": "array"});
        assert_eq!(typed("[1,2]".into(), Some(&arr)), json!([1, 2]));
        assert_eq!(typed("[1,2]".into(), None), json!("[1,2]"));
        assert_eq!(typed("not json".into(), Some(&arr)), json!("not json"));
        let s = json!({"type": ["string", "null"]});
        assert_eq!(typed("{}".into(), Some(&s)), json!("{}"));
    }
}
