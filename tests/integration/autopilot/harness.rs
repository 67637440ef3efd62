//! Shared setup for the autopilot tests: a watcher process reaped on drop,
//! its log, and a built demo with `session.md` front matter.

use std::fs::File;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::super::util::Env;

/// Generous: the tests share two cores with the rest of the suite.
pub(super) const DEADLINE: Duration = Duration::from_secs(60);

/// Front matter with a short debounce and the in-process default steps.
pub(super) const FAST: &str = "autopilot:\n  debounce_ms: 200\n";

/// A running `ctx autopilot`; killed and reaped on drop, whatever the test did.
pub(super) struct Watcher {
    pub(super) child: Child,
    out: tempfile::TempDir,
}

impl Watcher {
    /// Spawns `wrapper… ctx -s <segment> autopilot args…`; the wrapper must exec.
    pub(super) fn spawn_in(env: &Env, args: &[&str], wrapper: &[&str]) -> Watcher {
        let out = tempfile::tempdir().expect("tempdir");
        let stdout = File::create(out.path().join("stdout")).expect("stdout file");
        let stderr = File::create(out.path().join("stderr")).expect("stderr file");
        #[allow(deprecated)]
        let bin = assert_cmd::cargo::cargo_bin("ctx");
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        let child = command
            .arg("-s")
            .arg(env.path())
            .arg("autopilot")
            .args(args)
            .env_remove("CTX_ROOT")
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .expect("spawn ctx autopilot");
        Watcher { child, out }
    }

    /// Spawns and waits until the watcher has logged its `start`.
    pub(super) fn started(env: &Env, args: &[&str]) -> Watcher {
        Watcher::started_in(env, args, &[])
    }

    pub(super) fn started_in(env: &Env, args: &[&str], wrapper: &[&str]) -> Watcher {
        let mut w = Watcher::spawn_in(env, args, wrapper);
        let pid = w.pid();
        w.wait_log(env, "its start", |log| {
            log.iter().any(|r| r["event"] == "start" && r["pid"] == pid)
        });
        w
    }

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(super) fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.pid().to_string())
            .status()
            .expect("kill");
        assert!(status.success());
    }

    pub(super) fn exited_within(&mut self, limit: Duration) -> ExitStatus {
        let until = Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                Instant::now() < until,
                "watcher still running after {limit:?}\n{}",
                self.output()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub(super) fn output(&self) -> String {
        let read = |n: &str| std::fs::read_to_string(self.out.path().join(n)).unwrap_or_default();
        format!("stdout:\n{}\nstderr:\n{}", read("stdout"), read("stderr"))
    }

    /// Polls the log until `cond` holds; on timeout fails with the log and output.
    pub(super) fn wait_log(
        &mut self,
        env: &Env,
        what: &str,
        mut cond: impl FnMut(&[Value]) -> bool,
    ) {
        let until = Instant::now() + DEADLINE;
        loop {
            let log = log(env);
            if cond(&log) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "watcher exited ({status}) before {what}\n{}\nlog:\n{}",
                    self.output(),
                    dump(&log)
                );
            }
            assert!(
                Instant::now() < until,
                "timed out waiting for {what}\n{}\nlog:\n{}",
                self.output(),
                dump(&log)
            );
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Polls `ctx search` until `cond` holds on the documents it finds for `word`.
    pub(super) fn wait_search(
        &mut self,
        env: &Env,
        word: &str,
        mut cond: impl FnMut(&[String]) -> bool,
    ) {
        let mut last = Vec::new();
        let until = Instant::now() + DEADLINE;
        while Instant::now() < until {
            last = docs_for(env, word);
            if cond(&last) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("watcher exited ({status})\n{}", self.output());
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!(
            "search for `{word}` never matched; last docs {last:?}\n{}\nlog:\n{}",
            self.output(),
            dump(&log(env))
        );
    }
}

impl Drop for Watcher {
    /// SIGTERM first, so the watcher ends its child steps (they run in process
    /// groups of their own, which a SIGKILL of the watcher would leave behind);
    /// SIGKILL if it is not gone within 10 s.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = Command::new("kill")
                .arg("-TERM")
                .arg(self.pid().to_string())
                .status();
            let until = Instant::now() + Duration::from_secs(10);
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn log(env: &Env) -> Vec<Value> {
    std::fs::read_to_string(env.path().join("_ctx/autopilot.log"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

pub(super) fn dump(log: &[Value]) -> String {
    log.iter().map(|r| format!("{r}\n")).collect()
}

pub(super) fn count(log: &[Value], event: &str) -> usize {
    log.iter().filter(|r| r["event"] == event).count()
}

/// Documents `ctx search <word> --no-build` finds (it never builds itself).
pub(super) fn docs_for(env: &Env, word: &str) -> Vec<String> {
    let out = env
        .ctx(&["search", word, "--no-build", "--json", "-k", "20"])
        .output()
        .expect("run ctx search");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    v["hits"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .filter_map(|h| h["doc"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The demo with `session.md` front matter `yaml` (an `autopilot:` table), built.
pub(super) fn demo(yaml: &str) -> Env {
    let env = Env::fixture("demo");
    env.write(
        "session.md",
        format!("---\n{yaml}---\n\n# Session notes\n\nNothing yet.\n"),
    );
    env.ctx(&["build"]).assert().success();
    env
}

pub(super) fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append");
    f.write_all(text.as_bytes()).expect("append");
}
