//! What `box --preview` tells about a JSON value before any query: its
//! shape, the values of its items' categorical fields, and jq that runs.

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
