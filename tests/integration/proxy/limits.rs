//! Hostile results and queries through `ctx relay`: a server's text nested
//! far deeper than any reader's stack, and jq queries on boxed values that
//! never end, take all memory or are cancelled. The proxy answers each and
//! goes on.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::driver::{Relay, WAIT, no_query_workers, query_workers, reference_of, stub, text_of};
use crate::util::Env;

/// `[[[…]]]` 5,000 to 1,000,000 levels deep from the server is boxed (as
/// text): it used to overflow the stack of the proxy's boxing thread, and
/// the client saw the connection close. jq refuses it with a message.
#[test]
fn deeply_nested_results_are_boxed() {
    let env = Env::empty();
    for (opts, depth) in [
        (&[][..], 50_000),
        (&[][..], 1_000_000),
        (&["--threshold", "100"][..], 5_000),
    ] {
        let mut r = Relay::start(&env, opts, &stub(&[]), &[]);
        r.initialize();
        let boxed = r.call("nested", json!({"depth": depth}));
        let reference = reference_of(&boxed);
        assert!(text_of(&boxed).contains("text value"), "{depth}: {boxed}");
        let query = r.call(
            "internal_resource_query",
            json!({"opaque_reference": reference, "jq": "."}),
        );
        assert_eq!(query["isError"], true, "{query}");
        assert_eq!(
            text_of(&query),
            "value nests arrays or objects more than 1000 levels deep, too deep for a jq query; use grep, lines or slice instead"
        );
        let echo = r.call("echo", json!({"message": "still here"}));
        assert_eq!(text_of(&echo), "Echo: still here");
    }
}

/// A boxed JSON value of 50 rows, through a proxy that boxes it.
fn rows(r: &mut Relay) -> String {
    let boxed = r.call("rows", json!({"count": 50}));
    reference_of(&boxed)
}

/// A query cancelled by the client has its worker killed and gets no
/// answer; a query that never ends is answered at the 10 s deadline; one
/// that needs too much memory is stopped at once; the proxy goes on.
#[test]
fn queries_are_stopped_at_their_limits_and_on_cancellation() {
    let env = Env::empty();
    let mut r = Relay::start(&env, &["--threshold", "10"], &stub(&[]), &[]);
    r.initialize();
    let reference = rows(&mut r);
    let endless = json!({"opaque_reference": reference, "jq": "def f: f; f"});

    r.send(
        &json!({"jsonrpc": "2.0", "id": "q-1", "method": "tools/call",
        "params": {"name": "internal_resource_query", "arguments": endless}}),
    );
    let started = Instant::now();
    while query_workers(r.pid()).is_empty() {
        assert!(started.elapsed() < WAIT, "no worker started");
        std::thread::sleep(Duration::from_millis(20));
    }
    r.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "q-1", "reason": "test"}}),
    );
    assert!(
        no_query_workers(r.pid(), Duration::from_secs(5)),
        "the cancelled query's worker still runs"
    );
    let count = r.call(
        "internal_resource_query",
        json!({"opaque_reference": reference, "jq": ".rows | length"}),
    );
    assert_eq!(text_of(&count), "50", "{count}");
    assert!(
        r.others.iter().all(|m| m["id"] != "q-1"),
        "the cancelled call was answered: {:?}",
        r.others
    );

    let started = Instant::now();
    let timed_out = r.call("internal_resource_query", endless);
    assert_eq!(timed_out["isError"], true, "{timed_out}");
    assert!(
        text_of(&timed_out).starts_with("jq query `def f: f; f` ran longer than 10 s"),
        "{timed_out}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));

    let greedy = r.call(
        "internal_resource_query",
        json!({"opaque_reference": reference, "jq": "\"x\" * 2000000000 | length"}),
    );
    assert!(
        text_of(&greedy).contains("MiB of memory and was stopped"),
        "{greedy}"
    );
    let echo: Value = r.call("echo", json!({"message": "after"}));
    assert_eq!(text_of(&echo), "Echo: after");
    assert!(no_query_workers(r.pid(), Duration::from_secs(5)));
}
