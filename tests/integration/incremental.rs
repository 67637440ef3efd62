//! Incremental builds: the pack spliced from the previous one, pack damage
//! detected, the search-time refresh, and catalog layout migration.

use predicates::prelude::*;
use serde_json::Value;

use super::util::Env;

fn pack(env: &Env) -> Value {
    let mut v = env.pack();
    v.as_object_mut().expect("object").remove("created_at");
    v
}

fn append(env: &Env, rel: &str, text: &str) {
    let p = env.path().join(rel);
    let mut old = std::fs::read_to_string(&p).expect("read");
    old.push_str(text);
    std::fs::write(&p, old).expect("write");
}

/// After edits, additions and removals, the pack an incremental build writes
/// (copying unchanged documents from the previous pack, and written before the
/// commit when the previous pack is current) is the pack a full build writes.
#[test]
fn spliced_pack_equals_a_full_build() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    append(
        &env,
        "docs/faq.md",
        "\n## Splice check\n\nA paragraph about marmalade.\n",
    );
    env.write("docs/new.md", "# New page\n\nFresh words: quokka.\n");
    std::fs::remove_file(env.path().join("docs/changelog.md")).expect("rm");
    let r = env.json(&["build"]);
    assert_eq!(r["full"], false, "{r}");
    assert_eq!(r["changed"], 2, "{r}");
    assert_eq!(r["removed"], 1, "{r}");
    env.ctx(&["validate"]).assert().success();
    let spliced = pack(&env);
    let docs: Vec<&str> = spliced["chunks"]
        .as_array()
        .expect("chunks")
        .iter()
        .map(|c| c["doc"].as_str().expect("doc"))
        .collect();
    assert!(docs.contains(&"docs/new.md") && !docs.contains(&"docs/changelog.md"));
    // Splice again from the spliced pack: its recorded spans must be right too.
    append(
        &env,
        "docs/operations.md",
        "\n## Second round\n\nAnother edit.\n",
    );
    std::fs::remove_file(env.path().join("agent.md")).expect("rm");
    // A file emptied (it keeps its source entry but has no chunks) and one
    // rewritten with the same bytes (a new mtime, the same chunks).
    env.write("prime.md", "");
    let same = std::fs::read_to_string(env.path().join("skill.md")).expect("read");
    let mtime = std::fs::metadata(env.path().join("skill.md"))
        .and_then(|m| m.modified())
        .expect("mtime");
    env.write("skill.md", &same);
    std::fs::File::options()
        .write(true)
        .open(env.path().join("skill.md"))
        .and_then(|f| f.set_modified(mtime + std::time::Duration::from_secs(5)))
        .expect("touch");
    let r = env.json(&["build"]);
    assert_eq!(
        (r["changed"].clone(), r["removed"].clone()),
        (2.into(), 1.into()),
        "{r}"
    );
    env.ctx(&["validate"]).assert().success();
    let spliced = pack(&env);
    let r = env.json(&["build", "--full"]);
    assert_eq!(r["full"], true, "{r}");
    assert_eq!(spliced, pack(&env));
}

