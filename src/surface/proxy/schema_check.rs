//! Checking `tools/call` arguments against the tool's `inputSchema` before the call
//! reaches the server, and saying exactly what is wrong when they do not fit.
//!
//! A model told only "invalid arguments" retries blindly; one told the JSON pointer,
//! the expected and received types, the fields and an example of valid arguments
//! fixes the call in one retry. The message becomes a tool result with
//! `isError: true` (MCP treats input validation errors as tool execution errors the
//! model should see), never a JSON-RPC error, which clients tend to hide.
//!
//! Schemas are compiled once per tool with the `jsonschema` crate (default dialect
//! 2020-12 when `$schema` is absent, as the 2026-07-28 spec says). A schema that does
//! not compile (or needs a remote `$ref`, which this build cannot fetch) is not
//! checked at all: the server stays the judge, as without the relay.

use jsonschema::Validator;
use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

/// At most this many problems are listed; the rest are counted.
const MAX_PROBLEMS: usize = 10;

/// Strings longer than this are shortened in messages and examples.
const MAX_SHOWN_CHARS: usize = 60;

/// A compiled `inputSchema`.
pub struct Checker {
    schema: Value,
    validator: Validator,
}

impl Checker {
    /// Compiles `schema`; `None` when it cannot be compiled (then nothing is checked).
    pub fn new(schema: &Value) -> Option<Checker> {
        let validator = jsonschema::validator_for(schema).ok()?;
        Some(Checker {
            schema: schema.clone(),
            validator,
        })
    }

    /// The schema this checker was compiled from.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// `Ok` when `args` fit; otherwise the repair message for `tool`.
    pub fn check(&self, tool: &str, args: &Value) -> Result<(), String> {
        let errors: Vec<_> = self.validator.iter_errors(args).collect();
        if errors.is_empty() {
            return Ok(());
        }
        let mut problems = Vec::new();
        let mut example = if args.is_object() {
            args.clone()
        } else {
            sample(&self.schema, &self.schema, 0)
        };
        for e in &errors {
            let path = e.instance_path().as_str().to_string();
            problems.push(format!(
                "- {}: {}",
                shown_path(&path),
                describe(&self.schema, e)
            ));
            repair(&self.schema, &mut example, &path, e.kind());
        }
        problems.dedup();
        let more = problems.len().saturating_sub(MAX_PROBLEMS);
        problems.truncate(MAX_PROBLEMS);
        if more > 0 {
            problems.push(format!("- … and {more} more"));
        }
        let mut message = format!(
            "Invalid arguments for tool `{tool}` (checked against its inputSchema by ctx relay; the call was not sent):\n{}\n",
            problems.join("\n")
        );
        message.push_str(&self.help(tool, example));
        Err(message)
    }

    /// The message for arguments that are not a JSON object at all.
    pub fn not_an_object(&self, tool: &str, args: &Value) -> String {
        let example = sample(&self.schema, &self.schema, 0);
        format!(
            "Invalid arguments for tool `{tool}`: `arguments` must be a JSON object, received {} {} (the call was not sent).\n{}",
            json_type(args),
            short(args),
            self.help(tool, example)
        )
    }

    /// Fields, an example that validates (when one can be made), and what to do.
    fn help(&self, tool: &str, mut example: Value) -> String {
        let mut out = String::new();
        let fields = fields(&self.schema);
        if !fields.is_empty() {
            out.push_str(&format!("Fields: {}.\n", fields.join(", ")));
        }
        if !self.validator.is_valid(&example) {
            example = sample(&self.schema, &self.schema, 0);
        }
        if self.validator.is_valid(&example) {
            shorten(&mut example);
            out.push_str(&format!("Valid arguments look like: {example}\n"));
        }
        out.push_str(&format!("Fix the arguments and call `{tool}` again."));
        out
    }
}

/// The message when a tool's arguments arrive as a string that is not JSON.
pub fn unparseable(tool: &str, raw: &str, error: &serde_json::Error) -> String {
    format!(
        "Invalid arguments for tool `{tool}`: `arguments` is a string that does not parse as a JSON object ({error}): {} (the call was not sent). Send `arguments` as a JSON object and call `{tool}` again.",
        short(&Value::String(raw.to_string()))
    )
}

