//! The refresh before a search reuses the last walk while no directory,
//! ignore file or setting changed (`sources::unchanged`): what it must still
//! notice, and what only a walk does.

use std::time::{Duration, SystemTime};

use super::util::Env;

/// Everything under `rel` (itself included) dated an hour back, `_ctx/` aside.
pub(crate) fn age(env: &Env, rel: &str) {
    let old = SystemTime::now() - Duration::from_secs(3600);
    for entry in std::fs::read_dir(env.path().join(rel))
        .expect("read dir")
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = match rel {
            "" => name.clone(),
            _ => format!("{rel}/{name}"),
        };
        match (name.as_str(), entry.path().is_dir()) {
            ("_ctx", _) => {}
            (_, true) => age(env, &child),
            (_, false) => env.set_mtime(&child, old),
        }
    }
    env.set_mtime(rel, old);
}

/// A project of two directories and an ignore file, aged and built, so its
/// recorded walk is trusted.
fn project() -> Env {
    let env = Env::empty();
    env.write("docs/a.md", "# Alpha\n\nThe harbour opens at dawn.\n");
    env.write(
        "notes/b.md",
        "# Beta\n\nThe lighthouse keeper logs the tide.\n",
    );
    env.write(".gitignore", "scratch/\n");
    // The first build makes `_ctx/`, which dates the root directory now.
    env.ctx(&["build"]).assert().success();
    age(&env, "");
    env.ctx(&["build"]).assert().success();
    env
}

fn hits(env: &Env, query: &str) -> Vec<String> {
    let out = env.json(&["search", query]);
    out["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|h| h["doc"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_refresh_sees_new_removed_edited_and_ignored_files() {
    let env = project();
    assert_eq!(hits(&env, "harbour dawn"), ["docs/a.md"]);
    // A new file changes its directory's mtime.
    env.write("docs/c.md", "# Gamma\n\nThe ferry leaves at noon.\n");
    assert_eq!(hits(&env, "ferry noon"), ["docs/c.md"]);
    age(&env, "");
    env.ctx(&["build"]).assert().success();
    // An edit in place: the file's own size and mtime.
    env.write(
        "notes/b.md",
        "# Beta\n\nThe lighthouse keeper logs the storm.\n",
    );
    assert_eq!(hits(&env, "lighthouse storm"), ["notes/b.md"]);
    age(&env, "");
    env.ctx(&["build"]).assert().success();
    // An ignore file edited in place leaves every directory's mtime alone.
    let dir_mtime = env.mtime("");
    env.write(".gitignore", "scratch/\nnotes/\n");
    env.set_mtime("", dir_mtime);
    assert!(hits(&env, "lighthouse storm").is_empty());
    age(&env, "");
    env.ctx(&["build"]).assert().success();
    // A removed file.
    std::fs::remove_file(env.path().join("docs/c.md")).expect("remove");
    let out = env
        .ctx(&["search", "ferry noon", "--json"])
        .output()
        .expect("run");
    let out: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(out["no_evidence"], true, "{out}");
}

#[test]
fn a_refresh_trusts_directory_mtimes_and_a_build_walks() {
    let env = project();
    // A file added with its directory's mtime put back, as no editor does:
    // the refresh, trusting the directory, does not look for it…
    let before = env.mtime("docs");
    env.write("docs/c.md", "# Gamma\n\nThe ferry leaves at noon.\n");
    env.set_mtime("docs", before);
    assert!(hits(&env, "ferry noon").is_empty());
    // …and `ctx build`, which always walks, finds it.
    env.ctx(&["build"]).assert().success();
    assert_eq!(hits(&env, "ferry noon"), ["docs/c.md"]);
}

#[test]
fn a_walk_too_recent_to_trust_is_walked_again() {
    // Built just now: a directory's mtime could still change within the same
    // clock tick without moving, so the state is not trusted and the refresh
    // walks, finding the file whose directory mtime was put back.
    let env = Env::empty();
    env.write("docs/a.md", "# Alpha\n\nThe harbour opens at dawn.\n");
    env.ctx(&["build"]).assert().success();
    let before = env.mtime("docs");
    env.write("docs/c.md", "# Gamma\n\nThe ferry leaves at noon.\n");
    env.set_mtime("docs", before);
    assert_eq!(hits(&env, "ferry noon"), ["docs/c.md"]);
}
