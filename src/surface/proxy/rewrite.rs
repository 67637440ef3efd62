//! What `ctx relay` intercepts in the JSON-RPC stream; everything else passes
//! through as the exact bytes received (ids, progress tokens, cancellations,
//! server-to-client requests, notifications and unknown fields included).
//!
//! Client to server:
//! - `tools/call` of an added tool: answered here (see `local`).
//! - `tools/call` of a server tool: arguments unboxed (see `unbox`) and checked
//!   against the tool's `inputSchema` (see `schema_check`); a call that fails gets
//!   an `isError` result and is not forwarded. A forwarded call gets a timer
//!   (`--call-timeout`): when it fires the client gets an `isError` result, the
//!   server a `notifications/cancelled`, and a late answer is dropped.
//! - `resources/read` of `internal://…`: answered here.
//! - `notifications/cancelled` for a call still being prepared: the call is dropped.
//!
//! Server to client, only for responses to requests tracked here:
//! - `initialize` / `server/discover`: `resources` (and `tools`) capabilities added
//!   when absent, so clients will read `internal://` links.
//! - `tools/list`: `outputSchema` removed from every tool (a boxed result has no
//!   schema-valid `structuredContent`, and the MCP clients reject that; see
//!   `boxing`), and the added tools appended on the last page, each renamed
//!   `ctx_<name>` when the server already has a tool of that name. A server
//!   without tools (`-32601`) gets a list of just the added tools.
//! - `resources/list` and `resources/templates/list` answered `-32601` by a
//!   server without resources: an empty list instead (the capability was added).
//! - `tools/call`: large results boxed (see `boxing`).
//!
//! Results made here follow the request's era: with
//! `_meta["io.modelcontextprotocol/protocolVersion"]` (2026-07-28) they carry
//! `resultType: "complete"` (and `ttlMs`/`cacheScope` where that era wants them).

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;

use super::boxing::BoxConfig;
use super::local::{self, LocalContext};
use super::local_calls::LocalCall;
use super::schema_check::{self, Checker};
use super::unbox;
use super::{Event, Prepared};

const VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// Settings of one proxy run, shared with blocking tasks.
pub struct Shared {
    /// How results are boxed.
    pub boxing: BoxConfig,
    /// What the added tools work on.
    pub local: LocalContext,
    /// Check arguments against `inputSchema`.
    pub validate: bool,
    /// How long a forwarded `tools/call` may take.
    pub call_timeout: Duration,
}

/// A tracked request: the responses the proxy rewrites.
#[derive(Debug, Clone)]
pub(super) enum Method {
    /// `initialize` or `server/discover`.
    Handshake,
    /// `tools/list`.
    ToolsList,
    /// `resources/list` or (`templates`) `resources/templates/list`.
    ResourcesList { templates: bool },
    /// `tools/call` of a server tool.
    ToolsCall { tool: String },
}

/// A forwarded request awaiting the child's response.
pub(super) struct Pending {
    /// The client's id, as sent.
    pub(super) id: Value,
    /// What was asked.
    pub(super) method: Method,
    /// The request carried the 2026-07-28 `_meta` envelope.
    pub(super) modern: bool,
    /// The `--call-timeout` timer of a `tools/call`.
    pub(super) timer: Option<AbortHandle>,
}

/// A tool of the child, from its `tools/list`.
pub(super) struct ChildTool {
    /// Its `inputSchema`.
    pub(super) schema: Value,
    /// The compiled schema (`Some(None)`: it does not compile, so no checks).
    pub(super) checker: Option<Option<Arc<Checker>>>,
}

/// The router's state: pending requests, the child's tools, the added tools' names.
pub struct Router {
    /// Settings of this run.
    pub(super) shared: Arc<Shared>,
    /// Lines to the client.
    pub(super) to_client: UnboundedSender<Vec<u8>>,
    /// Lines to the child (`None` once the client closed stdin).
    pub(super) to_child: Option<UnboundedSender<Vec<u8>>>,
    /// The event loop's inbox, for tasks.
    pub(super) events: UnboundedSender<Event>,
    /// Tracked requests by id key.
    pub(super) pending: HashMap<String, Pending>,
    /// Calls being unboxed off the router; `true` once the client cancelled one.
    pub(super) preparing: HashMap<String, bool>,
    /// Calls answered by the timeout; the child's late answer is dropped.
    pub(super) timed_out: HashSet<String>,
    /// The child's tools by name.
    pub(super) tools: HashMap<String, ChildTool>,
    /// Child tool names seen since the last first page of `tools/list`.
    pub(super) listing: HashSet<String>,
    /// Name the client sees -> canonical added-tool name.
    pub(super) local_names: HashMap<String, &'static str>,
    /// Compiled schemas of the added tools.
    pub(super) local_checkers: HashMap<&'static str, Arc<Checker>>,
    /// Calls of the added tools being answered, by id key.
    pub(super) local_calls: HashMap<String, LocalCall>,
    /// Blocking tasks whose answer has not come back yet.
    pub in_flight: usize,
    /// The `--record` file.
    pub(super) record: Option<std::fs::File>,
}

