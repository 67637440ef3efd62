//! Tool calls from untrusted model text, for small local models: find the first
//! JSON object in prose or code fences, tolerate the common slips (single quotes,
//! trailing commas, comments, Python literals, unquoted keys, arguments given as
//! a JSON string), normalize the call's shape, and validate the arguments
//! against the tool's JSON Schema. Nothing is ever evaluated: the text is only
//! tokenized and re-serialized.

use serde::Serialize;
use serde_json::{Map, Value};

/// A slip that was repaired on the way to JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Slip {
    /// Text around the JSON (prose, code fences).
    Surrounded,
    /// `'single quoted'` strings.
    SingleQuotes,
    /// A comma before `}` or `]`.
    TrailingComma,
    /// `//` or `/* */` comments.
    Comment,
    /// `True`, `False`, `None`.
    PythonLiteral,
    /// `{name: 1}`.
    UnquotedKey,
    /// Arguments as a JSON string inside the JSON.
    StringifiedArguments,
    /// A missing closing bracket at the end of the text.
    Unclosed,
    /// `null` given for an optional argument (dropped: null means "not given").
    NullOptional,
}

/// A call extracted from text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extracted {
    /// The tool's name, when the text names one.
    pub name: Option<String>,
    /// The arguments object.
    pub arguments: Value,
    /// Slips repaired (empty when the JSON was clean apart from surrounding text).
    pub slips: Vec<Slip>,
}

/// Why no call could be extracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoCall(pub String);

/// Finds and repairs the first JSON object in `text` and normalizes it as a call.
pub fn extract(text: &str) -> Result<Extracted, NoCall> {
    let mut last_err = String::from("no `{` found: the text holds no JSON object");
    for (start, _) in text.match_indices('{') {
        match repair(&text[start..]) {
            Ok((value, mut slips, consumed)) => {
                let before = text[..start].trim();
                let after = text[start + consumed..].trim();
                if !before.is_empty() || !after.is_empty() {
                    slips.push(Slip::Surrounded);
                }
                let mut call = normalize(value, &mut slips);
                slips.sort();
                slips.dedup();
                // Prose and fences alone are not slips of the JSON itself.
                let only_surrounded = slips == [Slip::Surrounded];
                if only_surrounded {
                    slips.clear();
                }
                call.slips = slips;
                return Ok(call);
            }
            Err(e) => last_err = e,
        }
    }
    Err(NoCall(last_err))
}

/// Normalizes the shapes models use for a call into name + arguments.
fn normalize(value: Value, slips: &mut Vec<Slip>) -> Extracted {
    let mut v = value;
    // {"tool_calls": [ {...} ]} / {"function": {...}} wrappers.
    if let Some(first) = v
        .get("tool_calls")
        .and_then(Value::as_array)
        .and_then(|a| a.first())
    {
        v = first.clone();
    }
    if let Some(f) = v.get("function").filter(|f| f.is_object()) {
        v = f.clone();
    }
    let name = ["name", "tool", "tool_name", "function"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str).map(str::to_string));
    let args_key = ["arguments", "args", "parameters", "input"]
        .iter()
        .find(|k| v.get(**k).is_some());
    let arguments = match (name.is_some(), args_key) {
        (true, Some(k)) => match &v[*k] {
            Value::String(s) => match repair(s.trim()) {
                Ok((parsed, more, _)) => {
                    slips.push(Slip::StringifiedArguments);
                    slips.extend(more);
                    parsed
                }
                Err(_) => Value::String(s.clone()),
            },
            other => other.clone(),
        },
        (true, None) => {
            let mut m: Map<String, Value> = v.as_object().cloned().unwrap_or_default();
            for k in ["name", "tool", "tool_name", "function"] {
                m.remove(k);
            }
            Value::Object(m)
        }
        (false, _) => v,
    };
    Extracted {
        name,
        arguments,
        slips: Vec::new(),
    }
}

