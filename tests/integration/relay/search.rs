//! Searching boxed values: every matching window is a hit, each names the
//! `resolve` call that reads exactly it, and a docs search points to them.

use predicates::prelude::*;

use super::super::util::{Env, boxed};
use super::resolve;

/// A boxed log is windows of one value, not a document's sections: a search
/// names every window that matches (each with its own resolve call), not only
/// the best one.
#[test]
fn every_matching_window_of_a_boxed_log_is_a_hit() {
    let env = Env::empty();
    let mut log = String::new();
    for i in 0..3000 {
        if i % 1000 == 500 {
            log.push_str(&format!("{i}: upstream handshake refused by gateway\n"));
        } else {
            log.push_str(&format!("{i}: request served in {} ms\n", i % 17));
        }
    }
    let r = boxed(env.path(), &log, &["--tool", "tail_log"]);
    let r = r.trim();
    let hits = env.json(&["search", "handshake refused", "--scope", "relay", "-k", "5"]);
    let starts: Vec<u64> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            assert_eq!(h["boxed"]["reference"], r, "{h}");
            h["boxed"]["start_line"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(starts.len(), 3, "one hit per matching window: {hits}");
    for (start, hit) in starts.iter().zip(hits["hits"].as_array().unwrap()) {
        let count = hit["boxed"]["line_count"].as_u64().unwrap().to_string();
        let lines = resolve(&env, &["lines", r, &start.to_string(), &count]);
        assert!(lines.contains("handshake refused"), "{lines}");
    }
}

/// A pod's log, as `kubectl logs` returns it: thousands of heartbeats and one
/// line that says why the pod died.
fn pod_log() -> String {
    let mut log: String = (0..4000)
        .map(|i| {
            format!(
                "{i:05} worker-{}: heartbeat ok, queue depth {}\n",
                i % 4,
                i % 9
            )
        })
        .collect();
    log.push_str("03999 worker-2: OOMKilled after 3 restarts, memory limit 512Mi\n");
    log
}

/// A docs search that finds nothing says when boxed tool outputs answer the
/// query, so an agent looks there instead of concluding nothing does. A word
/// only the boxed log holds ("worker") is still named absent from the docs
/// searched, as it was before anything was boxed.
#[test]
fn a_docs_search_without_evidence_points_to_matching_boxed_outputs() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    let query = "why was worker-2 OOMKilled";
    let hint = "Boxed tool outputs match this query: add `--scope relay`";
    // Nothing boxed yet: no evidence, and no hint.
    env.ctx(&["search", query])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("No evidence"))
        .stdout(predicate::str::contains(hint).not());
    let before = env.json(&["search", query]);

    boxed(env.path(), &pod_log(), &["--tool", "kubectl_logs"]);
    env.ctx(&["search", query])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("No evidence"))
        .stdout(predicate::str::contains(hint));
    let docs = env.json(&["search", query]);
    assert_eq!(docs["no_evidence"], true);
    assert_eq!(docs["relay_matches"], 1);
    assert_eq!(docs["absent"], before["absent"], "{docs} {before}");
    assert!(
        docs["absent"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == "worker"),
        "{docs}"
    );
    env.ctx(&["evidence", query])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "`ctx search --scope relay` finds them",
        ));
    // The hint's promise holds: the relay scope answers, and there the word
    // is not absent.
    let relay = env.json(&["search", query, "--scope", "relay"]);
    assert_eq!(relay["hits"][0]["title_path"][0], "kubectl_logs", "{relay}");
    assert!(relay.get("absent").is_none(), "{relay}");
    // A query the boxed output does not answer either gets no hint.
    env.ctx(&["search", "kubernetes admission webhook quota"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(hint).not());
}

