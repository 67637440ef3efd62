//! `ctx autopilot` on real file events: the real binary watches a temp copy of the
//! demo; tests wait on its log or on search results with a deadline, never on a
//! fixed sleep (a quiet window is used only to show that something did *not*
//! happen).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use predicates::prelude::*;
use serde_json::Value;

mod harness;

use super::util::Env;
use harness::{DEADLINE, FAST, Watcher, append, count, demo, docs_for, dump, log};

/// Edit, create (in new directories), rename and delete Markdown files: each
/// change is searchable once the watcher has run its round.
#[test]
fn edits_creates_renames_and_deletes_become_searchable() {
    let env = demo(FAST);
    let mut w = Watcher::started(&env, &[]);

    append(
        &env.path().join("docs/faq.md"),
        "\n## Zebrafinch\n\nThe zebrafinch answer.\n",
    );
    w.wait_search(&env, "zebrafinch", |d| d.iter().any(|d| d == "docs/faq.md"));

    env.write("notes/deep/er/idea.md", "# Idea\n\nA quokkaberry plan.\n");
    w.wait_search(&env, "quokkaberry", |d| d == ["notes/deep/er/idea.md"]);

    std::fs::rename(
        env.path().join("docs/faq.md"),
        env.path().join("docs/questions.md"),
    )
    .expect("rename");
    w.wait_search(&env, "zebrafinch", |d| d == ["docs/questions.md"]);

    std::fs::remove_file(env.path().join("notes/deep/er/idea.md")).expect("remove");
    w.wait_search(&env, "quokkaberry", |d| d.is_empty());

    w.wait_log(&env, "the rounds to end", |log| {
        count(log, "round_end") == count(log, "round_start")
    });
    // A validate that runs while the next change lands may fail (the pack lags
    // the disk for a moment); the round after it must set things right.
    let log = log(&env);
    let last = log
        .iter()
        .rfind(|r| r["event"] == "round_end")
        .expect("a round");
    assert_eq!(last["outcome"], "ok", "{}", dump(&log));
    let steps: Vec<&Value> = log
        .iter()
        .filter(|r| r["event"] == "step" && r["round"] == last["round"])
        .collect();
    for step in &steps {
        assert_eq!(step["outcome"], "ok", "{step}");
        assert!(step["duration_ms"].is_u64(), "{step}");
        assert!(
            step["time"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{step}"
        );
    }
    let steps: Vec<&str> = steps.iter().filter_map(|r| r["step"].as_str()).collect();
    assert_eq!(steps, ["build", "validate"], "the default round");
}

/// 100 quick edits make one or two rounds, not 100, and the watcher's own writes
/// under `_ctx/` start none. The debouncer lets a path go once it has been
/// quiet for the debounce, checking every tick (a quarter of it, 50 ms here):
/// on a loaded machine the writes to the ten files can spread over several
/// ticks, each of which may then release a batch and add one round, which is
/// still the behaviour asked for.
#[test]
fn a_burst_of_edits_is_one_or_two_rounds() {
    let env = demo(FAST);
    let mut w = Watcher::started(&env, &[]);
    let burst = Instant::now();
    for i in 0..100 {
        env.write(
            &format!("docs/burst-{}.md", i % 10),
            format!("# Burst {}\n\nwombatbeat revision {i}\n", i % 10),
        );
    }
    let spanned = (burst.elapsed().as_millis() / 50) as usize;
    w.wait_search(&env, "wombatbeat", |d| d.len() == 10);
    w.wait_log(&env, "the rounds to end", |log| {
        count(log, "round_start") >= 1 && count(log, "round_end") == count(log, "round_start")
    });
    // A quiet window: a self-triggered round would start within one debounce.
    std::thread::sleep(Duration::from_millis(1000));
    let log = log(&env);
    let rounds = count(&log, "round_start");
    assert!(
        (1..=2 + spanned).contains(&rounds),
        "{rounds} rounds for a burst spanning {spanned} debounce ticks\n{}",
        dump(&log)
    );
    let changed: u64 = log
        .iter()
        .filter(|r| r["event"] == "round_start")
        .filter_map(|r| r["changed"].as_u64())
        .sum();
    assert!(changed >= 10, "{}", dump(&log));
}

/// A change that arrives while a round runs gives exactly one more round.
#[test]
fn an_edit_during_a_round_gives_one_more_round() {
    let env = demo(
        "autopilot:\n  debounce_ms: 200\n  steps:\n    - command: ctx build\n      timeout_ms: 60000\n    - command: sleep 1\n      timeout_ms: 10000\n",
    );
    let mut w = Watcher::started(&env, &[]);
    append(&env.path().join("docs/faq.md"), "\nThe aardvarkone note.\n");
    w.wait_log(&env, "round 1", |log| count(log, "round_start") == 1);
    append(&env.path().join("docs/faq.md"), "\nThe aardvarktwo note.\n");
    w.wait_search(&env, "aardvarktwo", |d| d == ["docs/faq.md"]);
    w.wait_log(&env, "round 2 to end", |log| count(log, "round_end") == 2);
    // A quiet window: a third round would start within one debounce.
    std::thread::sleep(Duration::from_millis(1000));
    let log = log(&env);
    assert_eq!(count(&log, "round_start"), 2, "{}", dump(&log));
    let steps: Vec<&str> = log
        .iter()
        .filter(|r| r["event"] == "step")
        .filter_map(|r| r["step"].as_str())
        .collect();
    assert_eq!(steps, ["ctx build", "sleep 1", "ctx build", "sleep 1"]);
}

/// One watcher per segment: the second refuses naming the first's pid; after
/// `kill -9` of the first, a new one starts at once (the OS freed the lock).
#[test]
fn one_watcher_per_segment_and_kill_9_frees_the_lock() {
    let env = demo(FAST);
    let mut first = Watcher::started(&env, &[]);
    env.ctx(&["autopilot"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "held by pid {}",
            first.pid()
        )))
        .stderr(predicate::str::contains("another `ctx autopilot`"));

    first.child.kill().expect("kill -9");
    first.exited_within(Duration::from_secs(10));
    let second = Watcher::started(&env, &[]);
    assert_ne!(second.pid(), first.pid());
}

