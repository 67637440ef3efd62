//! A query that names a workspace member (a directory with `Cargo.toml`,
//! `package.json`, …) ranks that member's chunks first.

use super::run;
use crate::util::Env;

/// Two crates that both parse character classes; `beta`'s function is also
/// named for it, so a query naming neither crate finds `beta` first.
fn workspace() -> Env {
    let env = Env::empty();
    env.cargo_workspace(&["alpha", "beta"]);
    env.write(
        "crates/alpha/src/lib.rs",
        "/// Parses a bracketed character class such as `[a-z]`.\npub fn parse_set(p: &str) -> usize {\n    p.len()\n}\n",
    );
    env.write(
        "crates/beta/src/lib.rs",
        "/// Parses a bracketed character class such as `[a-z]`.\npub fn parse_class(p: &str) -> usize {\n    p.len()\n}\n\n/// Compresses a log file with gzip.\npub fn gzip_log(p: &str) -> usize {\n    p.len()\n}\n",
    );
    env.ctx(&["build"]).assert().success();
    env
}

fn top_docs(env: &Env, query: &str) -> (Vec<String>, serde_json::Value) {
    let out = env.json(&["search", query, "-k", "3"]);
    let docs = out["hits"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .filter_map(|h| h["doc"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    (docs, out)
}

#[test]
fn naming_a_member_ranks_it_first() {
    let env = workspace();
    let (docs, out) = top_docs(&env, "parse a bracketed character class");
    assert_eq!(
        docs.first().map(String::as_str),
        Some("crates/beta/src/lib.rs"),
        "{out}"
    );
    assert!(out.get("packages").is_none(), "{out}");
    for query in [
        "alpha: parse a bracketed character class",
        "how does the Alpha crate parse a bracketed character class?",
    ] {
        let (docs, out) = top_docs(&env, query);
        assert_eq!(
            docs.first().map(String::as_str),
            Some("crates/alpha/src/lib.rs"),
            "{query}: {out}"
        );
        assert_eq!(
            out["packages"],
            serde_json::json!(["crates/alpha/"]),
            "{out}"
        );
    }
    // Evidence says so too, and leads with the member's chunk.
    let (out, _) = run(
        &env,
        &["evidence", "alpha: parse a bracketed character class"],
    );
    assert!(
        out.contains(
            "Note: the query names the package `crates/alpha/`; hits outside it rank lower.\n"
        ) && out.contains("\n[")
            && out
                .split("\n[")
                .nth(1)
                .is_some_and(|first| first.contains("(crates/alpha/src/lib.rs:")),
        "{out}"
    );
    let ev = env.json(&["evidence", "alpha: parse a bracketed character class"]);
    assert_eq!(ev["packages"], serde_json::json!(["crates/alpha/"]), "{ev}");
    let (_, stderr) = run(&env, &["search", "alpha parse a bracketed class"]);
    assert!(
        stderr.contains(
            "note: the query names the package `crates/alpha/`; hits outside it rank lower"
        ),
        "{stderr}"
    );
}

#[test]
fn another_member_still_answers_but_covers_less() {
    let env = workspace();
    // Only `beta` can answer. Asked of `alpha`, the answer still comes from
    // `beta`, but the name it does not cover counts against its coverage
    // (which decides "no evidence"); `alpha`'s own chunks cover the name
    // by their path and are not credited for it.
    let plain = env.json(&["search", "gzip log compression"]);
    let named = env.json(&["search", "alpha: gzip log compression"]);
    for out in [&plain, &named] {
        assert_eq!(out["hits"][0]["symbol"], "gzip_log", "{out}");
    }
    assert_eq!(
        named["packages"],
        serde_json::json!(["crates/alpha/"]),
        "{named}"
    );
    let coverage = |out: &serde_json::Value| out["coverage"].as_f64().unwrap_or(f64::NAN);
    assert!(
        coverage(&named) < 0.8 * coverage(&plain),
        "{plain}\n{named}"
    );
    let inside = env.json(&["search", "alpha: parse a bracketed character class"]);
    let beside = env.json(&["search", "parse a bracketed character class"]);
    assert_eq!(coverage(&inside), coverage(&beside), "{inside}\n{beside}");
}

#[test]
fn the_root_manifest_names_no_member_and_new_manifests_count_at_once() {
    let env = workspace();
    // `gamma` is a directory, not yet a package.
    env.write(
        "crates/gamma/src/lib.rs",
        "/// Parses a class.\npub fn gamma_class(p: &str) -> usize {\n    p.len()\n}\n",
    );
    let (_, out) = top_docs(&env, "gamma parse a bracketed character class");
    assert!(out.get("packages").is_none(), "{out}");
    // A manifest alone changes no indexed file; the search's refresh sees it.
    env.write("crates/gamma/package.json", "{\"name\": \"gamma\"}\n");
    let (_, out) = top_docs(&env, "gamma parse a bracketed character class");
    assert_eq!(
        out["packages"],
        serde_json::json!(["crates/gamma/"]),
        "{out}"
    );
    // `ctx stats` names them, so an agent knows the names it can use.
    let stats = env.json(&["stats"]);
    assert_eq!(
        stats["packages"],
        serde_json::json!(["crates/alpha", "crates/beta", "crates/gamma"]),
        "{stats}"
    );
    let (out, _) = run(&env, &["stats"]);
    assert!(
        out.contains(
            "packages 3 (a query naming one ranks it first): crates/alpha, crates/beta, crates/gamma\n"
        ),
        "{out}"
    );
    // The workspace root is the whole project, not a member.
    let name = env
        .path()
        .file_name()
        .and_then(|n| n.to_str())
        .expect("temp dir name")
        .to_string();
    let (_, out) = top_docs(&env, &format!("{name} parse a class"));
    assert!(out.get("packages").is_none(), "{out}");
}

#[test]
fn symbol_file_takes_a_member_directory() {
    let env = workspace();
    // Both crates define a function of each name below once; `beta` alone
    // has `gzip_log`.
    for place in ["crates/alpha", "crates/alpha/", "alpha", "alpha/src"] {
        let (out, _) = run(&env, &["symbol", "parse_set", "--file", place]);
        assert!(out.contains("(crates/alpha/src/lib.rs:"), "{place}: {out}");
    }
    env.ctx(&["symbol", "gzip_log", "--file", "crates/alpha"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "no symbol `gzip_log` in `crates/alpha` in this pack",
        ));
    // A directory name must be whole: `lpha` is no member.
    env.ctx(&["symbol", "parse_set", "--file", "lpha"])
        .assert()
        .failure();
}

#[test]
fn a_member_answers_to_the_names_its_manifests_declare() {
    let env = Env::empty();
    env.write("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n");
    env.write(
        "crates/searcher/Cargo.toml",
        "[package]\nname = \"grep-searcher\"\nversion = \"0.1.0\"\n",
    );
    env.write(
        "crates/searcher/src/lib.rs",
        "/// Detects binary files by looking for a NUL byte.\npub fn detect_binary(b: &[u8]) -> bool {\n    b.contains(&0)\n}\n",
    );
    env.write(
        "packages/core/package.json",
        "{\"name\": \"@acme/core\", \"version\": \"1.0.0\"}\n",
    );
    env.write(
        "packages/core/index.js",
        "// Detects binary files by looking for a NUL byte.\nfunction detectBinary(buf) {\n  return buf.includes(0);\n}\n",
    );
    // A manifest that does not parse still makes its directory a member.
    env.write("packages/broken/package.json", "{\"name\": ");
    env.ctx(&["build"]).assert().success();
    for (query, want) in [
        (
            "in grep-searcher, how are binary files detected?",
            "crates/searcher/",
        ),
        ("grep_searcher detect binary NUL byte", "crates/searcher/"),
        ("searcher: detect binary files", "crates/searcher/"),
        ("@acme/core: detect binary files", "packages/core/"),
        ("how does acme core detect binary files?", "packages/core/"),
    ] {
        let (docs, out) = top_docs(&env, query);
        assert_eq!(out["packages"], serde_json::json!([want]), "{query}: {out}");
        assert!(
            docs.first().is_some_and(|d| d.starts_with(want)),
            "{query}: {out}"
        );
    }
    // `ctx symbol --file` takes the name too.
    for place in [
        "grep-searcher",
        "grep_searcher",
        "crates/searcher",
        "searcher",
    ] {
        let (out, _) = run(&env, &["symbol", "detect_binary", "--file", place]);
        assert!(
            out.contains("(crates/searcher/src/lib.rs:"),
            "{place}: {out}"
        );
    }
    let (out, _) = run(&env, &["symbol", "detectBinary", "--file", "@acme/core"]);
    assert!(out.contains("(packages/core/index.js:"), "{out}");
    env.ctx(&["symbol", "detectBinary", "--file", "grep-searcher"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "no symbol `detectBinary` in `crates/searcher` in this pack",
        ));
    // `ctx stats` says which names a member answers to besides its directory's.
    let stats = env.json(&["stats"]);
    assert_eq!(
        stats["packages"],
        serde_json::json!(["crates/searcher", "packages/broken", "packages/core"]),
        "{stats}"
    );
    assert_eq!(
        stats["package_names"],
        serde_json::json!({"crates/searcher": ["grep-searcher"], "packages/core": ["@acme/core"]}),
        "{stats}"
    );
    let (out, _) = run(&env, &["stats"]);
    assert!(
        out.contains(
            "packages 3 (a query naming one ranks it first): crates/searcher (grep-searcher), packages/broken, packages/core (@acme/core)\n"
        ),
        "{out}"
    );
}

/// The walk a refresh skips while no directory changed still sees a manifest
/// edited in place (`sources::unchanged` records the manifests found).
#[test]
fn a_member_renamed_in_its_manifest_is_seen_without_a_walk_of_its_directory() {
    let env = workspace();
    crate::refresh::age(&env, "");
    env.ctx(&["build"]).assert().success();
    let named = |query: &str| env.json(&["search", query])["packages"].clone();
    assert_eq!(named("grep-alpha: parse a class"), serde_json::Value::Null);
    let dir_mtime = env.mtime("crates/alpha");
    env.write(
        "crates/alpha/Cargo.toml",
        "[package]\nname = \"grep-alpha\"\n",
    );
    env.set_mtime("crates/alpha", dir_mtime);
    assert_eq!(
        named("grep-alpha: parse a class"),
        serde_json::json!(["crates/alpha/"])
    );
}