/// A hit inside a one-line value (minified JSON, a bundled script) is a piece
/// of a line that holds the whole value: its resolve call is a character
/// slice that reads exactly the hit, not `lines 0 1`, which would read it all.
#[test]
fn a_hit_in_a_one_line_value_resolves_as_a_slice() {
    let env = Env::empty();
    let items: Vec<String> = (0..3000)
        .map(|i| {
            let kind = if i == 2345 { "quarantined" } else { "plain" };
            format!(r#"{{"id": {i}, "label": "naïve café {i}", "kind": "{kind}"}}"#)
        })
        .collect();
    let value = format!(r#"{{"items": [{}]}}"#, items.join(", "));
    assert!(!value.contains('\n'));
    let r = boxed(env.path(), &value, &["--tool", "api"]);
    let r = r.trim();
    let hits = env.json(&["search", "quarantined", "--scope", "relay", "-k", "1"]);
    let hit = &hits["hits"][0];
    let span = &hit["boxed"];
    assert_eq!(
        (&span["start_line"], &span["line_count"]),
        (&0.into(), &1.into()),
        "{hit}"
    );
    let start = span["start_index"].as_u64().expect("start_index") as usize;
    let length = span["length"].as_u64().expect("length") as usize;
    let got = env.json(&["get", "--mode", "raw", hit["id"].as_str().expect("id")]);
    let text = got["chunks"][0]["text"].as_str().expect("text");
    assert!(text.contains("quarantined"), "{text}");
    assert!(
        length < value.chars().count() / 10,
        "a piece, not the value"
    );
    // Counted in characters, as `resolve slice` counts: every item before it
    // has two that take two bytes.
    let b0 = value.find(text).expect("the hit is a piece of the value");
    assert_eq!(
        [start, length],
        [value[..b0].chars().count(), text.chars().count()]
    );

    let out = env
        .ctx(&["search", "quarantined", "--scope", "relay", "-k", "1"])
        .output()
        .expect("run");
    let out = String::from_utf8(out.stdout).expect("utf8");
    let call = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("ctx "))
        .unwrap_or_else(|| panic!("no resolve call in {out}"));
    assert_eq!(call, format!("resolve slice {r} {start} {length}"));
    let args: Vec<&str> = call.split(' ').collect();
    assert_eq!(resolve(&env, &args[1..]).trim_end_matches('\n'), text);
}

/// A boxed list of records (a package list, an API's items) is searched and
/// shown by what each record is: a hit names its record's `name` after its
/// index, so an agent can tell `tantivy-sstable` from `tantivy-common` without
/// reading either.
#[test]
fn a_record_in_a_boxed_list_is_named_in_its_hit() {
    let env = Env::empty();
    let notes = "an indexing library crate with many modules ".repeat(40);
    let packages: Vec<String> = ["tantivy-common", "tantivy-sstable", "serde"]
        .iter()
        .map(|name| format!(r#"{{"name": "{name}", "license": "MIT", "notes": "{notes}"}}"#))
        .collect();
    let value = format!(r#"{{"packages": [{}]}}"#, packages.join(",\n"));
    let args = ["--tool", "cargo_metadata", "--threshold-tokens", "100"];
    let r = boxed(env.path(), &value, &args);
    assert!(
        r.trim().starts_with("internal://"),
        "boxed, not passed through"
    );
    let hits = env.json(&["search", "sstable license", "--scope", "relay", "-k", "1"]);
    let title = hits["hits"][0]["title_path"].to_string();
    assert!(title.contains(r#""[1] tantivy-sstable""#), "{hits}");
}

/// A query naming a record finds that record first, even where its siblings
/// repeat the name more often than it does (`tantivy-common` depends on
/// `tantivy` and says so in every line), and the name alone finds the
/// record's first chunk, not the one that repeats the name most.
#[test]
fn a_boxed_record_named_by_the_query_ranks_first() {
    let env = Env::empty();
    let record = |name: &str, version: &str, notes: &str| {
        format!(r#"{{"name": "{name}", "version": "{version}", "notes": "{notes}"}}"#)
    };
    let chatty = "part of tantivy, used by tantivy, tests against tantivy ".repeat(90);
    let plain = "a full-text search engine library ".repeat(90);
    // The record itself is split too: its list of targets, which names it
    // in every path, comes after its name and version.
    let targets: Vec<String> = (0..60)
        .map(|i| format!(r#"{{"name": "bench{i}", "src_path": "tantivy/benches/tantivy_{i}.rs"}}"#))
        .collect();
    let tantivy = record("tantivy", "0.25.0", &plain);
    let tantivy = format!(
        r#"{}, "targets": [{}]}}"#,
        tantivy.trim_end_matches('}'),
        targets.join(", ")
    );
    let packages = [
        record("tantivy-common", "0.9.0", &chatty),
        tantivy,
        record("tantivy-sstable", "0.6.0", &chatty),
        record("serde", "1.0.228", &plain),
    ];
    let value = format!(r#"{{"packages": [{}]}}"#, packages.join(",\n"));
    let args = ["--tool", "cargo_metadata", "--threshold-tokens", "100"];
    assert!(
        boxed(env.path(), &value, &args)
            .trim()
            .starts_with("internal://")
    );
    for query in [
        "tantivy version",
        "tantivy",
        "what version of tantivy do we use",
    ] {
        let hits = env.json(&["search", query, "--scope", "relay", "-k", "3"]);
        let title = hits["hits"][0]["title_path"].to_string();
        // The record's first chunk, with its name and version.
        assert!(
            title.contains(r#""[1] tantivy","name … notes""#),
            "{query}: {hits}"
        );
    }
    // Words that name no record rank by text as before.
    let hits = env.json(&["search", "tests against", "--scope", "relay", "-k", "1"]);
    let title = hits["hits"][0]["title_path"].to_string();
    assert!(title.contains("tantivy-"), "{hits}");
}

/// `kubectl get pods -o json`: a list of objects named by `metadata.name`.
fn pod_list(count: usize) -> String {
    let pods: Vec<String> = (0..count)
        .map(|i| {
            let app = ["web", "coredns", "worker"][i % 3];
            let phase = if i == 22 { "Pending" } else { "Running" };
            format!(
                r#"{{"apiVersion": "v1", "kind": "Pod",
  "metadata": {{"name": "{app}-{i:05x}", "namespace": "prod", "labels": {{"app": "{app}", "pod-template-hash": "{i:05x}"}},
    "ownerReferences": [{{"kind": "ReplicaSet", "name": "{app}-rs"}}]}},
  "spec": {{"containers": [{{"name": "{app}", "image": "registry.local/{app}:1.{i}", "ports": [{{"containerPort": 8080}}],
    "resources": {{"limits": {{"cpu": "500m", "memory": "256Mi"}}}}}}], "nodeName": "node-{n}", "restartPolicy": "Always"}},
  "status": {{"phase": "{phase}", "restartCount": {i}, "podIP": "10.0.{n}.{i}", "conditions": [{{"type": "Ready", "status": "True"}}]}}}}"#,
                n = i % 5
            )
        })
        .collect();
    format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n{}\n]}}\n",
        pods.join(",\n")
    )
}

/// Each pod of a boxed pod list is a hit of its own, titled by its name, so a
/// search for one pod reads that pod and nothing of its neighbours.
#[test]
fn a_boxed_pod_list_is_searched_pod_by_pod() {
    let env = Env::empty();
    let r = boxed(env.path(), &pod_list(60), &["--tool", "kubectl_get_pods"]);
    let r = r.trim();
    assert!(r.starts_with("internal://"), "{r}");
    let hits = env.json(&[
        "search",
        "is coredns-00016 ready",
        "--scope",
        "relay",
        "-k",
        "3",
    ]);
    let hit = &hits["hits"][0];
    assert_eq!(
        hit["title_path"],
        serde_json::json!(["kubectl_get_pods", "items", "[22] coredns-00016"]),
        "{hits}"
    );
    let count = hit["boxed"]["line_count"].as_u64().unwrap().to_string();
    let start = hit["boxed"]["start_line"].as_u64().unwrap().to_string();
    let pod = resolve(&env, &["lines", r, &start, &count]);
    assert_eq!(pod.matches("\"kind\": \"Pod\"").count(), 1, "{pod}");
    assert!(pod.contains("\"phase\": \"Pending\""), "{pod}");
    // A pod's name alone leads to it too.
    let hits = env.json(&["search", "web-0001e", "--scope", "relay", "-k", "1"]);
    assert_eq!(hits["hits"][0]["title_path"][2], "[30] web-0001e", "{hits}");
}

/// Small records share chunks; a search naming one finds the chunk holding
/// it, and the preview shows that record, even where other records' text
/// holds the name's words ("77" in a colour).
#[test]
fn a_small_record_is_found_by_its_name_in_its_group() {
    let env = Env::empty();
    let labels: Vec<String> = (0..3000)
        .map(|i| {
            let color = if i % 7 == 0 { "77 aa00" } else { "e11d21" };
            format!(r#"{{"name": "label-{i}", "color": "{color}"}}"#)
        })
        .collect();
    let value = format!("[\n{}\n]\n", labels.join(",\n"));
    let r = boxed(env.path(), &value, &["--tool", "list_labels"]);
    assert!(r.trim().starts_with("internal://"), "{r}");
    let hits = env.json(&["search", "label-77", "--scope", "relay", "-k", "1"]);
    let hit = &hits["hits"][0];
    let group = hit["title_path"][1].as_str().unwrap();
    let range = group.split(' ').next().unwrap();
    let (from, to) = range.trim_matches(['[', ']']).split_once("..").unwrap();
    let (from, to): (usize, usize) = (from.parse().unwrap(), to.parse().unwrap());
    assert!((from..to).contains(&77), "{hits}");
    assert!(
        group.ends_with(&format!("label-{from} … label-{}", to - 1)),
        "{group}"
    );
    let preview = hit["preview"].as_str().unwrap();
    assert!(preview.contains(r#""label-77""#), "{preview}");
}
