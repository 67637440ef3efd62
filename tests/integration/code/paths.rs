//! `ctx symbol` with a name written as code reaches it: through its crate or
//! package and modules (`acme_util::fmt::render`, `crate::fmt::render`,
//! `shop.billing.invoice.Invoice.total`), which the symbol's own qualified
//! name does not hold.

use predicates::prelude::*;

use crate::util::Env;

/// A Rust workspace whose root is a crate too, a Python package and a Maven
/// module beside it. `render` is defined twice, in two crates, so a bare name is a choice.
fn project() -> Env {
    let env = Env::empty();
    env.write(
        "Cargo.toml",
        "[package]\nname = \"demo-app\"\n\n[workspace]\nmembers = [\"crates/*\"]\n",
    );
    env.write(
        "src/config.rs",
        "pub struct Config {\n    pub path: String,\n}\n\nimpl Config {\n    /// Reads the settings file.\n    pub fn load(path: &str) -> Config {\n        Config { path: path.to_string() }\n    }\n}\n",
    );
    env.write(
        "crates/util/Cargo.toml",
        "[package]\nname = \"acme-util\"\n",
    );
    env.write(
        "crates/util/src/lib.rs",
        "pub mod fmt;\npub use fmt::render;\n",
    );
    env.write(
        "crates/util/src/fmt/mod.rs",
        "/// Renders a table as text.\npub fn render(rows: &[String]) -> String {\n    rows.join(\"\\n\")\n}\n",
    );
    env.write("crates/draw/Cargo.toml", "[package]\nname = \"draw\"\n");
    env.write(
        "crates/draw/src/fmt.rs",
        "/// Renders a shape as SVG.\npub fn render(sides: u32) -> String {\n    format!(\"<svg>{sides}</svg>\")\n}\n",
    );
    env.write(
        "py/shop/billing/invoice.py",
        "class Invoice:\n    def total(self):\n        \"\"\"Sums the lines.\"\"\"\n        return sum(self.lines)\n",
    );
    env.write(
        "java/core/pom.xml",
        "<project><artifactId>store-core</artifactId></project>\n",
    );
    env.write(
        "java/core/src/main/java/com/acme/Store.java",
        "package com.acme;\n\npublic class Store {\n    public int total() {\n        return 0;\n    }\n}\n",
    );
    env.ctx(&["build"]).assert().success();
    env
}