/// The key of a JSON-RPC id: its JSON text, so `1` and `"1"` differ and `0` is a key.
pub fn key_of(id: &Value) -> String {
    id.to_string()
}

fn is_modern(msg: &Value) -> bool {
    msg.get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(VERSION_KEY))
        .is_some()
}

pub(super) fn response(id: &Value, result: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap_or_default()
}

pub(super) fn with_era(mut result: Value, modern: bool) -> Value {
    if modern && let Value::Object(o) = &mut result {
        o.entry("resultType").or_insert(json!("complete"));
    }
    result
}

impl Router {
    /// A router writing to the given channels.
    pub fn new(
        shared: Arc<Shared>,
        to_client: UnboundedSender<Vec<u8>>,
        to_child: UnboundedSender<Vec<u8>>,
        events: UnboundedSender<Event>,
        record: Option<std::fs::File>,
    ) -> Router {
        let local_checkers = local::local_tool_names()
            .into_iter()
            .filter_map(|t| {
                let checker = Checker::new(&local::checked_schema(t))?;
                Some((t.as_str(), Arc::new(checker)))
            })
            .collect();
        let mut router = Router {
            shared,
            to_client,
            to_child: Some(to_child),
            events,
            pending: HashMap::new(),
            preparing: HashMap::new(),
            local_calls: HashMap::new(),
            timed_out: HashSet::new(),
            tools: HashMap::new(),
            listing: HashSet::new(),
            local_names: HashMap::new(),
            local_checkers,
            in_flight: 0,
            record,
        };
        router.name_local_tools();
        router
    }

    /// Stops writing to the child (its stdin closes when the writer drains).
    pub fn close_child_input(&mut self) {
        self.to_child = None;
    }

    /// Tracked requests the child has not answered.
    pub fn pending_count(&self) -> usize {
        self.pending.len()
    }

    pub(super) fn send_client(&self, line: Vec<u8>) {
        let _ = self.to_client.send(line);
    }

    pub(super) fn send_child(&self, line: Vec<u8>) {
        if let Some(tx) = &self.to_child {
            let _ = tx.send(line);
        }
    }

    pub(super) fn record(&mut self, entry: Value) {
        if let Some(f) = &mut self.record {
            // A record that cannot be written must not break the session.
            let _ = writeln!(f, "{entry}").and_then(|()| f.flush());
        }
    }

    /// One line from the client.
    pub fn on_client(&mut self, line: Vec<u8>) {
        let msg: Value = match serde_json::from_slice(&line) {
            Ok(v @ Value::Object(_)) => v,
            _ => return self.send_child(line),
        };
        let method = msg
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = msg.get("id").filter(|v| !v.is_null()).cloned();
        match (method.as_deref(), id) {
            (Some(m), Some(id)) => self.on_request(m, id, msg, line),
            (Some("notifications/cancelled"), None) => self.on_cancel(&msg, line),
            _ => self.send_child(line),
        }
    }

    fn track(&mut self, id: Value, method: Method, modern: bool) {
        self.pending.insert(
            key_of(&id),
            Pending {
                id,
                method,
                modern,
                timer: None,
            },
        );
    }

    fn on_request(&mut self, method: &str, id: Value, msg: Value, line: Vec<u8>) {
        let modern = is_modern(&msg);
        match method {
            "initialize" | "server/discover" => self.track(id, Method::Handshake, modern),
            "tools/list" => {
                let first_page = msg.get("params").and_then(|p| p.get("cursor")).is_none();
                if first_page {
                    self.listing.clear();
                }
                self.track(id, Method::ToolsList, modern);
            }
            "resources/list" | "resources/templates/list" => {
                let templates = method == "resources/templates/list";
                self.track(id, Method::ResourcesList { templates }, modern);
            }
            "resources/read" => {
                let uri = msg.pointer("/params/uri").and_then(Value::as_str);
                if let Some(uri) = uri.filter(|u| u.starts_with("internal://")) {
                    return self.read_resource(id, uri.to_string(), modern);
                }
            }
            "tools/call" => return self.on_call(id, msg, line, modern),
            _ => {}
        }
        self.send_child(line);
    }

