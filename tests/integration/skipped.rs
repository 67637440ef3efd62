//! Files the build skips (too large, binary, not UTF-8, minified): remembered
//! so they are not read again while unchanged, and named where a search
//! cannot see them.

use std::time::Duration;

use crate::util::{Env, refused};

/// A project with one indexed document and two skipped ones (limit 1000 bytes).
fn with_skips() -> Env {
    let env = Env::empty();
    env.write("ok.md", "# Guide\n\nThe harbour opens at dawn.\n");
    env.write("bin.md", b"# Binary\n\0\x01 wombat\n");
    env.write("big.md", format!("# Big\n\nwombat {}\n", "x".repeat(2000)));
    env.write("_ctx/ctx.toml", "max_file_bytes = 1000\n");
    env
}

fn stderr(env: &Env, args: &[&str], code: i32) -> String {
    let out = env.ctx(args).assert().code(code).get_output().clone();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_search_without_evidence_names_the_skipped_files() {
    let env = with_skips();
    env.ctx(&["build"]).assert().success();
    let err = stderr(&env, &["search", "wombat"], 1);
    assert!(
        err.contains(
            "note: the build skipped 2 files, which search cannot see: big.md (2015 bytes is over max_file_bytes (1000); raise max_file_bytes in _ctx/ctx.toml to index it); bin.md (binary file (NUL byte at offset 9))"
        ),
        "{err}"
    );
    let r = env.json(&["search", "wombat"]);
    assert_eq!(r["no_evidence"], true);
    assert!(
        r["note"]
            .as_str()
            .is_some_and(|n| n.starts_with("the build skipped 2 files")),
        "{r}"
    );
    // The evidence block says the same.
    let out = env
        .ctx(&["evidence", "wombat"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let all =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(all.contains("the build skipped 2 files"), "{all}");
    // A search that finds its answer does not mention them.
    let err = stderr(&env, &["search", "harbour dawn"], 0);
    assert!(!err.contains("skipped"), "{err}");
    // Nor does a `--doc` search of documents none of them match.
    let err = stderr(&env, &["search", "wombat", "--doc", "ok*"], 1);
    assert!(!err.contains("skipped"), "{err}");
}

#[test]
fn stats_list_the_skipped_files() {
    let env = with_skips();
    env.ctx(&["build"]).assert().success();
    let out = env.ctx(&["stats"]).assert().success().get_output().clone();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("skipped 2 files at the last build (not searched):\n  big.md: 2015 bytes is over max_file_bytes (1000)"),
        "{text}"
    );
    assert!(
        text.contains("\n  bin.md: binary file (NUL byte at offset 9)\n"),
        "{text}"
    );
    let s = env.json(&["stats"]);
    assert_eq!(s["skipped"][0]["path"], "big.md");
    assert_eq!(s["skipped"][0]["bytes"], 2015);
    assert_eq!(
        s["skipped"][1]["reason"],
        "binary file (NUL byte at offset 9)"
    );
    // Once the files are gone, so is the list.
    std::fs::remove_file(env.path().join("big.md")).expect("rm");
    std::fs::remove_file(env.path().join("bin.md")).expect("rm");
    env.ctx(&["build"]).assert().success();
    assert_eq!(env.json(&["stats"])["skipped"], serde_json::json!([]));
    let out = env.ctx(&["stats"]).assert().success().get_output().clone();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("skipped"));
}

/// The file is not read again while its size and mtime stay: a same-size edit
/// with the mtime put back goes unnoticed (as it would for an indexed file),
/// and the next real edit is read.
#[test]
fn a_skipped_file_is_read_again_only_when_it_changes() {
    let env = with_skips();
    env.ctx(&["build"]).assert().success();
    let before = env.mtime("bin.md");
    // Same length, no NUL byte: indexable, were it read.
    env.write("bin.md", b"# Binary\n\n\x01 wombat\n");
    env.set_mtime("bin.md", before);
    let err = stderr(&env, &["build"], 0);
    assert!(
        err.contains("warning: bin.md: skipped: binary file (NUL byte at offset 9)"),
        "the remembered skip is still reported: {err}"
    );
    // No file changed: nothing was read, nothing was built.
    assert_eq!(env.json(&["build"])["noop"], true);
    env.set_mtime("bin.md", before + Duration::from_secs(5));
    let err = stderr(&env, &["build"], 0);
    assert!(!err.contains("bin.md"), "{err}");
    assert_eq!(env.json(&["search", "wombat"])["hits"][0]["doc"], "bin.md");
}

/// Raising `max_file_bytes` reads the files skipped under the old limit.
#[test]
fn raising_the_size_limit_reads_the_skipped_files() {
    let env = with_skips();
    env.ctx(&["build"]).assert().success();
    env.write("_ctx/ctx.toml", "max_file_bytes = 100000\n");
    let err = stderr(&env, &["build"], 0);
    assert!(!err.contains("big.md"), "{err}");
    assert!(err.contains("bin.md: skipped: binary file"), "{err}");
    assert_eq!(env.json(&["search", "wombat"])["hits"][0]["doc"], "big.md");
    // And lowering it again skips the file again.
    env.write("_ctx/ctx.toml", "max_file_bytes = 1000\n");
    let err = stderr(&env, &["build"], 0);
    assert!(err.contains("big.md: skipped: 2015 bytes"), "{err}");
    assert_eq!(env.json(&["search", "wombat"])["no_evidence"], true);
}

/// The build's rate is over what it read and indexed, not over the files it
/// skipped without reading.
#[test]
fn the_build_rate_leaves_out_skipped_files() {
    let env = with_skips();
    let b = env.json(&["build"]);
    let ok = std::fs::metadata(env.path().join("ok.md"))
        .expect("ok.md")
        .len();
    assert_eq!(b["read_bytes"], ok, "{b}");
}

#[test]
fn nothing_indexed_names_the_files_the_build_skipped() {
    let env = Env::empty();
    env.write("big.md", format!("# Big\n\nwombat {}\n", "x".repeat(2000)));
    env.write("_ctx/ctx.toml", "max_file_bytes = 1000\n");
    refused(
        &env,
        &["search", "wombat"],
        &[
            "error: nothing is indexed in `",
            "`: the one file ctx would read was skipped: big.md: 2015 bytes is over max_file_bytes (1000); raise max_file_bytes in _ctx/ctx.toml to index it",
        ],
    );
    env.write("more.md", b"# More\n\0");
    refused(
        &env,
        &["search", "wombat"],
        &[
            "`: all 2 files ctx would read were skipped; the first: big.md: 2015 bytes",
            "(`ctx stats` lists them)",
        ],
    );
}

#[test]
fn a_doc_glob_matching_only_skipped_files_says_so() {
    let env = with_skips();
    env.ctx(&["build"]).assert().success();
    refused(
        &env,
        &["search", "wombat", "--doc", "big*"],
        &[
            "error: the doc glob `big*` matches only files the build skipped, such as big.md: 2015 bytes is over max_file_bytes (1000)",
        ],
    );
}

/// Past 20 warnings a build counts them by kind, one line each with an
/// example; `-v` lists every one, and JSON gives each its kind.
#[test]
fn many_warnings_are_counted_by_kind() {
    let env = Env::empty();
    env.write("ok.md", "# Guide\n\nThe harbour opens at dawn.\n");
    for i in 0..24 {
        env.write(&format!("bin{i:02}.md"), b"# Binary\n\0");
    }
    env.write("latin1.md", b"# caf\xe9\n");
    let err = stderr(&env, &["build"], 0);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines,
        [
            "warning: 24 files were skipped as binary, such as bin00.md: skipped: binary file (NUL byte at offset 9)",
            "warning: 1 file was skipped as not UTF-8, such as latin1.md: skipped: invalid UTF-8 at line 1 (byte 5); convert the file to UTF-8 to index it",
            "(25 warnings in all: `ctx build -v` lists them, `ctx --json build` with their kinds)",
        ],
        "{err}"
    );
    let out = env
        .ctx(&["build", "-v"])
        .assert()
        .success()
        .get_output()
        .clone();
    let all = String::from_utf8_lossy(&out.stderr);
    assert_eq!(all.matches("warning: bin").count(), 24, "{all}");
    assert!(
        all.contains("warning: latin1.md: skipped: invalid UTF-8"),
        "{all}"
    );
    let b = env.json(&["build"]);
    let kinds: Vec<&str> = b["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(|w| w["kind"].as_str())
        .collect();
    assert_eq!(kinds.len(), 25);
    assert_eq!(kinds.iter().filter(|k| **k == "binary").count(), 24);
    assert!(kinds.contains(&"not_utf8"));
    // Stats name ten of the skipped files and count the rest.
    let out = env.ctx(&["stats"]).assert().success().get_output().clone();
    let stats = String::from_utf8_lossy(&out.stdout);
    assert!(
        stats.contains(
            "skipped 25 files at the last build (not searched):\n  bin00.md: binary file"
        ),
        "{stats}"
    );
    assert!(stats.contains("\n  bin09.md: binary file (NUL byte at offset 9)\n  … and 15 more (`ctx --json stats` lists them all)\n"), "{stats}");
    assert_eq!(
        env.json(&["stats"])["skipped"].as_array().map(Vec::len),
        Some(25)
    );
    // The summary line of the build counts in words.
    let out = env.ctx(&["build"]).assert().success().get_output().clone();
    let line = String::from_utf8_lossy(&out.stdout);
    assert!(line.contains(": 1 file, 1 chunk, ~"), "{line}");
    assert!(line.contains(", 25 warnings; up to date"), "{line}");
}

/// What chunking noted about a file (here, a syntax error) is reported again
/// by every build while the file stands unchanged, and no longer once it is
/// fixed: two builds of one tree report the same warnings.
#[test]
fn chunking_notes_are_reported_while_the_file_stands() {
    let env = Env::empty();
    env.write("ok.md", "# Guide\n\nThe harbour opens at dawn.\n");
    env.write(
        "src/lib.rs",
        "/// Fine.\npub fn fine() -> u32 {\n    1\n}\n\npub fn broken( {\n    2\n}\n",
    );
    let first = stderr(&env, &["build"], 0);
    assert!(
        first.contains("warning: src/lib.rs:6: 1 syntax error (first on line 6)"),
        "{first}"
    );
    let b = env.json(&["build"]);
    assert_eq!(b["noop"], true);
    assert_eq!(b["warnings"][0]["kind"], "syntax_errors", "{b}");
    assert_eq!(b["warnings"][0]["line"], 6, "{b}");
    // Stats count the files indexed with such a note, by kind.
    assert_eq!(
        env.json(&["stats"])["noted"],
        serde_json::json!({"syntax_errors": 1})
    );
    let out = env.ctx(&["stats"]).assert().success().get_output().clone();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(
            "\nindexed with a note: 1 file has syntax errors the grammar could not parse; symbols near them may be incomplete\n"
        )
    );
    // An mtime-only change re-reads the file and finds its content unchanged.
    env.set_mtime(
        "src/lib.rs",
        env.mtime("src/lib.rs") + Duration::from_secs(5),
    );
    let again = stderr(&env, &["build"], 0);
    assert_eq!(again, first);
    env.write(
        "src/lib.rs",
        "/// Fine.\npub fn fine() -> u32 {\n    1\n}\n\npub fn mended() {\n    2;\n}\n",
    );
    let fixed = stderr(&env, &["build"], 0);
    assert!(!fixed.contains("syntax error"), "{fixed}");
    assert_eq!(env.json(&["build"])["warnings"], serde_json::json!([]));
}