fn shown_path(path: &str) -> String {
    if path.is_empty() {
        "(top level)".to_string()
    } else {
        path.to_string()
    }
}

fn describe(root: &Value, e: &jsonschema::ValidationError<'_>) -> String {
    let instance = e.instance();
    let received = format!("received {} {}", json_type(instance), short(instance));
    match e.kind() {
        ValidationErrorKind::Type { kind } => {
            let expected: Vec<&str> = match kind {
                TypeKind::Single(t) => vec![t.as_str()],
                TypeKind::Multiple(set) => set.iter().map(|t| t.as_str()).collect(),
            };
            format!("expected {}, {received}", expected.join(" or "))
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            let path = e.instance_path().as_str();
            let kind = subschema(root, path)
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(name))
                .map(|s| type_of(root, s))
                .map(|t| format!(" ({t})"))
                .unwrap_or_default();
            format!("missing required property `{name}`{kind}")
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let path = e.instance_path().as_str();
            let allowed: Vec<String> = subschema(root, path)
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            let names: Vec<String> = unexpected.iter().map(|u| format!("`{u}`")).collect();
            format!(
                "unexpected propert{} {} (not in the schema; allowed: {})",
                if names.len() == 1 { "y" } else { "ies" },
                names.join(", "),
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            )
        }
        ValidationErrorKind::Enum { options } => format!("expected one of {options}, {received}"),
        ValidationErrorKind::Constant { expected_value } => {
            format!("expected {expected_value}, {received}")
        }
        ValidationErrorKind::Minimum { limit } => format!("expected at least {limit}, {received}"),
        ValidationErrorKind::Maximum { limit } => format!("expected at most {limit}, {received}"),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            format!("expected more than {limit}, {received}")
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            format!("expected less than {limit}, {received}")
        }
        ValidationErrorKind::MinLength { limit } => {
            format!("expected a string of at least {limit} characters, {received}")
        }
        ValidationErrorKind::MaxLength { limit } => {
            format!("expected a string of at most {limit} characters, {received}")
        }
        ValidationErrorKind::MinItems { limit } => {
            format!("expected at least {limit} items, {received}")
        }
        ValidationErrorKind::MaxItems { limit } => {
            format!("expected at most {limit} items, {received}")
        }
        ValidationErrorKind::Pattern { pattern } => {
            format!("expected a string matching the regex `{pattern}`, {received}")
        }
        ValidationErrorKind::Format { format } => {
            format!("expected a string in format `{format}`, {received}")
        }
        // The library's wording for the rest, cut: its Display embeds the whole
        // instance, which may be a multi-megabyte unboxed value.
        _ => cut(&e.to_string(), 300),
    }
}

/// Edits `example` so that the problem `kind` at `path` goes away.
fn repair(root: &Value, example: &mut Value, path: &str, kind: &ValidationErrorKind) {
    match kind {
        ValidationErrorKind::Required { property } => {
            let Some(name) = property.as_str() else {
                return;
            };
            let value = subschema(root, path)
                .and_then(|s| s.get("properties"))
                .and_then(|p| p.get(name))
                .map(|s| sample(root, s, 0))
                .unwrap_or(Value::Null);
            if let Some(Value::Object(o)) = example.pointer_mut(path) {
                o.insert(name.to_string(), value);
            }
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            if let Some(Value::Object(o)) = example.pointer_mut(path) {
                for u in unexpected {
                    o.shift_remove(u);
                }
            }
        }
        _ => {
            let value = subschema(root, path).map(|s| sample(root, s, 0));
            if let (Some(slot), Some(value)) = (example.pointer_mut(path), value) {
                *slot = value;
            }
        }
    }
}

/// Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`).
fn deref<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    let mut s = schema;
    for _ in 0..8 {
        match s.get("$ref").and_then(Value::as_str) {
            Some(r) if r.starts_with('#') => match root.pointer(&r[1..]) {
                Some(target) => s = target,
                None => break,
            },
            _ => break,
        }
    }
    s
}

/// The subschema that applies at an instance path (properties, items, one level of
/// anyOf/oneOf/allOf); `None` when the schema does not say.
fn subschema<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut s = deref(root, root);
    for raw in path.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        s = step(root, s, &segment)?;
    }
    Some(s)
}