/// A build whose previous pack is on disk as recorded and current writes the
/// new pack while the index commits (an `early pack` in its timings); a full
/// build, a build after a damaged pack, and the build that catches up with a
/// search's refresh write it after the commit. Each pack is the one a full
/// build writes.
#[test]
fn the_pack_is_written_early_only_over_a_current_pack() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let timings = |args: &[&str]| -> String {
        let out = env.ctx(args).output().expect("run");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let early = |t: &str| t.contains("early pack ");
    append(
        &env,
        "docs/faq.md",
        "\n## Kelp\n\nA paragraph about kelp.\n",
    );
    assert!(early(&timings(&["build", "--timings"])));
    let spliced = pack(&env);
    assert!(!early(&timings(&["build", "--timings", "--full"])));
    assert_eq!(spliced, pack(&env));
    // The refresh before a search leaves the pack behind the catalog.
    append(
        &env,
        "docs/faq.md",
        "\n## Reef\n\nA paragraph about reefs.\n",
    );
    env.ctx(&["search", "reefs"]).assert().success();
    assert!(!early(&timings(&["build", "--timings"])));
    env.ctx(&["validate"]).assert().success();
    append(
        &env,
        "docs/faq.md",
        "\n## Tide\n\nA paragraph about tides.\n",
    );
    assert!(early(&timings(&["build", "--timings"])));
    // A pack cut short outside a build is not copied from.
    let path = env.path().join("_ctx/context_pack.json");
    let whole = std::fs::read(&path).expect("pack");
    std::fs::write(&path, &whole[..whole.len() / 2]).expect("truncate");
    append(
        &env,
        "docs/faq.md",
        "\n## Shore\n\nA paragraph about shores.\n",
    );
    assert!(!early(&timings(&["build", "--timings"])));
    env.ctx(&["validate"]).assert().success();
    let spliced = pack(&env);
    env.json(&["build", "--full"]);
    assert_eq!(spliced, pack(&env));
}

/// A pack replaced or cut short outside a build is noticed and rewritten.
#[test]
fn damaged_pack_is_rewritten() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let path = env.path().join("_ctx/context_pack.json");
    let good = std::fs::read(&path).expect("pack");
    std::fs::write(&path, &good[..good.len() / 2]).expect("truncate");
    env.ctx(&["validate"]).assert().failure();
    let r = env.json(&["build"]);
    assert_eq!(r["noop"], false, "{r}");
    assert_eq!(r["changed"], 0, "{r}");
    env.ctx(&["validate"]).assert().success();
    // Written from the catalog this time (nothing was chunked), it is the
    // pack the first build wrote from the chunks in memory.
    let mut first: Value = serde_json::from_slice(&good).expect("pack JSON");
    first.as_object_mut().expect("object").remove("created_at");
    assert_eq!(pack(&env), first);
    // Rewriting only the pack must not make the next build a full one.
    append(&env, "docs/faq.md", "\n## Later\n\nMore text.\n");
    let r = env.json(&["build"]);
    assert_eq!(
        (r["full"].clone(), r["changed"].clone()),
        (false.into(), 1.into()),
        "{r}"
    );
}

/// `ctx search` refreshes what it reads (catalog and index) without rewriting
/// an existing pack; the next `ctx build` brings the pack up to date.
#[test]
fn search_refresh_defers_the_pack() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let before = pack(&env);
    append(
        &env,
        "docs/faq.md",
        "\n## Wombat care\n\nWombats like carrots.\n",
    );
    let hits = env.json(&["search", "wombat carrots"]);
    assert_eq!(hits["hits"][0]["doc"], "docs/faq.md", "{hits}");
    assert_eq!(pack(&env), before, "the refresh rewrote the pack");
    let r = env.json(&["build"]);
    assert_eq!(r["noop"], false, "{r}");
    env.ctx(&["validate"]).assert().success();
    assert!(
        pack(&env)["chunks"]
            .to_string()
            .contains("Wombats like carrots")
    );
    // With no pack at all, the refresh writes one.
    std::fs::remove_dir_all(env.path().join("_ctx")).ok();
    env.write("_ctx/.keep", "");
    env.json(&["search", "wombat"]);
    env.ctx(&["validate"]).assert().success();
}