/// A project whose only step starts `sleep 30` in the background, writes its
/// pid to a file and waits for it, with a time limit of `timeout_ms`.
fn sleeping_step(timeout_ms: u64) -> (Env, tempfile::TempDir, PathBuf) {
    let pids = tempfile::tempdir().expect("tempdir");
    let pidfile = pids.path().join("sleep.pid");
    let env = demo(&format!(
        "autopilot:\n  debounce_ms: 200\n  steps:\n    - command: sleep 30 & echo $! > '{}'; wait\n      timeout_ms: {timeout_ms}\n",
        pidfile.display()
    ));
    (env, pids, pidfile)
}

/// `/proc/<pid>/stat` of the pid in `pidfile` (empty once it is gone).
fn stat_of(pidfile: &Path) -> String {
    let pid = std::fs::read_to_string(pidfile).expect("pid file");
    std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default()
}

/// Waits up to `limit` for the process in `pidfile` to be gone, or a zombie
/// waiting for a reaper that is not ours.
fn assert_ends_within(pidfile: &Path, limit: Duration) {
    let until = Instant::now() + limit;
    loop {
        let stat = stat_of(pidfile);
        if stat.is_empty() || stat.contains(") Z ") {
            return;
        }
        assert!(Instant::now() < until, "sleep still runs: {stat}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A step past its timeout is killed (its whole process group) and logged as a
/// timeout quickly.
#[test]
fn a_step_timeout_kills_the_child() {
    let (env, _pids, pidfile) = sleeping_step(300);
    let mut w = Watcher::started(&env, &[]);
    let edited = Instant::now();
    append(&env.path().join("docs/faq.md"), "\nA timeout note.\n");
    w.wait_log(&env, "the step", |log| count(log, "step") == 1);
    let elapsed = edited.elapsed();
    let log = log(&env);
    let step = log.iter().find(|r| r["event"] == "step").expect("step");
    assert_eq!(step["outcome"], "timeout", "{step}");
    assert!(
        step["error"].as_str().unwrap_or("").contains("300 ms"),
        "{step}"
    );
    let ms = step["duration_ms"].as_u64().expect("duration");
    assert!((300..5000).contains(&ms), "{step}");
    assert!(elapsed < Duration::from_secs(20), "{elapsed:?}");
    assert_ends_within(&pidfile, Duration::ZERO);
}

/// A watcher killed with SIGKILL mid-step takes the step down with it: its
/// guard sees the pipe to the watcher close and kills the step's group.
#[test]
fn kill_9_of_the_watcher_ends_a_running_step() {
    let (env, _pids, pidfile) = sleeping_step(60_000);
    let mut w = Watcher::started(&env, &[]);
    append(&env.path().join("docs/faq.md"), "\nA kill note.\n");
    let until = Instant::now() + Duration::from_secs(20);
    while !pidfile.exists() {
        assert!(
            Instant::now() < until,
            "the step never started: {}",
            w.output()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // The pid file exists once `echo` opened it; let it write.
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        !stat_of(&pidfile).is_empty(),
        "sleep should run while the watcher does"
    );
    w.child.kill().expect("kill -9");
    w.exited_within(Duration::from_secs(10));
    assert_ends_within(&pidfile, Duration::from_secs(10));
}

/// A failing step is logged; the rest of the round runs, and the next change
/// still rebuilds.
#[test]
fn a_failing_step_is_logged_and_the_next_change_still_rebuilds() {
    let env = demo(
        "autopilot:\n  debounce_ms: 200\n  steps:\n    - command: echo broken >&2; false\n      timeout_ms: 5000\n    - command: ctx build\n      timeout_ms: 60000\n",
    );
    let mut w = Watcher::started(&env, &[]);
    append(&env.path().join("docs/faq.md"), "\nThe pangolinone note.\n");
    w.wait_search(&env, "pangolinone", |d| d == ["docs/faq.md"]);
    w.wait_log(&env, "round 1 to end", |log| count(log, "round_end") == 1);
    let log1 = log(&env);
    let failed = log1
        .iter()
        .find(|r| r["event"] == "step" && r["outcome"] == "failed")
        .expect("a failed step");
    let error = failed["error"].as_str().unwrap_or("");
    assert!(
        error.contains("exit status 1") && error.contains("broken"),
        "{failed}"
    );
    let end = log1
        .iter()
        .find(|r| r["event"] == "round_end")
        .expect("end");
    assert_eq!(end["outcome"], "failed");

    append(&env.path().join("docs/faq.md"), "\nThe pangolintwo note.\n");
    w.wait_search(&env, "pangolintwo", |d| d == ["docs/faq.md"]);
}

/// `enabled: false` says so and exits 0.
#[test]
fn disabled_says_so_and_exits_0() {
    let env = Env::fixture("demo");
    env.write(
        "session.md",
        "---\nautopilot:\n  enabled: false\n---\n# Notes\n",
    );
    env.ctx(&["autopilot"])
        .timeout(Duration::from_secs(30))
        .assert()
        .success()
        .stdout(predicate::str::contains("autopilot is disabled"));
    assert!(!env.path().join("_ctx/autopilot.log").exists());
}

/// Invalid front matter is an error naming the line; exit 2.
#[test]
fn invalid_front_matter_names_the_line() {
    let env = Env::fixture("demo");
    env.write(
        "session.md",
        "---\nautopilot:\n  enabled: true\n  debounce_ms: soon\n---\n# Notes\n",
    );
    env.ctx(&["autopilot"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("session.md line 4: "));
    env.write(
        "session.md",
        "---\nautopilot:\n  debounce_ms: 200\n  stepz: []\n---\n# Notes\n",
    );
    env.ctx(&["autopilot", "--once"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("session.md line 4: "))
        .stderr(predicate::str::contains("stepz"));
}

/// `--status` names the running watcher's pid and its last rounds; SIGTERM stops
/// the watcher cleanly (logged) and frees the lock.
#[test]
fn status_reports_the_pid_and_last_runs_and_sigterm_stops_cleanly() {
    let env = demo(FAST);
    let none = env.json(&["autopilot", "--status"]);
    assert_eq!(none["running"], false);
    assert_eq!(none["rounds"].as_array().map(Vec::len), Some(0));

    let mut w = Watcher::started(&env, &[]);
    append(&env.path().join("docs/faq.md"), "\nThe okapistatus note.\n");
    w.wait_log(&env, "a round", |log| count(log, "round_end") == 1);
    let s = env.json(&["autopilot", "--status"]);
    assert_eq!(s["running"], true, "{s}");
    assert_eq!(s["pid"], w.pid().to_string(), "{s}");
    let rounds = s["rounds"].as_array().expect("rounds");
    assert_eq!(rounds.len(), 1, "{s}");
    assert_eq!(rounds[0]["outcome"], "ok", "{s}");
    assert_eq!(rounds[0]["steps"].as_array().map(Vec::len), Some(2), "{s}");
    env.ctx(&["autopilot", "--status"])
        .assert()
        .success()
        .stdout(predicate::str::contains("running for"))
        .stdout(predicate::str::contains(format!("(pid {})", w.pid())));

    w.signal("TERM");
    assert!(w.exited_within(Duration::from_secs(20)).success());
    let log = log(&env);
    assert_eq!(
        log.last().map(|r| r["event"].clone()),
        Some("stop".into()),
        "{}",
        dump(&log)
    );
    let s = env.json(&["autopilot", "--status"]);
    assert_eq!(s["running"], false, "{s}");
    assert!(s["stopped"].is_object(), "{s}");
}

/// SIGINT during a long child step ends the step early, logs it and the stop.
#[test]
fn sigint_ends_a_long_step_and_releases_the_lock() {
    let env = demo(
        "autopilot:\n  debounce_ms: 200\n  steps:\n    - command: sleep 30\n      timeout_ms: 60000\n",
    );
    let mut w = Watcher::started(&env, &[]);
    append(&env.path().join("docs/faq.md"), "\nA long note.\n");
    w.wait_log(&env, "the round", |log| count(log, "round_start") == 1);
    w.signal("INT");
    let status = w.exited_within(Duration::from_secs(15));
    assert!(status.success(), "{status}");
    let log = log(&env);
    let step = log.iter().find(|r| r["event"] == "step").expect("step");
    assert_eq!(step["outcome"], "aborted", "{}", dump(&log));
    assert_eq!(log.last().map(|r| r["event"].clone()), Some("stop".into()));
    let status = env.json(&["autopilot", "--status"]);
    assert_eq!(status["running"], false, "the lock is free: {status}");
}

/// `--poll` sees changes without OS events (the fallback of a full watch table).
#[test]
fn polling_sees_changes() {
    let env = demo(FAST);
    let mut w = Watcher::started(&env, &["--poll"]);
    let start = log(&env);
    assert!(
        start
            .iter()
            .any(|r| r["event"] == "start"
                && r["message"].as_str().unwrap_or("").contains("with poll")),
        "{}",
        dump(&start)
    );
    env.write("docs/polled.md", "# Polled\n\nThe tapirpoll note.\n");
    w.wait_search(&env, "tapirpoll", |d| d == ["docs/polled.md"]);
}

/// `--once` runs a round at once when the pack is missing, and otherwise waits for
/// the next change; both exit 0 after one round.
#[test]
fn once_runs_now_when_stale_else_after_the_next_change() {
    let env = Env::fixture("demo");
    env.write("session.md", format!("---\n{FAST}---\n# Notes\n"));
    env.ctx(&["autopilot", "--once"])
        .timeout(Duration::from_secs(60))
        .assert()
        .success();
    assert!(!docs_for(&env, "stale locks").is_empty(), "built");

    let mut w = Watcher::started(&env, &["--once"]);
    assert_eq!(
        count(&log(&env), "round_start"),
        1,
        "no round yet for a fresh pack"
    );
    env.write("docs/once.md", "# Once\n\nThe ibexonce note.\n");
    assert!(w.exited_within(DEADLINE).success(), "{}", w.output());
    assert_eq!(docs_for(&env, "ibexonce"), ["docs/once.md"]);
}

/// When the OS watch limit is hit, the watcher warns, falls back to polling and
/// still sees changes. The limit is lowered inside a user namespace, which has
/// limits of its own, so the rest of the machine is not affected.
#[test]
fn the_watch_limit_falls_back_to_polling() {
    const LOWER: &str = "echo 2 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\"";
    let probe = Command::new("unshare")
        .args(["-Ur", "sh", "-c", LOWER, "true"])
        .stderr(Stdio::null())
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("note: skipped, user namespaces are not available (`unshare -Ur` failed)");
        return;
    }
    let env = demo(FAST);
    let mut w = Watcher::started_in(&env, &[], &["unshare", "-Ur", "sh", "-c", LOWER]);
    let log = log(&env);
    let warning = log
        .iter()
        .find(|r| r["event"] == "warning")
        .expect("a warning");
    let message = warning["message"].as_str().unwrap_or("");
    assert!(
        message.contains("limit on file watches") && message.contains("polling"),
        "{warning}"
    );
    env.write("docs/limited.md", "# Limited\n\nThe gerenuklimit note.\n");
    w.wait_search(&env, "gerenuklimit", |d| d == ["docs/limited.md"]);
}
