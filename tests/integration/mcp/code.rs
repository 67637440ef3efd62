//! The code tools over MCP, driven by the Python SDK: `ctx_symbol` (one
//! match, a list to choose from, a miss, a cut window, a class's outline),
//! `ctx_get` given a file path, `ctx_refs`, a forward declaration named
//! under its definition, and a member its container declares.

use serde_json::{Value, json};

use super::super::util::{Env, LEDGER_RS, test_tools};
use super::harness::{assert_ok, assert_tool_error, call, pyclient, serve, text};

#[test]
fn symbol_and_file_outline_over_mcp() {
    test_tools();
    let env = Env::code_and_docs();
    env.write("rust/ledger.rs", LEDGER_RS);
    env.ctx(&["build", "-q"]).assert().success();
    let rows: Vec<&str> = LEDGER_RS.split_inclusive('\n').collect();
    let summary = format!(
        "    /// Sums the ledger's entries.\n    /// […]\n{}",
        rows[18..25].concat()
    );
    let budget = ctx::tokens::estimate(&summary);
    let command = serve(&env);
    for mode in ["legacy", "2026-07-28"] {
        let report = pyclient(
            mode,
            &command,
            json!([
                call(
                    "ctx_symbol",
                    json!({"name": "WalkBuilder::build", "context_lines": 1})
                ),
                call("ctx_symbol", json!({"name": "size"})),
                call("ctx_symbol", json!({"name": "size", "file": "sample.ts"})),
                call("ctx_symbol", json!({"name": "Nope"})),
                call(
                    "ctx_symbol",
                    json!({"name": "WalkBuilder::build", "budget": 20})
                ),
                call("ctx_symbol", json!({"nam": "build"})),
                call(
                    "ctx_get",
                    json!({"ids": ["rust/sample.rs"], "mode": "skeleton"})
                ),
                call("ctx_get", json!({"ids": ["sample.rs.bak"]})),
                call(
                    "ctx_get",
                    json!({"ids": ["sample.rs"], "mode": "skeleton", "budget": 150})
                ),
                call("ctx_symbol", json!({"name": "Inventory", "budget": 75})),
                call("ctx_symbol", json!({"name": "impl Iterator for Walk"})),
                call(
                    "ctx_symbol",
                    json!({"name": "Ledger::total", "budget": budget})
                ),
                call("ctx_symbol", json!({"name": "Walk"})),
                call("ctx_refs", json!({"name": "WalkBuilder", "budget": 60})),
                call("ctx_refs", json!({"name": "two words"})),
                call("ctx_symbol", json!({"name": "ring_index"})),
                call("ctx_get", json!({"ids": ["rust/sample.rs:45"]})),
                call("ctx_symbol", json!({"name": "Filter::accept"})),
                call("ctx_symbol", json!({"name": "max_depth"})),
                call("ctx_symbol", json!({"name": "crate::sample::is_hidden"})),
                call("ctx_symbol", json!({"name": "elsewhere::is_hidden"})),
                call("ctx_symbol", json!({"name": "WalkBuilder::buld"})),
                call(
                    "ctx_refs",
                    json!({"name": "WalkBuilder", "file": "rust/sample.rs"})
                ),
                call(
                    "ctx_refs",
                    json!({"name": "WalkBuilder", "file": "nowhere.rs"})
                ),
                call("ctx_refs", json!({"name": "WalkBuilder"})),
            ]),
        );
        let steps = report["steps"].as_array().expect("steps");
        let s = |i: usize| -> &Value { &steps[i]["structuredContent"] };

        assert_ok(&steps[0]);
        assert_eq!(s(0)["symbol_lines"], json!([40, 58]), "{mode}: {}", s(0));
        assert_eq!(s(0)["lines"], json!([39, 59]), "{mode}");
        assert!(
            text(&steps[0], 0).starts_with("[sample:")
                && text(&steps[0], 0).contains("method WalkBuilder::build (rust/sample.rs:39-59)")
                && text(&steps[0], 0).contains("pub fn build(&self) -> Walk {"),
            "{mode}: {}",
            text(&steps[0], 0)
        );

        // Two matches are a list to choose from, not an error.
        assert_ok(&steps[1]);
        assert!(
            text(&steps[1], 0)
                .starts_with("2 symbols match `size`; call ctx_symbol again with \"file\""),
            "{}",
            text(&steps[1], 0)
        );
        assert_eq!(s(1)["candidates"].as_array().map(Vec::len), Some(2));
        assert_ok(&steps[2]);
        assert_eq!(s(2)["symbol"], "Queue.size", "{mode}");

        // The miss points at the tool that finds code by what it does.
        assert_tool_error(&steps[3], "no symbol `Nope` in this pack; try ctx_search {");
        assert_tool_error(&steps[3], r#""kind":"code""#);

        assert_ok(&steps[4]);
        assert_eq!(s(4)["truncated"], true);
        assert!(
            text(&steps[4], 0).contains("by the budget of 20 tokens; pass a larger budget")
                && text(&steps[4], 0).contains("the file's outline: ctx_get {\"ids\":[\"rust/sample.rs\"],\"mode\":\"skeleton\"}"),
            "{}",
            text(&steps[4], 0)
        );
        assert_tool_error(&steps[5], "unknown field `nam`");
        assert_tool_error(&steps[5], r#"Expected {"name": string"#);

        // A file path stands for the whole file; skeleton mode outlines it.
        assert_ok(&steps[6]);
        let chunks = s(6)["chunks"].as_array().expect("chunks");
        assert!(chunks.len() > 10, "{mode}: {}", s(6));
        assert!(
            text(&steps[6], 0).contains("pub fn build(&self) -> Walk { … }"),
            "{}",
            text(&steps[6], 0)
        );
        assert_tool_error(&steps[7], "is neither a chunk ID nor an indexed file");
        // Past the budget: one line per signature, the rest summed up, and
        // the hint in the tool's terms.
        assert_ok(&steps[8]);
        let outline = text(&steps[8], 0);
        assert!(
            outline.starts_with("rust/sample.rs (outline; get an ID for its text)\n[sample:")
                && outline.contains("  pub struct WalkBuilder\n")
                && outline.contains(" chunks of rust/sample.rs (lines ")
                && outline.contains("more outline entries need budget "),
            "{mode}: {outline}"
        );
        // A class over the budget: its header and members' signatures, and
        // the calls that show a member or the rest.
        assert_ok(&steps[9]);
        assert_eq!(s(9)["members"].as_array().map(Vec::len), Some(2), "{mode}");
        assert_eq!(s(9)["more_members"]["count"], 6, "{mode}");
        let members = text(&steps[9], 0);
        assert!(
            members.starts_with("[sample:")
                && members.contains(" class Inventory (python/sample.py:31-73, outline)\nclass Inventory:\n")
                && members.contains("] 37-37      currency = DEFAULT_CURRENCY\n[sample:")
                && members.contains("] 39-44      class Full(Exception):\n")
                && members.contains(r#"over the budget of 75: its header and members' signatures are shown; see a member with ctx_symbol {"name":"Inventory.currency","file":"python/sample.py"}, or pass "budget": "#)
                && members.contains("\n[6 more members (lines 42-73) need \"budget\": "),
            "{mode}: {members}"
        );
        // A long doc comment gives way to the code, and the text says so.
        assert_ok(&steps[11]);
        assert_eq!(s(11)["elided"]["lines"], json!([5, 18]), "{mode}");
        let window = text(&steps[11], 0);
        assert!(
            window.contains(&summary)
                && window.contains(&format!(
                    "[doc comment lines 5-18 (~{} tokens) left out to show the code; budget {} shows everything]",
                    s(11)["elided"]["token_est"],
                    s(11)["full_token_est"]
                )),
            "{mode}: {window}"
        );
        // A type's window names its impl blocks, with the IDs that show them.
        assert_ok(&steps[12]);
        let attached = &s(12)["attached"][0];
        assert_eq!(attached["symbol"], "impl Iterator for Walk", "{mode}");
        assert_eq!(attached["relation"], "impl", "{mode}");
        assert!(
            text(&steps[12], 0).contains(&format!(
                "}}\nWalk is also implemented in:\n[{}] 90-125  impl Iterator for Walk {{ next",
                attached["id"].as_str().unwrap_or("?")
            )),
            "{mode}: {}",
            text(&steps[12], 0)
        );
        // Where a name is used: the same answer as `ctx refs --json`, and
        // the budget that lists everything.
        assert_ok(&steps[13]);
        let cli = env.json(&["refs", "WalkBuilder", "--budget", "60", "--no-build"]);
        assert_eq!(s(13), &cli, "{mode}");
        let first = &cli["refs"][0];
        assert!(
            text(&steps[13], 0).starts_with(&format!(
                "[{}] {}  {}\n  {}: ",
                first["id"].as_str().unwrap_or("?"),
                first["doc"].as_str().unwrap_or("?"),
                first["within"].as_str().unwrap_or("?"),
                first["hits"][0]["line"]
            )) && text(&steps[13], 0).ends_with(&format!(
                "more need \"budget\": {}]",
                cli["more"]["budget_needed"]
            )),
            "{mode}: {}",
            text(&steps[13], 0)
        );
        assert_tool_error(&steps[14], "`two words` is not a name to look for");

        // A forward declaration is named under its definition, not offered
        // as a choice.
        assert_ok(&steps[15]);
        assert_eq!(s(15)["symbol_lines"], json!([88, 91]), "{mode}: {}", s(15));
        assert_eq!(s(15)["declarations"][0]["lines"], json!([37, 37]), "{mode}");
        assert!(
            text(&steps[15], 0).contains("\nDeclared in c/sample.c:37-37 (sample:"),
            "{mode}: {}",
            text(&steps[15], 0)
        );

        // An impl block by its header; the list's IDs name candidates too.
        assert_ok(&steps[10]);
        assert_eq!(s(10)["symbol_lines"], json!([90, 125]), "{mode}");
        assert!(
            text(&steps[1], 0).contains(&format!(
                "  {}",
                s(1)["candidates"][0]["id"].as_str().unwrap_or("?")
            )),
            "{}",
            text(&steps[1], 0)
        );

        // A file's line, as a hit's place is printed: the chunk holding it.
        assert_ok(&steps[16]);
        assert_eq!(s(16)["chunks"].as_array().map(Vec::len), Some(1), "{mode}");
        assert_eq!(s(16)["chunks"][0]["id"], s(0)["id"], "{mode}: {}", s(16));

        // A member its container declares: its lines, and the container
        // named in the label and in each choice.
        assert_ok(&steps[17]);
        assert_eq!(s(17)["declared_in"], "trait Filter", "{mode}: {}", s(17));
        assert!(
            text(&steps[17], 0)
                .contains("method Filter::accept (declared in trait Filter) (rust/sample.rs:71-72)\n    /// True when"),
            "{mode}: {}",
            text(&steps[17], 0)
        );
        assert_ok(&steps[18]);
        assert!(
            text(&steps[18], 0).contains("field Walk::max_depth  rust/sample.rs:64-64  ")
                && text(&steps[18], 0).contains(" (declared in struct WalkBuilder)"),
            "{mode}: {}",
            text(&steps[18], 0)
        );
        // A path through the project's places names the symbol; one that
        // leads nowhere names the shorter name that answers, as a call.
        assert_ok(&steps[19]);
        assert_eq!(s(19)["symbol"], "is_hidden", "{mode}");
        assert_eq!(s(19)["doc"], "rust/sample.rs", "{mode}");
        assert_tool_error(
            &steps[20],
            r#"no symbol `elsewhere::is_hidden` in this pack; ctx_symbol {"name":"is_hidden"} names "#,
        );
        // A misspelt name gets the names close to it, then the search.
        assert_tool_error(
            &steps[21],
            "no symbol `WalkBuilder::buld` in this pack; similar names: `WalkBuilder::build` (rust/sample.rs:",
        );
        assert_tool_error(&steps[21], "; or try ctx_search {");
        // One definition's uses, named as the tool names its arguments.
        assert_ok(&steps[22]);
        assert_eq!(s(22)["definition"], "rust/sample.rs", "{mode}: {}", s(22));
        assert!(
            text(&steps[22], 0).ends_with("use the `WalkBuilder` of rust/sample.rs, by the paths their files' imports give it]"),
            "{mode}: {}",
            text(&steps[22], 0)
        );
        assert!(
            text(&steps[24], 0).contains("\"file\" picks one definition)"),
            "{mode}: {}",
            text(&steps[24], 0)
        );
        assert_tool_error(
            &steps[23],
            "no definition of `WalkBuilder` in `nowhere.rs`; `WalkBuilder` is defined in rust/sample.rs: give one of them as the file",
        );
    }
}