/// A catalog written by an older ctx is read-only-refused with a hint, and the
/// next build migrates it (keeping relay boxes) with a full rebuild.
#[test]
fn older_catalog_layout_is_migrated() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let db = env.path().join("_ctx/context.db");
    {
        let c = rusqlite::Connection::open(&db).expect("open");
        // An older files table, too: it must be made anew, not reused.
        c.execute_batch("ALTER TABLE files DROP COLUMN notes; PRAGMA user_version = 2;")
            .expect("downgrade");
    }
    env.ctx(&["search", "--no-build", "lock"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("error: catalog `"))
        .stderr(predicate::str::contains(
            "context.db` has layout 2, this ctx reads layout",
        ))
        .stderr(predicate::str::contains("run `ctx build`"));
    let r = env.json(&["build"]);
    assert_eq!(r["full"], true, "{r}");
    env.ctx(&["validate"]).assert().success();
    let hits = env.json(&["search", "--no-build", "lock"]);
    assert!(!hits["hits"].as_array().expect("hits").is_empty(), "{hits}");
}

/// Layout 5 lacked only the skipped-files table, the files' notes and an
/// index: it is brought to the current layout in place, without a rebuild.
#[test]
fn layout_5_is_migrated_in_place() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let db = env.path().join("_ctx/context.db");
    {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.execute_batch(
            "DROP TABLE skipped; ALTER TABLE files DROP COLUMN notes; PRAGMA user_version = 5;",
        )
        .expect("layout 5");
    }
    let r = env.json(&["build"]);
    assert_eq!(r["full"], false, "{r}");
    assert_eq!(r["noop"], true, "{r}");
    env.write("big.md", format!("# Big\n\n{}\n", "x".repeat(5_000_000)));
    let r = env.json(&["build"]);
    assert_eq!(r["warnings"][0]["kind"], "too_large", "{r}");
    assert_eq!(env.json(&["stats"])["skipped"][0]["path"], "big.md");
    env.ctx(&["validate"]).assert().success();
}

/// Layout 7 lacked only the index that covers documents' generations: it is
/// read as it is, the next build adds the index in place and rebuilds nothing,
/// and an edit after it is still seen.
#[test]
fn layout_7_gains_its_index_in_place() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let db = env.path().join("_ctx/context.db");
    let has_index = || -> bool {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'pages_by_scope'",
            [],
            |r| r.get(0),
        )
        .expect("schema")
    };
    assert!(has_index());
    {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.execute_batch("DROP INDEX pages_by_scope; PRAGMA user_version = 7;")
            .expect("layout 7");
    }
    // Readers need no build first: the index only serves builds.
    let hits = env.json(&["search", "--no-build", "stale lock"]);
    assert!(!hits["hits"].as_array().expect("hits").is_empty(), "{hits}");
    assert!(!has_index());
    let r = env.json(&["build"]);
    assert_eq!(r["full"], false, "{r}");
    assert_eq!(r["noop"], true, "{r}");
    assert!(has_index());
    env.write("docs/ops.md", "# Operations\n\nThe wombat runbook.\n");
    let r = env.json(&["build"]);
    assert_eq!(
        (r["full"].clone(), r["changed"].clone()),
        (false.into(), 1.into()),
        "{r}"
    );
    let hits = env.json(&["search", "--no-build", "wombat runbook"]);
    assert_eq!(hits["hits"][0]["doc"], "docs/ops.md", "{hits}");
    env.ctx(&["validate"]).assert().success();
}

/// Layout 8 lacked only where a retired ID stood: it is read as it is, and
/// the next build adds the column in place and rebuilds nothing.
#[test]
fn layout_8_gains_retired_ordinals_in_place() {
    let env = Env::fixture("demo");
    env.json(&["build"]);
    let db = env.path().join("_ctx/context.db");
    let has_column = || -> bool {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.query_row(
            "SELECT count(*) > 0 FROM pragma_table_info('retired') WHERE name = 'ordinal'",
            [],
            |r| r.get(0),
        )
        .expect("schema")
    };
    assert!(has_column());
    {
        let c = rusqlite::Connection::open(&db).expect("open");
        c.execute_batch("ALTER TABLE retired DROP COLUMN ordinal; PRAGMA user_version = 8;")
            .expect("layout 8");
    }
    let hits = env.json(&["search", "--no-build", "stale lock"]);
    assert!(!hits["hits"].as_array().expect("hits").is_empty(), "{hits}");
    let r = env.json(&["build"]);
    assert_eq!(
        (r["full"].clone(), r["noop"].clone()),
        (false.into(), true.into()),
        "{r}"
    );
    assert!(has_column());
    env.ctx(&["validate"]).assert().success();
}

