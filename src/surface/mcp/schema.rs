//! Compact JSON Schemas for tool arguments, and the one-line argument signature
//! repair messages quote.
//!
//! schemars writes complete 2020-12 schemas; a model pays for every token of
//! them on every turn (`tools/list` goes into the prompt), so what tells a model
//! nothing is dropped here.

use rmcp::model::Tool;
use rmcp::schemars::{self, JsonSchema};
use serde_json::{Map, Value};

/// A compact JSON Schema of `T`: schemars' 2020-12 output without what costs
/// tokens and tells a model nothing (`$schema`, `title`, `format`, integer
/// bounds, `null` alternatives of optional fields, enum variant docs,
/// `additionalProperties`).
pub(super) fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let root = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.meta_schema = None;
            s.inline_subschemas = true;
        })
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = Value::from(root);
    compact(&mut value);
    match value {
        Value::Object(mut map) => {
            // The struct's own doc comment is for Rust readers; the tool description
            // already says what the arguments are for.
            map.remove("description");
            map
        }
        // A derived struct schema is always an object; an empty one is the safe fallback.
        _ => Map::new(),
    }
}

fn compact(value: &mut Value) {
    let Value::Object(map) = value else {
        if let Value::Array(items) = value {
            items.iter_mut().for_each(compact);
        }
        return;
    };
    // `additionalProperties: false` goes too: serde refuses unknown fields anyway,
    // with a repair message naming the expected ones.
    for key in [
        "$schema",
        "title",
        "format",
        "minimum",
        "maximum",
        "default",
        "additionalProperties",
    ] {
        map.remove(key);
    }
    // `Option<T>`: `"type": ["T", "null"]` → `"type": "T"` (optional = not required).
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if kept.len() == 1 {
            map.insert("type".into(), kept[0].clone());
        }
    }
    // `Option<Enum>`: `anyOf: [<enum>, {"type": "null"}]` → the enum itself.
    if let Some(Value::Array(alts)) = map.get("anyOf") {
        let kept: Vec<Value> = alts
            .iter()
            .filter(|a| a.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if kept.len() == 1
            && let Value::Object(inner) = &kept[0]
        {
            map.remove("anyOf");
            for (k, v) in inner {
                map.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    // Documented unit variants: `oneOf: [{"const": "a", "description": …}, …]` → `enum`.
    if let Some(Value::Array(alts)) = map.get("oneOf") {
        let consts: Option<Vec<Value>> = alts.iter().map(|a| a.get("const").cloned()).collect();
        if let Some(consts) = consts {
            map.remove("oneOf");
            map.insert("type".into(), Value::from("string"));
            map.insert("enum".into(), Value::Array(consts));
        }
    }
    if let Some(Value::Array(alts)) = map.get("enum")
        && map.get("type").is_none()
        && alts.iter().all(Value::is_string)
    {
        map.insert("type".into(), Value::from("string"));
    }
    map.values_mut().for_each(compact);
}

/// The tool's argument signature, e.g. `{"query": string, "k"?: integer}`, for
/// repair messages.
pub fn signature(tool: &Tool) -> String {
    let required: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parts = Vec::new();
    if let Some(Value::Object(props)) = tool.input_schema.get("properties") {
        for (name, schema) in props {
            let ty = match (schema.get("enum"), schema.get("type")) {
                (Some(Value::Array(e)), _) => {
                    e.iter().map(Value::to_string).collect::<Vec<_>>().join("|")
                }
                (_, Some(Value::String(t))) if t == "array" => {
                    let item = schema
                        .pointer("/items/type")
                        .and_then(Value::as_str)
                        .unwrap_or("any");
                    format!("[{item}, …]")
                }
                (_, Some(Value::String(t))) => t.clone(),
                _ => "any".into(),
            };
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            parts.push(format!("\"{name}\"{optional}: {ty}"));
        }
    }
    format!("{{{}}}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::mcp::tools::{ToolName, ToolSet, definition};

    #[test]
    fn signature_names_required_and_optional() {
        let tool = definition(ToolName::Slice, ToolSet::default());
        assert_eq!(
            signature(&tool),
            r#"{"opaque_reference": string, "start_index": integer, "length": integer}"#
        );
        let tool = definition(ToolName::Search, ToolSet::default());
        assert_eq!(
            signature(&tool),
            r#"{"query": string, "k"?: integer, "doc"?: string, "scope"?: "docs"|"relay"|"all", "kind"?: "code"|"docs"|"all"}"#
        );
    }
}
