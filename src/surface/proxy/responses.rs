//! The server-to-client half of `rewrite`: responses to tracked requests
//! (`initialize`/`server/discover`, `tools/list`, resource lists, `tools/call`),
//! `resources/read` of boxed values, and answers owed when the server is gone.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::Event;
use super::boxing;
use super::local;
use super::rewrite::{ChildTool, Method, Pending, Router, Shared, key_of, response, with_era};
use crate::relay::store::{self, Access};
use crate::surface::mcp::tools::ToolName;

impl Router {
    pub(super) fn read_resource(&mut self, id: Value, uri: String, modern: bool) {
        self.in_flight += 1;
        let shared = self.shared.clone();
        let events = self.events.clone();
        tokio::task::spawn_blocking(move || {
            let line = read_internal(&id, &uri, modern, &shared);
            let _ = events.send(Event::Reply(line));
        });
    }

    /// One line from the child.
    pub fn on_child(&mut self, line: Vec<u8>) {
        let msg: Value = match serde_json::from_slice(&line) {
            Ok(v @ Value::Object(_)) => v,
            _ => return self.send_client(line),
        };
        let id = match msg.get("id") {
            Some(id) if !id.is_null() && msg.get("method").is_none() => id,
            _ => return self.send_client(line),
        };
        let key = key_of(id);
        if self.timed_out.remove(&key) {
            return; // the client already got the timeout result
        }
        let Some(p) = self.pending.remove(&key) else {
            return self.send_client(line);
        };
        if let Some(timer) = &p.timer {
            timer.abort();
        }
        let mut msg = msg;
        let changed = match p.method {
            Method::Handshake => add_capabilities(&mut msg),
            Method::ToolsList => self.rewrite_tools_list(&mut msg, p.modern),
            Method::ResourcesList { templates } => empty_list(&mut msg, templates, p.modern),
            Method::ToolsCall { tool } => {
                return self.on_call_result(p.id, tool, p.modern, msg, line);
            }
        };
        // Unchanged messages keep their exact bytes.
        if changed {
            self.send_client(serde_json::to_vec(&msg).unwrap_or(line));
        } else {
            self.send_client(line);
        }
    }

    fn on_call_result(&mut self, id: Value, tool: String, modern: bool, msg: Value, line: Vec<u8>) {
        let result = match msg.get("result") {
            Some(r) if r.is_object() => r,
            _ => {
                self.record(json!({"type": "result", "id": id, "tool": tool, "boxed": false, "is_error": true}));
                return self.send_client(line);
            }
        };
        if !self.shared.boxing.may_box(line.len()) {
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            self.record(json!({"type": "result", "id": id, "tool": tool, "boxed": false, "is_error": is_error}));
            return self.send_client(line);
        }
        self.in_flight += 1;
        let shared = self.shared.clone();
        let events = self.events.clone();
        tokio::task::spawn_blocking(move || {
            let mut msg = msg;
            let mut result = msg.get_mut("result").map(Value::take).unwrap_or_default();
            let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
            let event = match boxing::box_result(&mut result, &tool, &shared.boxing) {
                Ok(refs) if !refs.is_empty() => Event::Answer {
                    id,
                    tool,
                    result: with_era(result, modern),
                    references: Some(refs),
                },
                Ok(_) => Event::Passed {
                    id,
                    tool,
                    is_error,
                    line,
                },
                Err(e) => {
                    // Storing failed (disk full, lock held too long): the client
                    // still gets the result, as it would without the relay.
                    eprintln!(
                        "ctx relay: could not box the result of `{tool}`, passing it on: {e}"
                    );
                    Event::Passed {
                        id,
                        tool,
                        is_error,
                        line,
                    }
                }
            };
            let _ = events.send(event);
        });
    }