/// `--timings` names every stage of a build that wrote something.
#[test]
fn timings_name_every_stage() {
    let env = Env::fixture("demo");
    env.ctx(&["build", "--timings"])
        .assert()
        .success()
        .stderr(predicate::str::is_match("timings: walk [0-9]+ ms, chunk [0-9]+ ms, catalog [0-9]+ ms, index [0-9]+ ms, commit [0-9]+ ms, pack [0-9]+ ms").expect("regex"));
}

/// Deleted index records count in BM25's statistics until their segment is
/// merged: a build that leaves over a quarter of a segment deleted merges it,
/// so a long-edited pack ranks like a fresh one. A small edit does not pay for
/// a merge.
#[test]
fn deleted_records_are_merged_away() {
    let env = Env::empty();
    for i in 0..20 {
        let sections: String = (0..9)
            .map(|s| format!("## Part {s}\n\nText {s} of file {i}.\n\n"))
            .collect();
        env.write(
            &format!("doc{i:02}.md"),
            format!("# File {i}\n\n{sections}"),
        );
    }
    env.ctx(&["build", "-q"]).assert().success();
    let deleted = |env: &Env| {
        let r = env.json(&["stats"]);
        (
            r["index_deleted_records"].as_u64().unwrap(),
            r["index_records"].as_u64().unwrap(),
        )
    };
    assert_eq!(deleted(&env).0, 0);
    append(&env, "doc00.md", "One more line.\n");
    env.ctx(&["build", "-q"]).assert().success();
    let (gone, all) = deleted(&env);
    assert!(gone > 0 && gone * 4 < all, "{gone} of {all}");
    // Six more files: 7 of 20 documents' records deleted from the first
    // segment (35 %), which is merged.
    for i in 1..7 {
        append(&env, &format!("doc{i:02}.md"), "One more line.\n");
    }
    env.ctx(&["build", "-q"]).assert().success();
    assert_eq!(deleted(&env).0, 0);
    let r = env.json(&["search", "--no-build", "text of file 3", "-k", "1"]);
    assert_eq!(r["hits"][0]["doc"], "doc03.md", "{r}");
}

/// The build's summary line: what changed, and a throughput only where one
/// means something (files were read, a megabyte or more).
#[test]
fn build_summary_names_a_rate_only_when_it_means_something() {
    let env = Env::fixture("demo");
    let line = |env: &Env| {
        let out = env
            .ctx(&["build"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8(out).expect("UTF-8")
    };
    let first = line(&env);
    assert!(
        first.starts_with("built ") && first.contains(" changed, 0 removed (full rebuild) in "),
        "{first}"
    );
    assert!(!first.contains("MB/s"), "{first}");
    let again = line(&env);
    assert!(
        again.contains("; up to date in ") && !again.contains("MB/s"),
        "{again}"
    );
    // A megabyte and more of changed text gets its rate.
    let para = "Words about marmalade, quokkas and lock files, repeated for size.\n\n";
    env.write("docs/big.md", format!("# Big\n\n{}", para.repeat(16_000)));
    let big = line(&env);
    assert!(
        big.contains("1 changed, 0 removed in ") && big.trim_end().ends_with(" MB/s)"),
        "{big}"
    );
    // A small edit beside it: the rate would be over the megabyte it did
    // not read again.
    env.write("docs/small.md", "# Small\n\nA few words.\n");
    let small = line(&env);
    assert!(
        small.contains("1 changed, 0 removed in ") && !small.contains("MB/s"),
        "{small}"
    );
}
