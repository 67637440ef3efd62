//! Every user-facing error path: exact messages, exit code 2.

use predicates::prelude::*;

use super::util::{Env, ctx};

/// Hostile segment names under $CTX_ROOT are refused with a clear message.
#[test]
fn hostile_segment_names() {
    let root = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("proj")).unwrap();
    let cases = [
        (
            "..",
            "error: invalid segment `..`: `.` and `..` are not segment names",
        ),
        (
            "a/../../b",
            "error: invalid segment `a/../../b`: it leads outside $CTX_ROOT",
        ),
        (
            "/etc",
            "error: invalid segment `/etc`: an absolute path where a segment name under $CTX_ROOT is expected",
        ),
        (
            "",
            "error: invalid segment ``: the segment is empty; pass a project directory or a segment name",
        ),
    ];
    for (name, msg) in cases {
        ctx()
            .env("CTX_ROOT", root.path())
            .args(["build", "-s", name])
            .assert()
            .code(2)
            .stderr(predicate::str::starts_with(msg));
    }
    ctx()
        .env("CTX_ROOT", root.path())
        .args(["build", "-s", "proj"])
        .assert()
        .success();
}

/// A segment that does not exist.
#[test]
fn missing_segment() {
    ctx()
        .args(["build", "-s", "/definitely/not/here"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: invalid segment `/definitely/not/here`: `/definitely/not/here` cannot be opened"));
}

/// A bad settings file names the file and line.
#[test]
fn bad_config_names_line() {
    let env = Env::empty();
    env.write("a.md", "# A\n");
    env.write("_ctx/ctx.toml", "max_chunk_tokens = 600\nmax_chunks = 3\n");
    env.ctx(&["build"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "ctx.toml line 2: unknown field `max_chunks`",
        ));
    env.write("_ctx/ctx.toml", "max_chunk_tokens = 5\n");
    env.ctx(&["build"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "line 1: max_chunk_tokens = 5 is too small; use 32 or more (default 600)",
        ));
    // A cap of 0 would leave every `get` and `evidence` empty.
    env.write("_ctx/ctx.toml", "index_code = true\nmax_budget = 0\n");
    for args in [&["build"][..], &["get", "a.md"], &["evidence", "a"]] {
        env.ctx(args).assert().code(2).stderr(predicate::str::contains(
            "ctx.toml line 2: max_budget = 0 leaves no budget for any answer; use a positive cap (default 16000)",
        ));
    }
}

/// A second build waits for the lock, then fails naming the holder's pid.
#[test]
fn lock_timeout_names_holder() {
    let env = Env::empty();
    env.write("a.md", "# A\n\ntext\n");
    std::fs::create_dir_all(env.path().join("_ctx")).unwrap();
    let lock_path = env.path().join("_ctx/.build.lock");
    let held = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .unwrap();
    held.lock().unwrap();
    std::fs::write(&lock_path, "4242").unwrap();
    env.ctx(&["build", "--lock-timeout", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("timed out after 1s waiting for").and(predicate::str::contains(
            "held by pid 4242; another `ctx build` is running. Wait for it, or raise --lock-timeout",
        )));
    drop(held);
    env.ctx(&["build"]).assert().success();
}

/// Reading commands before any build say what to do.
#[test]
fn no_pack_yet() {
    let env = Env::empty();
    env.ctx(&["validate"]).assert().code(2).stderr(
        predicate::str::contains("no context pack at")
            .and(predicate::str::contains("run `ctx build` first")),
    );
    env.ctx(&["search", "x", "--no-build"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("run `ctx build` first"));
}

/// Unknown and malformed IDs.
#[test]
fn bad_ids() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    env.ctx(&["get", "operations:0000000000"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("error: unknown chunk ID `operations:0000000000`: it is not in this pack; IDs of `docs/operations.md` include"));
    env.ctx(&["get", "not-an-id"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: `not-an-id` is neither a chunk ID nor an indexed file; IDs look like `operations:3fa9c2e1d0`",
        ));
    // A file name that fits several indexed files is a choice, not a guess.
    env.write("notes/operations.md", "# Notes\n\nMore about operations.\n");
    env.ctx(&["get", "operations.md"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: `operations.md` names 2 indexed files: `docs/operations.md`, `notes/operations.md`; give more of the path",
        ));
    // A whole path is not ambiguous because longer paths end with it.
    env.write("operations.md", "# Top\n\nThe top-level operations page.\n");
    let top = env.json(&["get", "operations.md"]);
    assert_eq!(top["chunks"][0]["doc"], "operations.md", "{top}");
}

/// An invalid `--doc` glob.
#[test]
fn bad_doc_glob() {
    let env = Env::fixture("demo");
    env.ctx(&["search", "locks", "--doc", "docs/[x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: invalid --doc glob `docs/[x`",
        ));
}

/// Unknown flags are usage errors (exit 2), as clap reports them.
#[test]
fn usage_error() {
    ctx()
        .args(["build", "--bogus"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unexpected argument '--bogus'"));
}

/// An I/O error names the file and the OS error once (the error quotes its
/// cause; the printed chain must not repeat it).
#[test]
fn a_missing_query_file_is_named_once() {
    let env = Env::empty();
    env.write("a.md", "# A\n\nText.\n");
    let missing = env.path().join("nope.jsonl");
    env.ctx(&["eval", missing.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::function(|s: &str| {
            s.starts_with("error: cannot read `")
                && s.contains("nope.jsonl`: ")
                && s.matches("os error 2").count() == 1
        }));
}

/// A search, get or evidence run where there is nothing to read says so and
/// leaves no `_ctx/` behind: one left there would make that directory the
/// project of every directory below it that has none of its own.
#[test]
fn nothing_to_read_leaves_no_pack_behind() {
    let env = Env::empty();
    let says = format!(
        "error: nothing is indexed in `{}`: it has no Markdown, text or code files ctx reads",
        env.path().display()
    );
    for args in [
        &["search", "kumquat"][..],
        &["get", "notes.md"],
        &["evidence", "kumquat"],
        &["symbol", "kumquat"],
    ] {
        ctx()
            .current_dir(env.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says.as_str()));
        assert!(!env.path().join("_ctx").exists(), "{args:?} left _ctx/");
    }
    env.write("proj/readme.md", "# P\n\nproject kumquat.\n");
    env.write("other/notes.md", "# Secret\n\nprivate notes kumquat.\n");
    ctx()
        .current_dir(env.path().join("proj"))
        .args(["search", "kumquat"])
        .assert()
        .success()
        .stdout(predicate::str::contains("readme.md"))
        .stdout(predicate::str::contains("notes.md").not());
    // A project that is built keeps its pack whatever a later search finds.
    std::fs::remove_file(env.path().join("proj/readme.md")).expect("remove");
    ctx()
        .current_dir(env.path().join("proj"))
        .args(["search", "kumquat"])
        .output()
        .expect("ctx runs");
    assert!(env.path().join("proj/_ctx").exists());
}

/// A blank file is counted among the files read, and `get` says it is
/// blank instead of that it is not indexed.
#[test]
fn a_blank_file_is_named_as_blank() {
    let env = Env::empty();
    env.write("docs/guide.md", "# Guide\n\nWords.\n");
    env.write("docs/empty.md", "");
    env.write("docs/spaces.md", "  \n\n\t\n");
    env.ctx(&["build", "-q"]).assert().success();
    for (asked, file) in [
        ("docs/empty.md", "docs/empty.md"),
        ("spaces.md", "docs/spaces.md"),
        ("docs/empty.md:1", "docs/empty.md"),
    ] {
        env.ctx(&["get", asked])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "error: `{asked}` is indexed but has nothing to return: {file} is empty or only whitespace"
            )));
    }
    env.ctx(&["get", "docs/nothere.md"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "is neither a chunk ID nor an indexed file",
        ));
}