    fn on_cancel(&mut self, msg: &Value, line: Vec<u8>) {
        let Some(request) = msg.pointer("/params/requestId") else {
            return self.send_child(line);
        };
        let key = key_of(request);
        if let Some(cancelled) = self.preparing.get_mut(&key) {
            // The child never saw the request; it is dropped once prepared.
            *cancelled = true;
            return;
        }
        if self.cancel_local(&key) {
            return;
        }
        if let Some(p) = self.pending.get_mut(&key)
            && let Some(timer) = p.timer.take()
        {
            // The client gave up; no timeout answer must follow.
            timer.abort();
        }
        self.send_child(line);
    }

    fn on_call(&mut self, id: Value, mut msg: Value, line: Vec<u8>, modern: bool) {
        let Some(name) = msg.pointer("/params/name").and_then(Value::as_str) else {
            return self.send_child(line);
        };
        let name = name.to_string();
        let args = msg.pointer("/params/arguments").cloned();
        self.record(json!({"type": "call", "id": id, "tool": name, "arguments": args}));
        if let Some(canonical) = self.local_names.get(&name).copied() {
            return self.call_local(id, canonical, name, args.unwrap_or(json!({})), modern);
        }
        let checker = if self.shared.validate {
            self.checker_for(&name)
        } else {
            None
        };
        let mut changed = false;
        if self.shared.validate {
            match &args {
                None | Some(Value::Object(_)) => {}
                Some(Value::String(raw)) => match serde_json::from_str::<Value>(raw) {
                    // A stringified object (some clients send that): repaired.
                    Ok(parsed @ Value::Object(_)) => {
                        if let Some(slot) = msg.pointer_mut("/params/arguments") {
                            *slot = parsed;
                            changed = true;
                        }
                    }
                    Ok(other) => {
                        return self.reject(
                            id,
                            &name,
                            modern,
                            &not_object(&name, &other, checker.as_deref()),
                        );
                    }
                    Err(e) => {
                        return self.reject(
                            id,
                            &name,
                            modern,
                            &schema_check::unparseable(&name, raw, &e),
                        );
                    }
                },
                Some(other) => {
                    return self.reject(
                        id,
                        &name,
                        modern,
                        &not_object(&name, other, checker.as_deref()),
                    );
                }
            }
        }
        let has_refs = msg
            .pointer("/params/arguments")
            .is_some_and(unbox::has_refs);
        if has_refs {
            let key = key_of(&id);
            self.preparing.insert(key.clone(), false);
            self.in_flight += 1;
            let shared = self.shared.clone();
            let events = self.events.clone();
            let schema = self.tools.get(&name).map(|t| t.schema.clone());
            tokio::task::spawn_blocking(move || {
                let outcome = prepare(msg, &name, schema.as_ref(), checker.as_deref(), &shared);
                let _ = events.send(Event::Prepared {
                    key,
                    id,
                    tool: name,
                    modern,
                    outcome,
                });
            });
            return;
        }
        if let Some(checker) = &checker {
            // No `arguments` is checked as `{}`, which is what the server will see.
            let empty = json!({});
            let args = msg.pointer("/params/arguments").unwrap_or(&empty);
            if let Err(message) = checker.check(&name, args) {
                return self.reject(id, &name, modern, &message);
            }
        }
        let line = if changed {
            serde_json::to_vec(&msg).unwrap_or(line)
        } else {
            line
        };
        self.forward_call(id, name, modern, line);
    }

    fn checker_for(&mut self, name: &str) -> Option<Arc<Checker>> {
        let tool = self.tools.get_mut(name)?;
        tool.checker
            .get_or_insert_with(|| Checker::new(&tool.schema).map(Arc::new))
            .clone()
    }

