//! Calls of the tools the proxy adds, answered off the router and tracked by
//! id: the server never saw them, so a client's `notifications/cancelled`
//! for one is not forwarded; it stops a query's worker process and drops the
//! answer (a cancelled request gets none, as MCP asks).

use serde_json::Value;
use tokio::sync::oneshot;

use super::Event;
use super::local;
use super::rewrite::{Router, key_of, with_era};
use crate::surface::mcp::tools::ToolName;

/// An added tool's call being answered.
pub(super) struct LocalCall {
    /// Stops the call's work (a query's worker) when sent or dropped.
    stop: Option<oneshot::Sender<()>>,
    /// The client cancelled it: its answer is dropped.
    cancelled: bool,
}

impl Router {
    /// Answers a call of the added tool `canonical` (named `name` by the
    /// client) off the router, after checking its arguments.
    pub(super) fn call_local(
        &mut self,
        id: Value,
        canonical: &'static str,
        name: String,
        args: Value,
        modern: bool,
    ) {
        if let Some(checker) = self.local_checkers.get(canonical) {
            let check = match &args {
                Value::Object(_) => checker.check(&name, &args),
                other => Err(checker.not_an_object(&name, other)),
            };
            if let Err(message) = check {
                return self.reject(id, &name, modern, &message);
            }
        }
        self.in_flight += 1;
        let key = key_of(&id);
        let shared = self.shared.clone();
        let events = self.events.clone();
        let is_query = ToolName::parse(canonical) == Some(ToolName::Query);
        let (stop, stopped) = oneshot::channel::<()>();
        self.local_calls.insert(
            key.clone(),
            LocalCall {
                stop: Some(stop),
                cancelled: false,
            },
        );
        let answered = move |result: Value| {
            let _ = events.send(Event::LocalAnswer {
                key,
                id,
                tool: name,
                result: with_era(result, modern),
            });
        };
        if is_query {
            // A query runs in a worker process that the stop kills.
            tokio::spawn(async move {
                let stopped = async {
                    let _ = stopped.await;
                };
                answered(local::query(args, shared.local.clone(), stopped).await);
            });
            return;
        }
        // The other tools are short and blocking; a cancellation only drops
        // their answer.
        tokio::task::spawn_blocking(move || {
            let result = local::call_local(canonical, &args, &shared.local)
                .unwrap_or_else(|| local::error_result("unknown ctx relay tool"));
            answered(result);
        });
    }

    /// Cancels the added tool's call `key`; false when no such call runs.
    pub(super) fn cancel_local(&mut self, key: &str) -> bool {
        let Some(call) = self.local_calls.get_mut(key) else {
            return false;
        };
        call.cancelled = true;
        if let Some(stop) = call.stop.take() {
            let _ = stop.send(());
        }
        true
    }

    /// An added tool's answer, made off the router.
    pub fn on_local_answer(&mut self, key: String, id: Value, tool: String, result: Value) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self
            .local_calls
            .remove(&key)
            .is_some_and(|call| call.cancelled)
        {
            return;
        }
        self.answer(&id, &tool, result, None);
    }
}