/// A skipped file of each kind (binary, too big, generated) is no source of
/// the pack, so `validate` does not report it as new on disk.
#[test]
fn validate_leaves_out_every_kind_of_skipped_file() {
    let env = with_skips();
    env.write(
        "gen/api.rs",
        "// @generated by a tool; do not edit\npub fn handler() {}\n",
    );
    let built = stderr(&env, &["build"], 0);
    assert!(
        built.contains("gen/api.rs: skipped: looks generated"),
        "{built}"
    );
    env.ctx(&["validate"])
        .assert()
        .success()
        .stdout(predicates::str::contains("valid "));
}

/// `get` of a skipped file (whole, or some of its lines) and `symbol --file`
/// in one say that the build skipped it and why, not that it is unknown.
#[test]
fn get_and_symbol_of_a_skipped_file_say_why() {
    let env = with_skips();
    env.write(
        "gen/api.rs",
        "// @generated by a tool; do not edit\npub fn handler() {}\n",
    );
    env.ctx(&["build"]).assert().success();
    refused(
        &env,
        &["get", "big.md"],
        &[
            "error: `big.md` is not indexed: the build skipped big.md (2015 bytes is over max_file_bytes (1000); raise max_file_bytes in _ctx/ctx.toml to index it)",
        ],
    );
    refused(
        &env,
        &["get", "big.md:2-3"],
        &["error: `big.md:2-3` is not indexed: the build skipped big.md ("],
    );
    refused(
        &env,
        &["symbol", "handler", "--file", "api.rs"],
        &[
            "error: `api.rs` is not indexed: the build skipped gen/api.rs (looks generated or minified",
        ],
    );
    // A file that is not there at all still gets the shapes `get` takes.
    refused(
        &env,
        &["get", "nowhere.md"],
        &["is neither a chunk ID nor an indexed file"],
    );
}