fn found(env: &Env, name: &str) -> (String, String) {
    let out = env.json(&["symbol", "--no-build", name]);
    (
        out["symbol"].as_str().unwrap_or_default().to_string(),
        out["doc"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_path_through_crates_and_modules_names_the_symbol() {
    let env = project();
    let util = (
        "render".to_string(),
        "crates/util/src/fmt/mod.rs".to_string(),
    );
    // The crate by its declared name (`-` read as `_`), its modules in order,
    // or with a re-export's modules skipped.
    assert_eq!(found(&env, "acme_util::fmt::render"), util);
    assert_eq!(found(&env, "acme_util::render"), util);
    assert_eq!(
        found(&env, "draw::fmt::render"),
        ("render".to_string(), "crates/draw/src/fmt.rs".to_string())
    );
    // The root crate by its manifest's name, and `crate::` inside it.
    let load = ("Config::load".to_string(), "src/config.rs".to_string());
    assert_eq!(found(&env, "demo_app::config::Config::load"), load);
    assert_eq!(found(&env, "crate::config::Config::load"), load);
    // Outside any package, directories are Python's packages.
    assert_eq!(
        found(&env, "shop.billing.invoice.Invoice.total"),
        (
            "Invoice.total".to_string(),
            "py/shop/billing/invoice.py".to_string()
        )
    );
    // A Java package is directories inside its module, not the module.
    assert_eq!(
        found(&env, "com.acme.Store.total"),
        (
            "Store.total".to_string(),
            "java/core/src/main/java/com/acme/Store.java".to_string()
        )
    );
    // Without a path, `render` is still a choice between the two crates.
    env.ctx(&["symbol", "--no-build", "render"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("2 symbols match `render`"));
}

#[test]
fn a_path_that_leads_nowhere_names_the_symbols_of_its_tail() {
    let env = project();
    // `fmt` is a module of both crates, not a crate: a path starts at one.
    env.ctx(&["symbol", "--no-build", "fmt::render"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `fmt::render` in this pack; `ctx symbol render` names 2 symbols in `crates/draw/src/fmt.rs`, `crates/util/src/fmt/mod.rs`",
        ));
    env.ctx(&["symbol", "--no-build", "other_crate::config::Config::load"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `other_crate::config::Config::load` in this pack; `ctx symbol Config::load` names 1 symbol in `src/config.rs`",
        ));
    env.ctx(&["symbol", "--no-build", "acme_util::fmt::paint"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `acme_util::fmt::paint` in this pack; try `ctx search \"acme_util::fmt::paint\" --kind code`",
        ));
}

#[test]
fn a_misspelt_name_gets_the_names_close_to_it() {
    let env = project();
    // One edit from `render`: a name once, at the place the path names
    // (`ctx symbol render` lists both crates').
    env.ctx(&["symbol", "--no-build", "acme_util::fmt::rendr"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no symbol `acme_util::fmt::rendr` in this pack; similar names: `render` (crates/util/src/fmt/mod.rs:1); or try `ctx search \"acme_util::fmt::rendr\" --kind code`",
        ));
    // A transposition is one edit; the container named comes first.
    env.ctx(&["symbol", "--no-build", "Config::laod"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "similar names: `Config::load` (src/config.rs:6); or try",
        ));
    // Too short a name to correct, or too far from any: the search is offered.
    for far in ["Config::lo", "Config::unload_everything"] {
        env.ctx(&["symbol", "--no-build", far])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "error: no symbol `{far}` in this pack; try `ctx search \"{far}\" --kind code`"
            )));
    }
}

/// A list longer than a screen ends with a name by a place that picks one
/// of its symbols, checked to answer alone: a directory outside Rust, a
/// crate's name in Rust; a place holding two of them is not the example.
#[test]
fn a_long_list_of_candidates_shows_a_name_by_its_place() {
    let env = Env::empty();
    env.write(
        "aa/two.py",
        "class Error:\n    pass\n\n\nclass Inner:\n    class Error:\n        pass\n",
    );
    for i in 0..21 {
        env.write(
            &format!("d{i:02}/errors.py"),
            format!("class Error:\n    code = {i}\n"),
        );
    }
    env.ctx(&["symbol", "Error"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "name the one you want by its place, as `ctx symbol d00.Error` does, or pass --file DIR",
        ));
    let out = env.json(&["symbol", "Error"]);
    assert_eq!(out["for_example"], "d00.Error", "{out}");
    assert_eq!(
        out["candidates"].as_array().map(Vec::len),
        Some(23),
        "{out}"
    );
    let one = env.json(&["symbol", "d00.Error"]);
    assert_eq!(one["doc"], "d00/errors.py", "{one}");

    // Up to a screenful, the list is enough.
    let env = Env::empty();
    env.cargo_workspace(&["alpha", "beta"]);
    env.write("crates/alpha/src/lib.rs", "pub struct Error(u8);\n");
    env.write("crates/beta/src/lib.rs", "pub struct Error(u16);\n");
    let out = env.json(&["symbol", "Error"]);
    assert!(out.get("for_example").is_none(), "{out}");
    for i in 0..20 {
        env.write(
            &format!("crates/c{i:02}/Cargo.toml"),
            format!("[package]\nname = \"c{i:02}\"\n"),
        );
        env.write(
            &format!("crates/c{i:02}/src/lib.rs"),
            format!("pub struct Error {{\n    c{i}: u8,\n}}\n"),
        );
    }
    let out = env.json(&["symbol", "Error"]);
    assert_eq!(out["for_example"], "alpha::Error", "{out}");
}

/// A name written in another case style (`MaxFilesize`, `getJson`) or
/// without its underscores finds the symbol it means among the similar
/// names, first.
#[test]
fn a_name_in_another_case_style_gets_the_name_it_means() {
    let env = Env::empty();
    env.write(
        "src/walk.rs",
        "pub struct WalkBuilder;\nimpl WalkBuilder {\n    pub fn max_filesize(&mut self) {}\n    pub fn max_depth(&mut self) {}\n}\n",
    );
    env.write(
        "client.py",
        "class HttpClient:\n    def get_json(self, url):\n        return url\n",
    );
    env.ctx(&["build", "-q"]).assert().success();
    for (asked, means) in [
        ("MaxFilesize", "`WalkBuilder::max_filesize` (src/walk.rs:3)"),
        ("maxfilesize", "`WalkBuilder::max_filesize` (src/walk.rs:3)"),
        ("HttpClient.getJson", "`HttpClient.get_json` (client.py:2)"),
        ("getjson", "`HttpClient.get_json` (client.py:2)"),
    ] {
        env.ctx(&["symbol", "--no-build", asked])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "error: no symbol `{asked}` in this pack; similar names: {means}"
            )));
    }
}

/// `impl Type` is the inherent block when the type has one; trait impls are
/// asked for as `impl Trait for Type`, and answer `impl Type` only when the
/// type has no inherent block.
#[test]
fn impl_type_is_the_inherent_block() {
    let env = Env::empty();
    env.write(
        "src/lib.rs",
        "pub struct Walk;\nimpl Walk {\n    pub fn new() -> Walk { Walk }\n}\nimpl Iterator for Walk {\n    type Item = u8;\n    fn next(&mut self) -> Option<u8> { None }\n}\nimpl Clone for Walk {\n    fn clone(&self) -> Walk { Walk }\n}\npub struct Bare;\nimpl Clone for Bare {\n    fn clone(&self) -> Bare { Bare }\n}\nimpl Default for Bare {\n    fn default() -> Bare { Bare }\n}\n",
    );
    env.ctx(&["build", "-q"]).assert().success();
    let out = env.json(&["symbol", "impl Walk"]);
    assert_eq!(out["symbol"], "impl Walk", "{out}");
    assert_eq!(out["lines"], serde_json::json!([2, 4]), "{out}");
    let out = env.json(&["symbol", "impl Iterator for Walk"]);
    assert_eq!(out["symbol"], "impl Iterator for Walk", "{out}");
    env.ctx(&["symbol", "impl Bare"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("2 symbols match `impl Bare`"));
}

/// A `--file` that matches no indexed file is named as the mistake.
#[test]
fn a_file_that_is_not_indexed_is_named_as_the_mistake() {
    let env = project();
    env.ctx(&["symbol", "--no-build", "load", "--file", "src/nothere.rs"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: --file `src/nothere.rs` matches no indexed file: give a path in the project as search prints it",
        ));
    // A file that is indexed but lacks the name keeps the usual answer.
    env.ctx(&[
        "symbol",
        "--no-build",
        "nothing_like_it",
        "--file",
        "src/config.rs",
    ])
    .assert()
    .code(2)
    .stderr(predicate::str::contains(
        "error: no symbol `nothing_like_it` in `src/config.rs` in this pack",
    ));
}
