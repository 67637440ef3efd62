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
