//! What the relay tells about a JSON value's shape: `box --preview` before
//! any query (its keys, the values of its items' categorical fields, jq that
//! runs), and `resolve query` when a query's path names a key it lacks.

use predicates::prelude::*;

use super::super::util::{Env, boxed};
use super::resolve;

/// A list of services, a few failing: the preview counts each region and
/// status, and its selection example picks the rare status (not one region
/// of three, though `region` comes first); run as printed, it returns
/// exactly the failing items.
#[test]
fn a_preview_counts_categorical_values_and_selects_the_rare_one() {
    let env = Env::empty();
    let items: Vec<serde_json::Value> = (0..5_000)
        .map(|i| {
            let region = ["eu", "us", "ap"][i % 3];
            serde_json::json!({
                "id": i,
                "name": format!("svc-{i}"),
                "region": region,
                "status": if i % 97 == 0 { "error" } else { "ok" },
                "log": "x".repeat(80),
            })
        })
        .collect();
    let value = serde_json::json!({ "items": items }).to_string();
    let out = boxed(env.path(), &value, &["--tool", "list", "--preview"]);
    let reference = out.lines().next().expect("reference");
    assert!(reference.starts_with("internal://"), "{out}");
    assert!(
        out.contains(
            "\nvalues:\n  .items[] | .region: \"eu\" ×1667, \"us\" ×1667, \"ap\" ×1666\n  .items[] | .status: \"ok\" ×4948, \"error\" ×52\ntry jq:\n"
        ),
        "{out}"
    );
    let select = ".items[] | select(.status == \"error\")";
    assert!(out.contains(&format!("\n  {select}\n")), "{out}");
    let failing = resolve(&env, &["query", reference, select, "--json"]);
    let failing: serde_json::Value = serde_json::from_str(&failing).expect("json");
    let outputs = failing["outputs"].as_array().expect("outputs");
    assert_eq!(outputs.len(), 52, "{failing}");
}

/// A query whose path names a key the value lacks prints jq's `null` and
/// exits 0, as jq does, and says on stderr which key is missing and which
/// keys there are; `--json` carries the same note.
#[test]
fn a_query_naming_a_missing_key_says_so() {
    let env = Env::empty();
    let items: Vec<serde_json::Value> = (0..2_000)
        .map(|i| serde_json::json!({"id": i, "status": "ok", "pad": "y".repeat(40)}))
        .collect();
    let value = serde_json::json!({ "items": items }).to_string();
    let out = boxed(env.path(), &value, &["--tool", "list"]);
    let reference = out.trim();
    env.ctx(&["resolve", "query", reference, ".items[0].stauts"])
        .assert()
        .success()
        .stdout("null\n")
        .stderr(predicate::str::contains(
            "`.items[0]` has no key `stauts` (jq gives null for it); its keys: id, status, pad",
        ));
    let r = env.json(&["resolve", "query", reference, ".itemz"]);
    assert_eq!(
        r["note"], "the value has no key `itemz` (jq gives null for it); its keys: items",
        "{r}"
    );
    env.ctx(&["resolve", "query", reference, ".items[0].status"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}
