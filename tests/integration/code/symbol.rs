//! `ctx symbol`: the exact node for a name, a list when several match, copies
//! counted once, a container shown whole or, over the budget, as its outline.

use predicates::prelude::*;

use super::super::util::{Env, LEDGER_RS, SHAPE_RS};
use super::ranking::compiled_copies;
use super::{candidate_list, code_env, cpp_sample_env};

/// `ctx symbol`: the exact node with context, a list for ambiguous names, a
/// clear error for unknown ones.
#[test]
fn symbol_lookup() {
    let env = code_env();
    // A bare name defined by several symbols (taken from the pack itself).
    let pack = env.pack();
    let mut by_name =
        std::collections::BTreeMap::<String, std::collections::BTreeSet<String>>::new();
    for c in pack["chunks"].as_array().unwrap() {
        if let (Some(n), Some(q)) = (
            c["symbol"]["name"].as_str(),
            c["symbol"]["qualified"].as_str(),
        ) {
            by_name
                .entry(n.to_string())
                .or_default()
                .insert(q.to_string());
        }
    }
    // A constructor (a member named after its class) does not make its
    // class's name ambiguous.
    let constructor = |name: &str, q: &str| {
        let parts: Vec<&str> = q.split(['.', ':']).filter(|p| !p.is_empty()).collect();
        parts.len() >= 2 && parts[parts.len() - 2] == name
    };
    let (name, qualified) = by_name
        .iter()
        .find(|(n, q)| q.len() >= 2 && !q.iter().any(|q| constructor(n, q)))
        .expect("an ambiguous name");
    let s = candidate_list(&env, &["symbol", "--no-build", name]);
    assert!(
        s.contains(&format!(
            "symbols match `{name}`; pick one with --file, a qualified name or its ID:"
        )),
        "{s}"
    );
    assert!(qualified.iter().all(|q| s.contains(q.as_str())), "{s}");
    env.ctx(&["symbol", "--no-build", "--budget", "0", name])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: the budget is 0 tokens"));
    env.ctx(&["symbol", "--no-build", "definitely_not_a_symbol"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `definitely_not_a_symbol` in this pack; try `ctx search",
        ));
    let r = env.json(&[
        "search",
        "--kind",
        "code",
        "-k",
        "1",
        "--no-build",
        "function",
    ]);
    let sym = r["hits"][0]["symbol"].as_str().unwrap().to_string();
    let doc = r["hits"][0]["doc"].as_str().unwrap().to_string();
    let out = env.json(&[
        "symbol",
        "--no-build",
        "--file",
        &doc,
        "--context-lines",
        "2",
        &sym,
    ]);
    assert_eq!(out["symbol"], sym.as_str());
    let [s0, s1] = [
        out["symbol_lines"][0].as_u64().unwrap(),
        out["symbol_lines"][1].as_u64().unwrap(),
    ];
    let l0 = out["lines"][0].as_u64().unwrap();
    assert!(l0 <= s0 && l0 + 2 >= s0 && s1 >= s0, "{out}");
    assert_eq!(out["budget"]["clamped"], false, "{out}");
    assert!(
        out.get("hint").is_none(),
        "no hint when nothing was clamped: {out}"
    );

    // Over the configured cap the window is clamped, and says where to raise it.
    env.write("_ctx/ctx.toml", "max_budget = 10\n");
    let args = [
        "symbol",
        "--no-build",
        "--budget",
        "500",
        "--file",
        &doc,
        &sym,
    ];
    let out = env.json(&args);
    assert_eq!(out["budget"]["applied"], 10, "{out}");
    assert_eq!(
        out["hint"],
        "budget 500 is over the cap of 10 (max_budget in _ctx/ctx.toml); clamped"
    );
    env.ctx(&args)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "hint: budget 500 is over the cap of 10",
        ))
        .stderr(predicate::str::contains(
            "raise max_budget in _ctx/ctx.toml",
        ));
}

/// `ctx symbol` counts copies of one symbol (a package's `cjs` and `esm`
/// builds) as one candidate and names the copies; a same-named symbol with
/// other code is still a choice to make.
#[test]
fn symbol_copies_are_one_candidate() {
    let env = compiled_copies(
        "src/transport.js",
        "export class Transport {\n    validateProtocolVersion(req) {\n        return req.version === 3 ? undefined : 'too old';\n    }\n}\n",
    );
    let name = "Transport.validateProtocolVersion";
    let s = candidate_list(&env, &["symbol", name]);
    assert!(
        s.starts_with(&format!(
            "2 symbols match `{name}` (and 1 copy of them, named under each); pick one"
        )),
        "{s}"
    );
    assert!(s.contains("  src/transport.js:2-4  transport:"), "{s}");
    assert!(
        s.contains("also in dist/esm/transport.js:2-12 (transport:"),
        "{s}"
    );
    let json = env.json(&["symbol", name]);
    let candidates = json["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 2, "{json}");
    assert_eq!(
        candidates[0]["duplicates"][0]["doc"],
        "dist/esm/transport.js"
    );
    assert_eq!(candidates[1]["duplicates"], serde_json::json!([]));

    // With only the copies left, the name resolves, and the copy is named.
    std::fs::remove_file(env.path().join("src/transport.js")).unwrap();
    env.ctx(&["symbol", name])
        .assert()
        .success()
        .stdout(predicate::str::contains("(dist/cjs/transport.js:2-12)"))
        .stderr(predicate::str::contains(
            "the same code is also in dist/esm/transport.js:2-12 (transport:",
        ));
    let one = env.json(&["symbol", name, "--no-build"]);
    assert_eq!(one["doc"], "dist/cjs/transport.js", "{one}");
    assert_eq!(
        one["duplicates"][0]["doc"], "dist/esm/transport.js",
        "{one}"
    );
}

/// `ctx symbol Type` is the type's own node: not its `impl` headers, not the
/// code between them, and not the blank lines a chunk starts with.
#[test]
fn symbol_is_the_definition_not_its_impl_blocks() {
    let env = Env::empty();
    env.write("src/shape.rs", SHAPE_RS);
    let out = env.json(&["symbol", "Polygon"]);
    assert_eq!(out["kind"], "struct", "{out}");
    assert_eq!(out["symbol_lines"], serde_json::json!([3, 6]), "{out}");
    assert_eq!(
        out["text"],
        "/// A shape with straight sides.\npub struct Polygon {\n    sides: u32,\n}\n"
    );
    let out = env.json(&["symbol", "Polygon", "--context-lines", "1"]);
    assert_eq!(out["lines"], serde_json::json!([2, 7]), "{out}");
    let method = env.json(&["symbol", "Polygon::triangle"]);
    // From its doc comment to its own `}`: the impl's closing brace rides
    // with the last method's chunk (chunks tile the file), not its symbol.
    assert_eq!(
        method["symbol_lines"],
        serde_json::json!([14, 17]),
        "{method}"
    );
    assert_eq!(
        method["text"],
        "    /// A triangle.\n    pub fn triangle() -> Polygon {\n        Polygon { sides: 3 }\n    }\n"
    );

    // With no definition indexed, the impl blocks are what there is to show.
    env.write(
        "src/shape.rs",
        "impl Polygon {\n    pub fn square() {}\n}\n",
    );
    let out = env.json(&["symbol", "Polygon"]);
    assert_eq!(out["kind"], "impl", "{out}");
}

#[test]
fn symbol_of_a_container_is_its_whole_node() {
    let env = Env::empty();
    env.write(
        "shapes.py",
        "import math\n\
         \n\
         class Circle:\n\
         \x20   \"\"\"A round shape.\"\"\"\n\
         \n\
         \x20   def __init__(self, r):\n\
         \x20       self.r = r\n\
         \n\
         \x20   def area(self):\n\
         \x20       return math.pi * self.r ** 2\n\
         \n\
         \n\
         def unit():\n\
         \x20   return Circle(1)\n",
    );
    // The class chunk ends at its first method; the symbol is the class.
    let out = env.json(&["symbol", "Circle"]);
    assert_eq!(out["kind"], "class", "{out}");
    assert_eq!(out["symbol_lines"], serde_json::json!([3, 10]), "{out}");
    assert!(
        out["text"]
            .as_str()
            .is_some_and(|t| t.ends_with("return math.pi * self.r ** 2\n")),
        "{out}"
    );
    let absolute = env.path().join("shapes.py");
    let by_file = env.json(&["symbol", "Circle", "--file", absolute.to_str().unwrap()]);
    assert_eq!(
        by_file["symbol_lines"],
        serde_json::json!([3, 10]),
        "{by_file}"
    );
    // With no room for a member next to its header, a class over the budget
    // is cut like any window, and the message says how to see the rest.
    env.ctx(&["symbol", "Circle", "--budget", "12"])
        .assert()
        .success()
        .stderr(predicate::str::contains("window cut at line"))
        .stderr(predicate::str::contains(
            "raise --budget, or see the file's outline: ctx get shapes.py --mode skeleton",
        ));
}

/// A container over the budget is shown as its outline: its header, then one
/// signature per member in file order (nested members indented; a class
/// attribute by its line, an attribute set in `__init__` under it), the rest
/// summed up with the budget that shows them; with no room for a member next
/// to the header, the plain cut window is shown instead.
#[test]
fn symbol_of_a_big_container_is_its_outline() {
    let env = code_env();
    let out = env.json(&["symbol", "Inventory", "--budget", "75"]);
    assert_eq!(out["symbol_lines"], serde_json::json!([31, 73]), "{out}");
    assert_eq!(out["lines"], serde_json::json!([31, 36]), "{out}");
    assert_eq!(out["truncated"], true);
    let text = out["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("class Inventory:\n    \"\"\"A collection of items keyed by SKU.\"\"\"\n"),
        "{out}"
    );
    let members = out["members"].as_array().expect("members");
    let names: Vec<&str> = members
        .iter()
        .map(|m| m["symbol"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["Inventory.currency", "Inventory.Full"], "{out}");
    // A declared member is in its container's own chunk.
    assert_eq!(members[0]["id"], out["id"], "{out}");
    assert_eq!(members[0]["lines"], serde_json::json!([37, 37]));
    assert_eq!(members[0]["signature"], "    currency = DEFAULT_CURRENCY");
    assert_eq!(members[1]["lines"], serde_json::json!([39, 44]));
    assert_eq!(members[1]["signature"], "    class Full(Exception):");
    let more = &out["more_members"];
    assert_eq!(more["count"], 6, "{out}");
    assert_eq!(more["lines"], serde_json::json!([42, 73]), "{out}");
    let needed = more["budget_needed"].as_u64().expect("budget_needed");
    let full = out["full_token_est"].as_u64().expect("full_token_est");
    assert!(75 < needed && needed < full, "{needed} {full}");

    // The budget it names shows every member, and nothing more is owed.
    let all = env.json(&["symbol", "Inventory", "--budget", &needed.to_string()]);
    // `self._items`, set in `__init__`, is under `__init__`'s line.
    assert_eq!(all["members"].as_array().map(Vec::len), Some(8), "{all}");
    assert!(all.get("more_members").is_none(), "{all}");
    assert_eq!(all["token_est"].as_u64(), Some(needed), "{all}");

    // Text: the header, each member with its ID and lines, and what to do.
    env.ctx(&["symbol", "Inventory", "--budget", "75"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "class Inventory (python/sample.py:31-73, outline)\nclass Inventory:\n",
        ))
        .stdout(predicate::str::is_match(r"\n\[sample:[0-9a-f]{10}\] 39-44      class Full\(Exception\):\n").unwrap())
        .stderr(predicate::str::contains(format!(
            "the whole class is ~{full} tokens, over the budget of 75: its header and members' signatures are shown; see a member with ctx symbol Inventory.currency --file python/sample.py, or raise --budget to {full}"
        )))
        .stderr(predicate::str::contains(format!(
            "6 more members (lines 42-73) need --budget {needed}"
        )));

    // Within the budget, the class is shown whole, not outlined.
    let whole = env.json(&["symbol", "Inventory", "--budget", &full.to_string()]);
    assert!(whole.get("members").is_none(), "{whole}");
    assert_eq!(whole["lines"], serde_json::json!([31, 73]), "{whole}");
    assert_eq!(whole["truncated"], false);
}

/// A Java or C++ class's name is the class, not also its constructor (a
/// member with the class's name); the constructor is still found by its
/// qualified name.
#[test]
fn a_constructor_does_not_make_its_class_ambiguous() {
    let env = code_env();
    for (name, kind, qualified) in [
        ("Ledger", "class", "Ledger"),
        ("Ledger.Ledger", "method", "Ledger.Ledger"),
        ("TokenBucket", "class", "limits::TokenBucket"),
        (
            "limits::TokenBucket::TokenBucket",
            "method",
            "limits::TokenBucket::TokenBucket",
        ),
    ] {
        let out = env.json(&["symbol", "--no-build", name]);
        assert_eq!(out["kind"], kind, "{name}: {out}");
        assert_eq!(out["symbol"], qualified, "{name}: {out}");
    }
}

/// `impl Type` and `impl Trait for Type` name a Rust type's impl blocks
/// (its bare name gives the definition); a chunk ID names the symbol the
/// chunk belongs to; the list of candidates carries each one's ID.
#[test]
fn symbol_by_impl_header_and_by_id() {
    let env = Env::code_and_docs();
    let lines = |name: &str| {
        let out = env.json(&["symbol", "--no-build", name]);
        assert!(out.get("candidates").is_none(), "{name}: {out}");
        (out["kind"].clone(), out["symbol_lines"].clone(), out)
    };
    assert_eq!(lines("Walk").0, "struct");
    for (name, want) in [
        ("impl Walk", [90, 125]),
        ("impl Iterator for Walk", [90, 125]),
        ("impl WalkBuilder", [23, 59]),
        ("impl Filter for F", [202, 207]),
    ] {
        let (kind, got, out) = lines(name);
        assert_eq!(kind, "impl", "{name}: {out}");
        assert_eq!(got, serde_json::json!(want), "{name}: {out}");
    }
    // A block is named by its header, which tells it from the type's others.
    assert_eq!(
        lines("impl Iterator for Walk").2["symbol"],
        "impl Iterator for Walk"
    );
    env.ctx(&["symbol", "--no-build", "impl Iterator for Walk"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "] impl Iterator for Walk (rust/sample.rs:90-125)\nimpl Iterator for Walk {\n",
        ));
    env.ctx(&["symbol", "--no-build", "impl Display for Walk"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `impl Display for Walk` in this pack",
        ));

    // By ID: a method's chunk, and the candidates' IDs in a list.
    let (_, next_lines, next) = lines("Walk::next");
    let id = next["id"].as_str().unwrap().to_string();
    let (kind, by_id, out) = lines(&id);
    assert_eq!(kind, "method", "{out}");
    assert_eq!(by_id, next_lines, "{out}");
    assert_eq!(out["symbol"], "Walk::next", "{out}");
    let list = candidate_list(&env, &["symbol", "--no-build", "size"]);
    let pack = env.json(&["symbol", "--no-build", "size"]);
    for c in pack["candidates"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        assert!(list.contains(&format!("  {id}\n")), "{list}");
        assert_eq!(lines(id).2["symbol"], c["symbol"], "{id}");
    }

    // An ID that is not code, or not in the pack, says so.
    let doc = env.json(&["search", "--no-build", "--kind", "docs", "walk builder"]);
    assert_eq!(doc["hits"][0]["doc"], "GUIDE.md", "{doc}");
    let id = doc["hits"][0]["id"].as_str().unwrap();
    env.ctx(&["symbol", "--no-build", id])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "error: chunk `{id}` is not a code symbol (it is in `GUIDE.md`, lines "
        )))
        .stderr(predicate::str::contains(format!(
            "use `ctx get {id}` for its text"
        )));
    env.ctx(&["symbol", "--no-build", "sample:0123456789"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: unknown chunk ID `sample:0123456789`",
        ));
}

/// A method over the budget whose doc comment is longer than its code: the
/// comment's first paragraph stays, the rest gives way to the code, and
/// budget left after the code brings back whole paragraphs.
#[test]
fn a_long_doc_comment_gives_way_to_the_code() {
    let env = Env::empty();
    env.write("src/ledger.rs", LEDGER_RS);
    let rows: Vec<&str> = LEDGER_RS.split_inclusive('\n').collect();
    let code = rows[18..25].concat();
    let whole = env.json(&["symbol", "Ledger::total"]);
    assert_eq!(whole["text"], rows[3..25].concat(), "{whole}");
    assert!(whole.get("elided").is_none(), "{whole}");
    let full = whole["full_token_est"].as_u64().unwrap();

    let summary = format!("    /// Sums the ledger's entries.\n    /// […]\n{code}");
    let budget = ctx::tokens::estimate(&summary).to_string();
    let out = env.json(&["symbol", "Ledger::total", "--budget", &budget]);
    assert_eq!(out["text"], summary, "{out}");
    assert_eq!(out["lines"], serde_json::json!([4, 25]), "{out}");
    assert_eq!(out["truncated"], false, "{out}");
    assert_eq!(out["elided"]["lines"], serde_json::json!([5, 18]), "{out}");
    assert_eq!(
        out["elided"]["token_est"].as_u64(),
        Some(ctx::tokens::estimate(&rows[4..18].concat()) as u64),
        "{out}"
    );
    env.ctx(&["symbol", "Ledger::total", "--budget", &budget])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "    /// […]\n    pub fn total(&self) -> i64 {\n",
        ))
        .stderr(predicate::str::contains(format!(
            "doc comment lines 5-18 (~{} tokens) left out to show the code; --budget {full} shows everything",
            out["elided"]["token_est"]
        )));

    // Room for the second paragraph, not for the example: a paragraph at a
    // time, never a heading alone or half a fenced block.
    let two = format!("{}    /// […]\n{code}", rows[3..6].concat());
    let budget = (ctx::tokens::estimate(&two) + 20).to_string();
    let out = env.json(&["symbol", "Ledger::total", "--budget", &budget]);
    assert_eq!(out["text"], two, "{out}");
    assert_eq!(out["elided"]["lines"], serde_json::json!([7, 18]), "{out}");

    // Too small even for the code: the summary, then as much code as fits.
    let out = env.json(&["symbol", "Ledger::total", "--budget", "30"]);
    let text = out["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "    /// Sums the ledger's entries.\n    /// […]\n    pub fn total(&self) -> i64 {\n"
        ),
        "{out}"
    );
    assert_eq!(out["truncated"], true, "{out}");
    assert!(out["token_est"].as_u64().unwrap() <= 30, "{out}");
}

/// A symbol's window is the file as the pack last saw it: its lines and text
/// agree after an edit under `--no-build`, and the pack answers without its
/// sources; a refresh moves the window with the edit.
#[test]
fn a_window_is_the_packs_snapshot_of_the_file() {
    let env = Env::empty();
    let before = "pub fn alpha() -> u32 {\n    1\n}\n\npub fn beta() -> u32 {\n    2\n}\n";
    env.write("src/lib.rs", before);
    env.ctx(&["build", "-q"]).assert().success();
    let beta = "pub fn beta() -> u32 {\n    2\n}\n";
    env.write("src/lib.rs", format!("// one\n// two\n{before}"));
    let out = env.json(&["symbol", "beta", "--no-build"]);
    assert_eq!(out["lines"], serde_json::json!([5, 7]), "{out}");
    assert_eq!(out["text"], beta, "{out}");

    std::fs::remove_dir_all(env.path().join("src")).unwrap();
    let out = env.json(&["symbol", "beta", "--no-build"]);
    assert_eq!(out["text"], beta, "{out}");

    env.write("src/lib.rs", format!("// one\n// two\n{before}"));
    let out = env.json(&["symbol", "beta"]);
    assert_eq!(out["lines"], serde_json::json!([7, 9]), "{out}");
    assert_eq!(out["text"], beta, "{out}");
}

/// A C++ name needs not spell the namespaces it sits in: `TokenBucket::refill`
/// is `limits::TokenBucket::refill`; a name that only ends like another's is
/// no match (`Bucket::refill`).
#[test]
fn symbol_names_a_cpp_member_without_its_namespace() {
    let env = cpp_sample_env();
    for name in [
        "TokenBucket::refill",
        "limits::TokenBucket::refill",
        "tokenbucket::REFILL",
    ] {
        let out = env.json(&["symbol", name]);
        assert_eq!(
            out["symbol"], "limits::TokenBucket::refill",
            "{name}: {out}"
        );
    }
    env.ctx(&["symbol", "Bucket::refill", "--no-build"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `Bucket::refill` in this pack",
        ));
}
