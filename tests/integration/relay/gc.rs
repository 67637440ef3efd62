//! `ctx relay gc`: what it removes, and how its age is written.

use std::time::{Duration, SystemTime};

use super::super::util::{Env, boxed};
use super::resolve;

/// A file under `_ctx/relay/<session>/` that no box names (a `ctx box`
/// killed between writing its value and recording it) is removed once it
/// is older than the asked age and an hour; boxes and newer files stay.
#[test]
fn gc_removes_stray_files_no_box_names() {
    let env = Env::empty();
    let r = boxed(env.path(), "a boxed value\n", &["--threshold-chars", "1"]);
    let r = r.trim();
    let two_hours_ago = SystemTime::now() - Duration::from_secs(2 * 3600);
    env.write("_ctx/relay/default/old0000000000000_value.txt", "stray");
    env.set_mtime(
        "_ctx/relay/default/old0000000000000_value.txt",
        two_hours_ago,
    );
    env.write("_ctx/relay/default/new0000000000000_value.txt", "fresh");
    env.write("_ctx/relay/other/old0000000000001_value.json", "{}");
    env.set_mtime(
        "_ctx/relay/other/old0000000000001_value.json",
        two_hours_ago,
    );

    let report = env.json(&["relay", "gc", "--older-than", "1h"]);
    assert_eq!(report["removed"], 0, "{report}");
    assert_eq!(report["stray_files"], 2, "{report}");
    assert_eq!(report["bytes"], 7, "{report}");
    assert!(
        !env.path()
            .join("_ctx/relay/default/old0000000000000_value.txt")
            .exists()
    );
    assert!(
        env.path()
            .join("_ctx/relay/default/new0000000000000_value.txt")
            .exists()
    );
    assert_eq!(resolve(&env, &["read", r]), "a boxed value\n");

    // A file written within the hour stays even at age 0: it may be a box
    // being recorded right now.
    env.ctx(&["relay", "gc", "--older-than", "0s"])
        .assert()
        .success()
        .stdout("removed 1 boxed value(s), 14 bytes\n");
    assert!(
        env.path()
            .join("_ctx/relay/default/new0000000000000_value.txt")
            .exists()
    );
    env.set_mtime(
        "_ctx/relay/default/new0000000000000_value.txt",
        two_hours_ago,
    );
    env.ctx(&["relay", "gc", "--older-than", "0s"])
        .assert()
        .success()
        .stdout("removed 0 boxed value(s) and 1 stray file(s) no box named, 5 bytes\n");
}

/// An age needs its unit: a bare `7` (days meant, seconds read) would
/// have removed every box but the last seven seconds'.
#[test]
fn gc_refuses_an_age_without_a_unit() {
    let env = Env::empty();
    let r = boxed(env.path(), "a boxed value\n", &["--threshold-chars", "1"]);
    let r = r.trim();
    env.ctx(&["relay", "gc", "--older-than", "7"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "invalid value '7' for '--older-than <OLDER_THAN>': `7` has no unit; give the age with one of s, m, h, d, w (e.g. `7d` for 7 days)",
        ));
    env.ctx(&["relay", "gc", "--older-than", "99999999999999999w"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is too long a duration"));
    assert_eq!(resolve(&env, &["read", r]), "a boxed value\n");
    for age in ["45s", "30m", "12h", "7d", "2w"] {
        env.ctx(&["relay", "gc", "--older-than", age])
            .assert()
            .success();
    }
    assert_eq!(resolve(&env, &["read", r]), "a boxed value\n");
}
