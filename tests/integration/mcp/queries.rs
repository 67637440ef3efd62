//! `internal_resource_query` in `ctx mcp` runs in a worker process: a
//! cancelled query's worker is killed, an endless one is answered at its
//! deadline, a greedy one at its memory limit, and the server goes on.

use std::time::{Duration, Instant};

use serde_json::json;

use super::super::proxy::driver::{Relay, WAIT, no_query_workers, query_workers, text_of};
use super::super::util::Env;
use super::harness::box_value;

#[test]
fn queries_are_stopped_at_their_limits_and_on_cancellation() {
    let env = Env::empty();
    let reference = box_value(&env, "{\"a\":[1,2,3]}", "default");
    let deep = box_value(&env, &("[".repeat(20_000) + &"]".repeat(20_000)), "default");
    let mut server = Relay::mcp(&env, &["--session", "default"]);
    server.initialize();
    let endless = json!({"opaque_reference": reference, "jq": "def f: f; f"});

    server.send(&json!({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
        "params": {"name": "internal_resource_query", "arguments": endless}}));
    let started = Instant::now();
    while query_workers(server.pid()).is_empty() {
        assert!(started.elapsed() < WAIT, "no worker started");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 41, "reason": "test"}}),
    );
    assert!(
        no_query_workers(server.pid(), Duration::from_secs(5)),
        "the cancelled query's worker still runs"
    );
    let sum = server.call(
        "internal_resource_query",
        json!({"opaque_reference": reference, "jq": ".a | add"}),
    );
    assert_eq!(text_of(&sum), "6", "{sum}");

    let started = Instant::now();
    let timed_out = server.call("internal_resource_query", endless);
    assert_eq!(timed_out["isError"], true, "{timed_out}");
    assert!(
        text_of(&timed_out).starts_with("jq query `def f: f; f` ran longer than 10 s"),
        "{timed_out}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));

    let greedy = server.call(
        "internal_resource_query",
        json!({"opaque_reference": reference, "jq": "\"x\" * 2000000000 | length"}),
    );
    assert!(
        text_of(&greedy).contains("MiB of memory and was stopped"),
        "{greedy}"
    );
    let too_deep = server.call(
        "internal_resource_query",
        json!({"opaque_reference": deep, "jq": "."}),
    );
    assert!(
        text_of(&too_deep).starts_with("value nests arrays or objects more than 1000 levels deep"),
        "{too_deep}"
    );
    assert!(no_query_workers(server.pid(), Duration::from_secs(5)));
}