    fn forward_call(&mut self, id: Value, tool: String, modern: bool, line: Vec<u8>) {
        let key = key_of(&id);
        let events = self.events.clone();
        let timeout = self.shared.call_timeout;
        let timer_key = key.clone();
        let timer = tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            let _ = events.send(Event::Timeout { key: timer_key });
        });
        self.timed_out.remove(&key);
        self.pending.insert(
            key,
            Pending {
                id,
                method: Method::ToolsCall { tool },
                modern,
                timer: Some(timer.abort_handle()),
            },
        );
        self.send_child(line);
    }

    /// Answers a call with an `isError` result, without forwarding it.
    pub(super) fn reject(&mut self, id: Value, tool: &str, modern: bool, message: &str) {
        self.answer(
            &id,
            tool,
            with_era(local::error_result(message), modern),
            None,
        );
    }

    pub(super) fn answer(
        &mut self,
        id: &Value,
        tool: &str,
        result: Value,
        reference: Option<Vec<String>>,
    ) {
        let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
        let mut entry = json!({"type": "result", "id": id, "tool": tool, "boxed": reference.is_some(), "is_error": is_error});
        if let Some(refs) = reference
            && let Some(first) = refs.first()
        {
            entry["reference"] = json!(first);
            if refs.len() > 1 {
                entry["references"] = json!(refs);
            }
        }
        self.record(entry);
        self.send_client(response(id, result));
    }

    /// An answer computed off the router (added tool, boxed result).
    pub fn on_answer(
        &mut self,
        id: Value,
        tool: String,
        result: Value,
        references: Option<Vec<String>>,
    ) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.answer(&id, &tool, result, references);
    }

    /// A result that was checked off the router and needed no boxing.
    pub fn on_passed(&mut self, id: Value, tool: String, is_error: bool, line: Vec<u8>) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.record(
            json!({"type": "result", "id": id, "tool": tool, "boxed": false, "is_error": is_error}),
        );
        self.send_client(line);
    }

    /// A raw line computed off the router (`resources/read`).
    pub fn on_reply(&mut self, line: Vec<u8>) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.send_client(line);
    }

    /// A call whose arguments were unboxed off the router.
    pub fn on_prepared(
        &mut self,
        key: String,
        id: Value,
        tool: String,
        modern: bool,
        outcome: Prepared,
    ) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.preparing.remove(&key) == Some(true) {
            return;
        }
        match outcome {
            Prepared::Forward(line) => self.forward_call(id, tool, modern, line),
            Prepared::Reject(message) => self.reject(id, &tool, modern, &message),
        }
    }

    /// The call timer of `key` fired.
    pub fn on_timeout(&mut self, key: String) {
        let tool = match self.pending.get(&key).map(|p| &p.method) {
            Some(Method::ToolsCall { tool }) => tool.clone(),
            _ => return,
        };
        let Some(p) = self.pending.remove(&key) else {
            return;
        };
        let secs = self.shared.call_timeout.as_secs_f64();
        let message = format!(
            "`{tool}` did not answer within {secs} s (ctx relay --call-timeout), so ctx relay cancelled the call. Try again, with a smaller request, or raise --call-timeout."
        );
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": p.id, "reason": "ctx relay: call timeout"}});
        self.send_child(serde_json::to_vec(&cancel).unwrap_or_default());
        self.timed_out.insert(key);
        self.reject(p.id, &tool, p.modern, &message);
    }
}

fn not_object(tool: &str, args: &Value, checker: Option<&Checker>) -> String {
    match checker {
        Some(c) => c.not_an_object(tool, args),
        None => format!(
            "Invalid arguments for tool `{tool}`: `arguments` must be a JSON object, received {} (the call was not sent).",
            schema_check::json_type(args)
        ),
    }
}

/// Unboxes and checks a call's arguments (blocking: reads stored values).
fn prepare(
    mut msg: Value,
    tool: &str,
    schema: Option<&Value>,
    checker: Option<&Checker>,
    shared: &Shared,
) -> Prepared {
    let Some(args) = msg.pointer_mut("/params/arguments") else {
        return Prepared::Reject("arguments vanished".into());
    };
    let session = &shared.boxing.session;
    if let Err(message) = unbox::unbox(args, schema, &shared.boxing.seg, session) {
        return Prepared::Reject(message);
    }
    if let Some(checker) = checker
        && let Err(message) = checker.check(tool, args)
    {
        return Prepared::Reject(message);
    }
    match serde_json::to_vec(&msg) {
        Ok(line) => Prepared::Forward(line),
        Err(e) => Prepared::Reject(format!("ctx relay could not encode the call: {e}")),
    }
}