    fn rewrite_tools_list(&mut self, msg: &mut Value, modern: bool) -> bool {
        if msg.pointer("/error/code").and_then(Value::as_i64) == Some(-32601) {
            let Some(o) = msg.as_object_mut() else {
                return false;
            };
            o.shift_remove("error");
            self.name_local_tools();
            let mut result = json!({"tools": self.exposed_local_tools()});
            if modern {
                result["resultType"] = json!("complete");
                result["ttlMs"] = json!(0);
                result["cacheScope"] = json!("private");
            }
            o.insert("result".into(), result);
            return true;
        }
        let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) else {
            return false;
        };
        let last_page = result.get("nextCursor").is_none_or(Value::is_null);
        let Some(Value::Array(tools)) = result.get_mut("tools") else {
            return false;
        };
        for t in tools.iter_mut() {
            let Some(t) = t.as_object_mut() else { continue };
            t.shift_remove("outputSchema");
            if let Some(name) = t.get("name").and_then(Value::as_str) {
                self.listing.insert(name.to_string());
                let schema = t
                    .get("inputSchema")
                    .cloned()
                    .unwrap_or(json!({"type": "object"}));
                self.tools.insert(
                    name.to_string(),
                    ChildTool {
                        schema,
                        checker: None,
                    },
                );
            }
        }
        if last_page {
            self.name_local_tools();
            tools.extend(self.exposed_local_tools());
        }
        true
    }

    /// Names the added tools: `ctx_`-prefixed while a child tool has the name.
    pub(super) fn name_local_tools(&mut self) {
        self.local_names.clear();
        let mut names = HashMap::new();
        for canonical in local::local_tool_names().into_iter().map(ToolName::as_str) {
            let mut exposed = canonical.to_string();
            while self.listing.contains(&exposed) {
                exposed = format!("ctx_{exposed}");
            }
            self.local_names.insert(exposed.clone(), canonical);
            names.insert(canonical.to_string(), exposed);
        }
        if let Ok(mut shared) = self.shared.boxing.tool_names.lock() {
            *shared = names;
        }
    }

    fn exposed_local_tools(&self) -> Vec<Value> {
        let mut tools = local::local_tools();
        for t in &mut tools {
            let canonical = t
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if let Some((exposed, _)) = self.local_names.iter().find(|(_, c)| **c == canonical) {
                t["name"] = json!(exposed);
            }
        }
        tools
    }

    /// Answers every tracked request after the child is gone; returns how many.
    pub fn fail_pending(&mut self, why: &str) -> usize {
        let pending: Vec<Pending> = self.pending.drain().map(|(_, p)| p).collect();
        let n = pending.len();
        for p in pending {
            if let Some(timer) = &p.timer {
                timer.abort();
            }
            match &p.method {
                Method::ToolsCall { tool } => {
                    let message = format!("`{tool}` got no answer: {why}");
                    let tool = tool.clone();
                    self.reject(p.id, &tool, p.modern, &message);
                }
                _ => {
                    let error = json!({"jsonrpc": "2.0", "id": p.id,
                        "error": {"code": -32603, "message": format!("ctx relay: {why}")}});
                    self.send_client(serde_json::to_vec(&error).unwrap_or_default());
                }
            }
        }
        n
    }
}

/// Adds the capabilities the proxy serves; `true` when something changed.
fn add_capabilities(msg: &mut Value) -> bool {
    let Some(result) = msg.get_mut("result").and_then(Value::as_object_mut) else {
        return false;
    };
    let caps = result
        .entry("capabilities")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(caps) = caps.as_object_mut() else {
        return false;
    };
    let mut changed = false;
    for key in ["resources", "tools"] {
        if !caps.contains_key(key) {
            caps.insert(key.into(), json!({}));
            changed = true;
        }
    }
    changed
}

fn empty_list(msg: &mut Value, templates: bool, modern: bool) -> bool {
    if msg.pointer("/error/code").and_then(Value::as_i64) != Some(-32601) {
        return false;
    }
    let Some(o) = msg.as_object_mut() else {
        return false;
    };
    o.shift_remove("error");
    let key = if templates {
        "resourceTemplates"
    } else {
        "resources"
    };
    let mut result = json!({ key: [] });
    if modern {
        result["resultType"] = json!("complete");
        result["ttlMs"] = json!(0);
        result["cacheScope"] = json!("private");
    }
    o.insert("result".into(), result);
    true
}

/// `resources/read` of a boxed value: the response line.
fn read_internal(id: &Value, uri: &str, modern: bool, shared: &Shared) -> Vec<u8> {
    let access = Access {
        session: shared.boxing.session.clone(),
        any_session: false,
    };
    match store::open(&shared.boxing.seg, uri, &access) {
        Ok(opened) => {
            let blob = shared
                .boxing
                .blobs
                .lock()
                .ok()
                .and_then(|b| b.get(&opened.row.id).cloned());
            let content = match blob {
                Some(mime) => json!({"uri": uri, "mimeType": mime, "blob": opened.value}),
                None => {
                    let mime = match opened.row.media.as_str() {
                        "json" => "application/json",
                        "html" => "text/html",
                        "markdown" => "text/markdown",
                        _ => "text/plain",
                    };
                    json!({"uri": uri, "mimeType": mime, "text": opened.value})
                }
            };
            let mut result = json!({"contents": [content]});
            if modern {
                // Boxed values never change: clients may cache them for an hour.
                result["resultType"] = json!("complete");
                result["ttlMs"] = json!(3_600_000);
                result["cacheScope"] = json!("private");
            }
            response(id, result)
        }
        Err(e) => {
            // 2026-07-28 says -32602 for an unknown resource; earlier revisions -32002.
            let code = if modern { -32602 } else { -32002 };
            let error = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": code, "message": e.to_string(), "data": {"uri": uri}}});
            serde_json::to_vec(&error).unwrap_or_default()
        }
    }
}
