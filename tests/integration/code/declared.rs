//! Members a container declares in its own chunk (a trait's required method,
//! an interface's method, a C++ prototype, a field, an enum variant) have no
//! chunk of their own, yet `ctx symbol Container::member` finds their lines.

use predicates::prelude::*;
use serde_json::json;

use super::super::util::Env;
use super::{candidate_list, code_env, cpp_sample_env};

/// Each language's kinds of declared member, by qualified name (C++'s
/// without its namespace), with the container named in text and JSON.
#[test]
fn symbol_finds_a_member_its_container_declares() {
    let env = code_env();
    let out = env.json(&["symbol", "--no-build", "Filter::accept"]);
    assert_eq!(out["symbol"], "Filter::accept", "{out}");
    assert_eq!(out["kind"], "method");
    assert_eq!(out["declared_in"], "trait Filter");
    assert_eq!(out["doc"], "rust/sample.rs");
    assert_eq!(out["symbol_lines"], json!([71, 72]));
    let text = out["text"].as_str().expect("text");
    assert!(
        text.starts_with("    /// True when `path` should be yielded.\n    fn accept(&self, path: &Path) -> bool;\n"),
        "{out}"
    );
    // A trait's impl blocks are its own, not a required method's.
    assert!(out.get("attached").is_none(), "{out}");
    env.ctx(&["symbol", "--no-build", "Filter::accept"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "method Filter::accept (declared in trait Filter) (rust/sample.rs:71-72)",
        ));

    for (name, symbol, kind, container, lines) in [
        (
            "Evicter.Evicted",
            "Evicter.Evicted",
            "method",
            "interface Evicter",
            [36, 36],
        ),
        (
            "Cache.capacity",
            "Cache.capacity",
            "field",
            "struct Cache",
            [24, 24],
        ),
        ("Item.sku", "Item.sku", "field", "class Item", [21, 21]),
        // Assigned in `__init__` or a constructor, it is the class's.
        (
            "Inventory._items",
            "Inventory._items",
            "field",
            "class Inventory",
            [47, 47],
        ),
        ("Bus.name", "Bus.name", "field", "class Bus", [23, 23]),
        (
            "Ledger.Kind.BUSINESS",
            "Ledger.Kind.BUSINESS",
            "variant",
            "enum Ledger.Kind",
            [28, 28],
        ),
        (
            "Queue.state",
            "Queue.state",
            "field",
            "class Queue",
            [32, 32],
        ),
        (
            "WalkBuilder::root",
            "WalkBuilder::root",
            "field",
            "struct WalkBuilder",
            [18, 18],
        ),
        (
            "Limit::key",
            "limits::Limit::key",
            "field",
            "struct limits::Limit",
            [38, 38],
        ),
        (
            "limits::Decision::Deny",
            "limits::Decision::Deny",
            "variant",
            "enum limits::Decision",
            [42, 42],
        ),
    ] {
        let out = env.json(&["symbol", "--no-build", name]);
        assert_eq!(out["symbol"], symbol, "{name}: {out}");
        assert_eq!(out["kind"], kind, "{name}: {out}");
        assert_eq!(out["declared_in"], container, "{name}: {out}");
        assert_eq!(out["symbol_lines"], json!(lines), "{name}: {out}");
    }

    // A definition of the name wins: `WalkBuilder::follow_links` is a
    // method as well as a field.
    let out = env.json(&["symbol", "--no-build", "WalkBuilder::follow_links"]);
    assert_eq!(out["kind"], "method", "{out}");
    assert!(out.get("declared_in").is_none(), "{out}");

    // A name only members declare, in several containers, is a choice.
    let list = candidate_list(&env, &["symbol", "--no-build", "max_depth"]);
    assert!(
        list.contains("field      WalkBuilder::max_depth  rust/sample.rs:19-19")
            && list.contains("(declared in struct WalkBuilder)")
            && list.contains("field      Walk::max_depth  rust/sample.rs:64-64")
            && list.contains("(declared in struct Walk)"),
        "{list}"
    );
    let out = env.json(&["symbol", "--no-build", "state", "--file", "tsx/sample.tsx"]);
    assert_eq!(out["symbol"], "Counter.state", "{out}");

    env.ctx(&["symbol", "--no-build", "Filter::reject"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `Filter::reject` in this pack; try `ctx search",
        ));
}

/// A Python class declares the attributes its methods assign to `self`:
/// in the body of an `if`, a `try`, a `with` or a `for` too, and in methods other than
/// `__init__`, each where it is first assigned; a function outside a class
/// declares none, and a class attribute is not declared again.
#[test]
fn a_python_class_declares_what_its_methods_assign_to_self() {
    let env = Env::empty();
    env.write(
        "conn.py",
        "class Connection:\n    timeout = 5.0\n\n    def __init__(self, host, tls=False):\n        self.host = host\n        if tls:\n            self.context = make_context()\n        else:\n            self.context = None\n        try:\n            self.socket = connect(host)\n        except OSError:\n            self.socket = None\n        with lock:\n            self.tries = 0\n        for attempt in range(3):\n            self.last = attempt\n        self.timeout = 1.0\n\n    def open(self):\n        self.opened = True\n        self.host = None\n\n\ndef helper(self):\n    self.stray = 1\n",
    );
    for (name, lines) in [
        ("Connection.timeout", [2, 2]),
        ("Connection.host", [5, 5]),
        ("Connection.context", [7, 7]),
        ("Connection.socket", [11, 11]),
        ("Connection.tries", [15, 15]),
        ("Connection.last", [17, 17]),
        ("Connection.opened", [21, 21]),
    ] {
        let out = env.json(&["symbol", name]);
        assert_eq!(out["kind"], "field", "{name}: {out}");
        assert_eq!(out["declared_in"], "class Connection", "{name}: {out}");
        assert_eq!(out["symbol_lines"], json!(lines), "{name}: {out}");
    }
    env.ctx(&["symbol", "stray"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `stray` in this pack",
        ));
}

/// A C++ method defined outside its class names the prototype its class
/// declares, as a header's prototype is named with its body.
#[test]
fn an_out_of_class_definition_names_its_prototype() {
    let env = cpp_sample_env();
    let out = env.json(&["symbol", "TokenBucket::try_take"]);
    assert_eq!(out["symbol"], "limits::TokenBucket::try_take", "{out}");
    assert_eq!(out["symbol_lines"], json!([49, 56]), "{out}");
    let declared = out["declarations"].as_array().expect("declarations");
    assert_eq!(declared.len(), 1, "{out}");
    assert_eq!(declared[0]["doc"], "sample.cpp");
    assert_eq!(declared[0]["lines"], json!([22, 23]));
    env.ctx(&["symbol", "TokenBucket::try_take", "--no-build"])
        .assert()
        .success()
        .stderr(predicate::str::contains("declared in sample.cpp:22-23 ("));
}

/// A member of a container split into parts is shown from the part that
/// holds it, whose ID reads it; the list of members is stored once.
#[test]
fn a_member_of_a_split_container_is_read_from_its_part() {
    let env = Env::empty();
    let fields: String = (0..150)
        .map(|i| format!("    /// Field number {i} of the settings.\n    pub field_{i}: u64,\n"))
        .collect();
    env.write(
        "src/settings.rs",
        format!("/// Every setting.\npub struct Settings {{\n{fields}}}\n"),
    );
    env.ctx(&["build"]).assert().success();

    let out = env.json(&["symbol", "Settings::field_140"]);
    assert_eq!(out["declared_in"], "struct Settings", "{out}");
    assert_eq!(out["symbol_lines"], json!([283, 284]), "{out}");
    let id = out["id"].as_str().expect("id");
    let part = env.json(&["get", id]);
    let text = part["chunks"][0]["text"].as_str().expect("text");
    assert!(text.contains("pub field_140: u64,"), "{part}");
    assert_ne!(
        part["chunks"][0]["part"],
        json!([1, part["chunks"][0]["part"][1]]),
        "{part}"
    );

    let pack = env.pack();
    let listing: Vec<usize> = pack["chunks"]
        .as_array()
        .expect("chunks")
        .iter()
        .filter_map(|c| c["symbol"]["declared"].as_array().map(Vec::len))
        .collect();
    assert_eq!(listing, vec![150], "one list, on the first part");
}

/// A container of declared members over the budget (a struct of documented
/// fields, an interface) is its outline: the header before the first member,
/// then each member's line of code, with its container's ID and its lines;
/// a short one whose cut window shows more members whole is cut instead.
#[test]
fn a_container_of_declared_members_over_the_budget_is_its_outline() {
    let env = Env::empty();
    let field = |name: &str, ty: &str| {
        format!(
            "    /// How the dialer uses `{name}`: a long explanation of the option that\n    /// goes on for a while, with its default and how it interacts with the others.\n    pub {name}: {ty},\n"
        )
    };
    let fields: String = [
        ("timeout", "Duration"),
        ("deadline", "Instant"),
        ("local_addr", "Option<SocketAddr>"),
        ("keep_alive", "Duration"),
        ("fallback_delay", "Duration"),
    ]
    .iter()
    .map(|(n, t)| field(n, t))
    .collect();
    env.write(
        "src/dial.rs",
        format!(
            "/// Options for connecting to an address.\n#[derive(Debug, Default)]\npub struct Dialer {{\n{fields}}}\n\n/// Formats progress.\npub trait Tracker {{\n    /// Ticks.\n    fn tick(&mut self);\n    /// Resets.\n    fn reset(&mut self);\n}}\n"
        ),
    );
    env.ctx(&["build"]).assert().success();

    let out = env.json(&["symbol", "--no-build", "Dialer", "--budget", "130"]);
    assert_eq!(out["lines"], json!([1, 3]), "{out}");
    assert_eq!(
        out["text"],
        "/// Options for connecting to an address.\n#[derive(Debug, Default)]\npub struct Dialer {\n",
        "{out}"
    );
    let members = out["members"].as_array().expect("members");
    assert_eq!(members.len(), 5, "{out}");
    assert_eq!(members[0]["symbol"], "Dialer::timeout", "{out}");
    assert_eq!(members[0]["lines"], json!([4, 6]), "{out}");
    assert_eq!(
        members[0]["signature"], "    pub timeout: Duration,",
        "{out}"
    );
    assert_eq!(
        members[2]["signature"],
        "    pub local_addr: Option<SocketAddr>,"
    );
    assert!(members.iter().all(|m| m["id"] == out["id"]), "{out}");
    assert!(out.get("more_members").is_none(), "{out}");
    env.ctx(&["symbol", "--no-build", "Dialer", "--budget", "130"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"\n\[dial:[0-9a-f]{10}\] 7-9      pub deadline: Instant,\n").unwrap())
        .stderr(predicate::str::contains(
            "its header and members' signatures are shown; see a member with ctx symbol Dialer::timeout --file src/dial.rs",
        ));
    // Tighter, the header gives way to its skeleton and the rest is counted.
    let tight = env.json(&["symbol", "--no-build", "Dialer", "--budget", "90"]);
    assert!(
        tight["text"]
            .as_str()
            .is_some_and(|t| t.ends_with("pub struct Dialer { … }\n")),
        "{tight}"
    );
    let shown = tight["members"].as_array().map_or(0, Vec::len);
    assert!((2..5).contains(&shown), "{tight}");
    assert_eq!(tight["more_members"]["count"], 5 - shown, "{tight}");

    // The trait's cut window shows as many methods whole as its outline
    // would name: no outline.
    let small = env.json(&["symbol", "--no-build", "Tracker", "--budget", "30"]);
    assert!(small.get("members").is_none(), "{small}");
    assert!(
        small["text"]
            .as_str()
            .is_some_and(|t| t.contains("    fn tick(&mut self);\n")),
        "{small}"
    );
}