fn step<'a>(root: &'a Value, s: &'a Value, segment: &str) -> Option<&'a Value> {
    if let Some(p) = s.get("properties").and_then(|p| p.get(segment)) {
        return Some(deref(root, p));
    }
    if let Ok(i) = segment.parse::<usize>() {
        if let Some(p) = s.get("prefixItems").and_then(|p| p.get(i)) {
            return Some(deref(root, p));
        }
        if let Some(items) = s.get("items").filter(|i| i.is_object()) {
            return Some(deref(root, items));
        }
    }
    if let Some(extra) = s.get("additionalProperties").filter(|a| a.is_object()) {
        return Some(deref(root, extra));
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = s.get(key).and_then(Value::as_array) {
            for b in branches {
                if let Some(found) = step(root, deref(root, b), segment) {
                    return Some(found);
                }
            }
        }
    }
    None
}

/// A short description of what a schema accepts: `string`, `array of string`,
/// `one of "a", "b"`.
fn type_of(root: &Value, schema: &Value) -> String {
    let s = deref(root, schema);
    if let Some(options) = s.get("enum").and_then(Value::as_array) {
        let shown: Vec<String> = options.iter().take(8).map(short).collect();
        return format!("one of {}", shown.join(", "));
    }
    if let Some(c) = s.get("const") {
        return format!("exactly {}", short(c));
    }
    let types: Vec<String> = match s.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect(),
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(branches) = s.get(key).and_then(Value::as_array) {
                    let parts: Vec<String> = branches.iter().map(|b| type_of(root, b)).collect();
                    return parts.join(" or ");
                }
            }
            return if s.get("properties").is_some() {
                "object".to_string()
            } else {
                "any JSON value".to_string()
            };
        }
    };
    types
        .iter()
        .map(|t| match (t.as_str(), s.get("items")) {
            ("array", Some(items)) if items.is_object() => {
                format!("array of {}", type_of(root, items))
            }
            _ => t.clone(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// `name (type, required)` for each top-level property.
fn fields(root: &Value) -> Vec<String> {
    let s = deref(root, root);
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = s.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| {
            let req = if required.contains(&name.as_str()) {
                ", required"
            } else {
                ""
            };
            format!("{name} ({}{req})", type_of(root, p))
        })
        .collect()
}

/// A value the schema accepts, built from defaults, examples, enums and types.
fn sample(root: &Value, schema: &Value, depth: usize) -> Value {
    let s = deref(root, schema);
    if depth > 6 {
        return Value::Null;
    }
    for key in ["default", "const"] {
        if let Some(v) = s.get(key) {
            return v.clone();
        }
    }
    for key in ["examples", "enum"] {
        if let Some(v) = s.get(key).and_then(|e| e.get(0)) {
            return v.clone();
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = s.get(key).and_then(Value::as_array) {
            let pick = branches
                .iter()
                .find(|b| deref(root, b).get("type").and_then(Value::as_str) != Some("null"))
                .or(branches.first());
            if let Some(b) = pick {
                return sample(root, b, depth + 1);
            }
        }
    }
    let kind = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if s.get("properties").is_some() => "object",
        _ => "string",
    };
    let number = |integer: bool| {
        let low = s
            .get("minimum")
            .and_then(Value::as_f64)
            .or_else(|| {
                s.get("exclusiveMinimum")
                    .and_then(Value::as_f64)
                    .map(|m| m + 1.0)
            })
            .unwrap_or(0.0);
        let high = s.get("maximum").and_then(Value::as_f64).unwrap_or(f64::MAX);
        let n = low.max(0.0_f64.min(high)).min(high);
        // Whole numbers print as `0`, not `0.0`: valid for "number" too, and
        // what a model would write.
        if integer || (n.fract() == 0.0 && n.abs() < 1e15) {
            Value::from(n.ceil() as i64)
        } else {
            Value::from(n)
        }
    };
    match kind {
        "integer" => number(true),
        "number" => number(false),
        "boolean" => Value::Bool(false),
        "null" => Value::Null,
        "array" => {
            let n = s
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(3);
            let item = s.get("items").cloned().unwrap_or(Value::Bool(true));
            Value::Array((0..n).map(|_| sample(root, &item, depth + 1)).collect())
        }
        "object" => {
            let mut o = Map::new();
            let required = s.get("required").and_then(Value::as_array);
            let props = s.get("properties").and_then(Value::as_object);
            if let (Some(required), Some(props)) = (required, props) {
                for r in required.iter().filter_map(Value::as_str) {
                    let p = props.get(r).cloned().unwrap_or(Value::Bool(true));
                    o.insert(r.to_string(), sample(root, &p, depth + 1));
                }
            }
            Value::Object(o)
        }
        _ => {
            let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let text = match s.get("format").and_then(Value::as_str) {
                Some("uri") => "https://example.com/".to_string(),
                Some("date-time") => "2026-01-01T00:00:00Z".to_string(),
                Some("date") => "2026-01-01".to_string(),
                Some("email") => "user@example.com".to_string(),
                _ => "text".to_string(),
            };
            let pad = min.saturating_sub(text.chars().count());
            Value::String(text + &"x".repeat(pad.min(64)))
        }
    }
}

/// Cuts long strings (an example built from the model's own arguments may hold an
/// unboxed multi-megabyte value).
fn shorten(v: &mut Value) {
    match v {
        Value::String(s) if s.chars().count() > MAX_SHOWN_CHARS => {
            let head: String = s.chars().take(MAX_SHOWN_CHARS).collect();
            *s = format!("{head}…");
        }
        Value::Array(a) => a.iter_mut().for_each(shorten),
        Value::Object(o) => o.values_mut().for_each(shorten),
        _ => {}
    }
}

/// The JSON type name of a value, as JSON Schema spells it.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A value as compact JSON, cut to a readable length.
fn short(v: &Value) -> String {
    let mut v = v.clone();
    shorten(&mut v);
    cut(&v.to_string(), 120)
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let head: String = s.chars().take(max).collect();
    format!("{head}…")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn strict() -> Checker {
        Checker::new(&json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1},
                "count": {"type": "integer", "minimum": 1},
                "tags": {"type": "array", "items": {"type": "string"}},
                "mode": {"enum": ["fast", "slow"]}
            },
            "required": ["name", "count"],
            "additionalProperties": false
        }))
        .expect("compiles")
    }

    #[test]
    fn valid_arguments_pass() {
        assert!(
            strict()
                .check("t", &json!({"name": "a", "count": 2}))
                .is_ok()
        );
    }

    #[test]
    fn message_names_pointer_expected_received_and_example() {
        let err = strict()
            .check("t", &json!({"count": "3", "tags": ["a", 5], "colour": 1}))
            .expect_err("invalid");
        assert!(
            err.contains("/count: expected integer, received string \"3\""),
            "{err}"
        );
        assert!(
            err.contains("/tags/1: expected string, received integer 5"),
            "{err}"
        );
        assert!(
            err.contains("missing required property `name` (string)"),
            "{err}"
        );
        assert!(err.contains("unexpected property `colour`"), "{err}");
        assert!(
            err.contains("name (string, required), count (integer, required)"),
            "{err}"
        );
        let example = err
            .lines()
            .find_map(|l| l.strip_prefix("Valid arguments look like: "))
            .expect("example");
        let example: Value = serde_json::from_str(example).expect("json");
        assert!(strict().check("t", &example).is_ok(), "{example}");
        assert_eq!(example["tags"], json!(["a", "text"]));
    }

    #[test]
    fn huge_values_are_shortened() {
        let big = "y".repeat(1_000_000);
        let err = strict()
            .check("t", &json!({"name": big, "count": 0}))
            .expect_err("invalid");
        assert!(err.len() < 2_000, "{}", err.len());
        assert!(
            err.contains("/count: expected at least 1, received integer 0"),
            "{err}"
        );
    }

    #[test]
    fn refs_and_non_objects() {
        let c = Checker::new(&json!({
            "type": "object",
            "$defs": {"P": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
            "properties": {"p": {"$ref": "#/$defs/P"}},
            "required": ["p"]
        }))
        .expect("compiles");
        let err = c.check("t", &json!({"p": {}})).expect_err("invalid");
        assert!(
            err.contains("/p: missing required property `x` (number)"),
            "{err}"
        );
        assert!(err.contains(r#"{"p":{"x":0}}"#), "{err}");
        let err = c.not_an_object("t", &json!("oops"));
        assert!(err.contains("received string \"oops\""), "{err}");
    }
}