/// Re-serializes a lenient JSON object at the start of `s` as strict JSON.
/// Returns the value, the slips fixed, and how many bytes of `s` it used.
fn repair(s: &str) -> Result<(Value, Vec<Slip>, usize), String> {
    let mut out = String::with_capacity(s.len());
    let mut slips = Vec::new();
    let mut stack: Vec<char> = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    let mut consumed = s.len();
    while i < b.len() {
        let c = b[i] as char;
        match c {
            '{' | '[' => {
                stack.push(if c == '{' { '}' } else { ']' });
                out.push(c);
                i += 1;
            }
            '}' | ']' => {
                if stack.pop() != Some(c) {
                    return Err(format!("mismatched `{c}` at byte {i}"));
                }
                trim_trailing_comma(&mut out, &mut slips);
                out.push(c);
                i += 1;
                if stack.is_empty() {
                    consumed = i;
                    break;
                }
            }
            '"' | '\'' => {
                let (lit, next) = string_literal(s, i)?;
                if c == '\'' {
                    slips.push(Slip::SingleQuotes);
                }
                out.push_str(&serde_json::to_string(&lit).map_err(|e| e.to_string())?);
                i = next;
            }
            '/' if b.get(i + 1) == Some(&b'/') => {
                slips.push(Slip::Comment);
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            '/' if b.get(i + 1) == Some(&b'*') => {
                slips.push(Slip::Comment);
                i = s[i + 2..]
                    .find("*/")
                    .map(|p| i + 2 + p + 2)
                    .unwrap_or(b.len());
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let end = s[i..]
                    .find(|x: char| !(x.is_ascii_alphanumeric() || x == '_'))
                    .map(|p| i + p)
                    .unwrap_or(s.len());
                let word = &s[i..end];
                let next_non_ws = s[end..].trim_start().chars().next();
                match word {
                    "true" | "false" | "null" if next_non_ws != Some(':') => out.push_str(word),
                    "True" | "False" | "None" if next_non_ws != Some(':') => {
                        slips.push(Slip::PythonLiteral);
                        out.push_str(match word {
                            "True" => "true",
                            "False" => "false",
                            _ => "null",
                        });
                    }
                    _ if next_non_ws == Some(':') => {
                        slips.push(Slip::UnquotedKey);
                        out.push('"');
                        out.push_str(word);
                        out.push('"');
                    }
                    _ => return Err(format!("unexpected word `{word}` at byte {i}")),
                }
                i = end;
            }
            _ => {
                // Numbers, whitespace, `:` and `,` pass through; serde_json judges them.
                let ch = s[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    if !stack.is_empty() {
        // Models often stop right before the last brackets.
        slips.push(Slip::Unclosed);
        trim_trailing_comma(&mut out, &mut slips);
        while let Some(c) = stack.pop() {
            out.push(c);
        }
    }
    let value: Value =
        serde_json::from_str(&out).map_err(|e| format!("not JSON after repairs: {e}"))?;
    if !value.is_object() {
        return Err("the first JSON value is not an object".into());
    }
    Ok((value, slips, consumed))
}

fn trim_trailing_comma(out: &mut String, slips: &mut Vec<Slip>) {
    let trimmed = out.trim_end().len();
    if out[..trimmed].ends_with(',') {
        out.truncate(trimmed - 1);
        slips.push(Slip::TrailingComma);
    }
}

/// Reads a `"…"` or `'…'` literal starting at `start`; returns its value and the
/// index after it.
fn string_literal(s: &str, start: usize) -> Result<(String, usize), String> {
    let quote = s[start..].chars().next().unwrap_or('"');
    let mut value = String::new();
    let mut chars = s[start + 1..].char_indices();
    while let Some((k, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, 'n')) => value.push('\n'),
                Some((_, 't')) => value.push('\t'),
                Some((_, 'r')) => value.push('\r'),
                Some((_, 'b')) => value.push('\u{8}'),
                Some((_, 'f')) => value.push('\u{c}'),
                Some((_, 'u')) => {
                    let hex: String = chars.by_ref().take(4).map(|(_, h)| h).collect();
                    let code = u32::from_str_radix(&hex, 16)
                        .map_err(|_| format!("bad \\u escape `{hex}`"))?;
                    value.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                Some((_, other)) => value.push(other),
                None => break,
            },
            c if c == quote => return Ok((value, start + 1 + k + c.len_utf8())),
            c => value.push(c),
        }
    }
    Err(format!("unterminated string starting at byte {start}"))
}

/// Drops `null`-valued arguments that the schema does not require; models often
/// write `"doc": null` for "no filter". Returns whether anything was dropped.
pub fn drop_null_optionals(arguments: &mut Value, schema: &Value) -> bool {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(obj) = arguments.as_object_mut() else {
        return false;
    };
    let before = obj.len();
    obj.retain(|k, v| !v.is_null() || required.contains(&k.as_str()));
    obj.len() != before
}

/// Schema problems of `arguments`, each as `path: message`.
pub fn validate(schema: &Value, arguments: &Value) -> Result<Vec<String>, String> {
    let validator = jsonschema::validator_for(schema)
        .map_err(|e| format!("the tool's schema is invalid: {e}"))?;
    Ok(validator
        .iter_errors(arguments)
        .map(|e| {
            let path = e.instance_path().to_string();
            format!(
                "{}: {}",
                if path.is_empty() {
                    "(root)".to_string()
                } else {
                    path
                },
                e
            )
        })
        .collect())
}

/// The prompt that asks a model to fix its call in one retry.
pub fn repair_prompt(tool: &str, schema: &Value, problems: &[String]) -> String {
    format!(
        "Your call to `{tool}` was not valid: {}.\nOutput only JSON matching this schema, no prose, no code fences:\n{{\"name\": \"{tool}\", \"arguments\": {}}}\n",
        problems.join("; "),
        serde_json::to_string(schema).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clean_and_slips() {
        let e = extract(r#"{"name": "ctx_search", "arguments": {"query": "locks"}}"#).unwrap();
        assert_eq!(e.name.as_deref(), Some("ctx_search"));
        assert_eq!(e.arguments, json!({"query": "locks"}));
        assert!(e.slips.is_empty());
        let e = extract("Sure! ```json\n{'name': 'ctx_search', 'arguments': {'query': 'it\\'s', 'k': 3,},}\n```").unwrap();
        assert_eq!(e.arguments, json!({"query": "it's", "k": 3}));
        assert_eq!(
            e.slips,
            vec![Slip::Surrounded, Slip::SingleQuotes, Slip::TrailingComma]
        );
        let e = extract(
            r#"{"function": {"name": "ctx_get", "arguments": "{\"ids\": [\"a:0123456789\"]}"}}"#,
        )
        .unwrap();
        assert_eq!(e.arguments, json!({"ids": ["a:0123456789"]}));
        assert_eq!(e.slips, vec![Slip::StringifiedArguments]);
        let e = extract("{name: 'x', arguments: {flag: True, other: None} // done\n").unwrap();
        assert_eq!(e.arguments, json!({"flag": true, "other": null}));
        assert!(e.slips.contains(&Slip::Unclosed));
        assert!(extract("no json here").is_err());
        assert!(extract("{ this is not json }").is_err());
    }

    #[test]
    fn schema_problems() {
        let schema = json!({"type": "object", "properties": {"query": {"type": "string"}, "k": {"type": "integer"}}, "required": ["query"], "additionalProperties": false});
        assert!(
            validate(&schema, &json!({"query": "x"}))
                .unwrap()
                .is_empty()
        );
        let p = validate(&schema, &json!({"k": "three"})).unwrap();
        assert_eq!(p.len(), 2, "{p:?}");
        let prompt = repair_prompt("ctx_search", &schema, &p);
        assert!(prompt.contains("Output only JSON matching this schema, no prose"));
    }
}
