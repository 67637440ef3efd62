//! Killing a build at random moments never leaves a broken pack.

use std::time::Duration;

use super::util::{Env, copy_dir, corpus, ctx};

/// SIGKILL `ctx build` on a copy of k8s-enhancements 20+ times; every time the
/// pack is absent or complete and valid, and the next build succeeds.
#[test]
fn sigkill_during_build_never_corrupts() {
    let env = Env::empty();
    copy_dir(&corpus("k8s-enhancements"), env.path());
    let pack = env.path().join("_ctx/context_pack.json");
    // Deterministic pseudo-random kill delays (xorshift), spread over a build.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..22 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let delay = Duration::from_millis(50 + x % 2500);
        if round % 4 == 3 {
            // Touch a file so later rounds are incremental builds too.
            let f = env.path().join("keps/README.md");
            let t = std::fs::read_to_string(&f).unwrap_or_default();
            std::fs::write(&f, format!("{t}\n<!-- round {round} -->\n")).unwrap();
        }
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctx"))
            .arg("-s")
            .arg(env.path())
            .args(["build", "-q"])
            .spawn()
            .expect("spawn ctx build");
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        if pack.exists() {
            let text = std::fs::read_to_string(&pack).expect("read pack");
            let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| {
                panic!("round {round}: half-written pack after kill at {delay:?}: {e}")
            });
            assert_eq!(v["schema_version"], 1, "round {round}");
            assert_eq!(
                v["index"].as_array().map(Vec::len),
                v["chunks"].as_array().map(Vec::len)
            );
        }
    }
    ctx()
        .arg("-s")
        .arg(env.path())
        .arg("build")
        .assert()
        .success();
    ctx()
        .arg("-s")
        .arg(env.path())
        .arg("validate")
        .assert()
        .success();
    ctx()
        .arg("-s")
        .arg(env.path())
        .args(["search", "pod topology spread min domains"])
        .assert()
        .success();
}

/// The index files of a built demo project whose names end in `ext`.
fn index_files(env: &Env, ext: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(env.path().join("_ctx/index"))
        .expect("index dir")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect()
}

#[test]
fn a_damaged_index_is_named_and_rebuilt_by_the_next_build() {
    let env = Env::demo_built();
    let terms = index_files(&env, ".term");
    assert!(!terms.is_empty());
    for f in &terms {
        std::fs::OpenOptions::new()
            .write(true)
            .open(f)
            .and_then(|file| file.set_len(10))
            .expect("truncate");
    }
    // Without a build, search says what is wrong and what to do.
    let out = env
        .ctx(&["search", "stale lock", "--no-build"])
        .assert()
        .failure()
        .get_output()
        .stderr
        .clone();
    let err = String::from_utf8_lossy(&out);
    assert!(err.contains("_ctx/index"), "{err}");
    assert!(
        err.contains("run `ctx build`, which rebuilds an index it cannot read"),
        "{err}"
    );
    // A build (here the refresh before a search) finds it and rebuilds it.
    let out = env.json(&["search", "stale lock", "-k", "1"]);
    assert_eq!(out["no_evidence"], false, "{out}");
    // A damaged `meta.json` too, reported as a warning of its kind.
    std::fs::write(env.path().join("_ctx/index/meta.json"), "{bad").expect("write");
    let report = env.json(&["build"]);
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w["kind"] == "index_rebuilt"
            && w["path"] == "_ctx/index"
            && w["message"].as_str().is_some_and(
                |m| m.contains("meta.json") && m.ends_with("rebuilt it from the sources")
            )),
        "{report}"
    );
    assert_eq!(report["full"], true, "{report}");
    let out = env.json(&["search", "stale lock", "-k", "1", "--no-build"]);
    assert_eq!(out["no_evidence"], false, "{out}");
    env.ctx(&["validate"]).assert().success();
}

#[test]
fn a_damaged_catalog_is_named_and_set_aside_by_a_full_build() {
    let env = Env::demo_built();
    let db = env.path().join("_ctx/context.db");
    let mut bytes = std::fs::read(&db).expect("read catalog");
    assert!(bytes.len() > 3 * 4096, "{}", bytes.len());
    // Every page after the first (the schema's root) garbled.
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).expect("write");
    for args in [&["search", "stale lock"][..], &["build"]] {
        let out = env.ctx(args).assert().failure().get_output().stderr.clone();
        let err = String::from_utf8_lossy(&out);
        assert!(
            err.contains("_ctx/context.db` is damaged (")
                && err.contains(
                    "run `ctx build --full`, which sets it aside as `context.db.damaged` and rebuilds it"
                ),
            "{args:?}: {err}"
        );
    }
    let report = env.json(&["build", "--full"]);
    let warnings = report["warnings"].as_array().expect("warnings");
    assert!(
        warnings
            .iter()
            .any(|w| w["kind"] == "catalog_rebuilt" && w["path"] == "_ctx/context.db"),
        "{report}"
    );
    assert_eq!(
        std::fs::read(env.path().join("_ctx/context.db.damaged")).ok(),
        Some(bytes)
    );
    let out = env.json(&["search", "stale lock", "-k", "1"]);
    assert_eq!(out["no_evidence"], false, "{out}");
    // A file that is no database at all, likewise.
    std::fs::write(&db, "not a database, whatever it is\n".repeat(200)).expect("write");
    env.ctx(&["search", "stale lock"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "is damaged (file is not a database",
        ));
    env.ctx(&["build", "--full"]).assert().success();
    env.ctx(&["validate"]).assert().success();
}
