//! The steps of a round: the in-process default (incremental build, then
//! validate) and configured commands run as child processes with a time limit.
//!
//! A configured step runs as `sh -c <command>` in the segment root, in a process
//! group of its own, so that a timeout or a stop can end the whole tree it started
//! (`sh -c 'sleep 30'` may fork) and so that a terminal's Ctrl-C reaches only the
//! watcher, which then decides. Inside the command `ctx` is a shell function that
//! runs this same binary with `-s <segment>` added, so `ctx build && ctx validate`
//! works and never picks up another `ctx` on `PATH`.
//!
//! A watcher killed with SIGKILL cannot signal that group, and a parent-death
//! signal would need `pre_exec` (`unsafe`, which the crate forbids). So the
//! shell starts a guard first: a background `read` on a pipe whose write end
//! only the watcher holds. The kernel closes it when the watcher dies, the read
//! ends, and the guard kills its own process group, the step with it. When the
//! command ends first, the shell stops the guard.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};

use super::log::Outcome;
use crate::config::{Settings, Step};
use crate::error::Error;
use crate::pack;
use crate::pipeline::{self, BuildOptions};
use crate::segment::Segment;

/// How one step ended.
#[derive(Debug, Clone)]
pub(super) struct StepResult {
    /// The step's name in the log.
    pub(super) name: String,
    /// How it ended.
    pub(super) outcome: Outcome,
    /// Wall time.
    pub(super) duration: Duration,
    /// What went wrong.
    pub(super) error: Option<String>,
}

/// The default round's steps, run in process.
#[derive(Debug, Clone, Copy)]
pub(super) enum Builtin {
    /// `pipeline::build`, incremental.
    Build,
    /// `pack::validate::validate` against the files on disk.
    Validate,
}

impl Builtin {
    fn name(self) -> &'static str {
        match self {
            Builtin::Build => "build",
            Builtin::Validate => "validate",
        }
    }
}

/// Runs a default step in process. It cannot be interrupted; a build killed with
/// the process is safe anyway (the pack is old or new, see `pipeline`).
pub(super) fn run_builtin(seg: &Segment, step: Builtin) -> StepResult {
    let started = Instant::now();
    let result = match step {
        Builtin::Build => build(seg),
        Builtin::Validate => validate(seg),
    };
    let (outcome, error) = match result {
        Ok(()) => (Outcome::Ok, None),
        Err(e) => (Outcome::Failed, Some(e)),
    };
    StepResult {
        name: step.name().to_string(),
        outcome,
        duration: started.elapsed(),
        error,
    }
}

fn build(seg: &Segment) -> Result<(), String> {
    let settings = Settings::load(&seg.config_path()).map_err(|e| e.to_string())?;
    pipeline::build(seg, &settings, &BuildOptions::default())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// What `ctx validate` checks: the pack's invariants and that it matches the
/// files a build would index now.
fn validate(seg: &Segment) -> Result<(), String> {
    let settings = Settings::load(&seg.config_path()).map_err(|e| e.to_string())?;
    let pack = match pack::load(&seg.pack_path()) {
        Ok(p) => p,
        Err(e @ Error::NoPack { .. }) => return Err(e.to_string()),
        Err(e) => return Err(format!("schema: {e}")),
    };
    let disk = crate::pipeline::disk_view(seg, &settings).map_err(|e| e.to_string())?;
    let problems = pack::validate::validate(&pack, Some(&disk));
    match problems.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "{} problem(s); first: [{}] {}",
            problems.len(),
            first.check,
            first.message
        )),
    }
}

/// The shell prelude that makes `ctx` in a step mean this binary on this segment.
const CTX_FUNCTION: &str = r#"ctx() { "$CTX_AUTOPILOT_EXE" -s "$CTX_AUTOPILOT_SEGMENT" "$@"; }"#;

/// The script around a step's command (`{command}`): the guard reads the
/// watcher's pipe from fd 3, since a background job's fd 0 is `/dev/null`.
const SCRIPT: &str = r#"exec 3<&0 </dev/null
(read -r _ <&3 || kill -KILL 0) >/dev/null 2>&1 &
ctx_guard=$!
exec 3<&-
({command}
)
ctx_status=$?
kill "$ctx_guard" 2>/dev/null
exit "$ctx_status"
"#;

/// How often a running child is checked for exit, timeout and stop. Short, because
/// it adds to the latency of every step.
const POLL: Duration = Duration::from_millis(5);

/// How long a child has after SIGTERM (on stop) before SIGKILL.
const GRACE: Duration = Duration::from_secs(3);

/// Bytes of a child's output kept for the log.
const TAIL_BYTES: usize = 4096;

/// Runs a configured step as a child process, killing it past its timeout, or
/// ending it (SIGTERM, then SIGKILL) when `stop` is set.
pub(super) fn run_command(seg: &Segment, exe: &Path, step: &Step, stop: &AtomicBool) -> StepResult {
    let started = Instant::now();
    let done = |outcome, error: Option<String>| StepResult {
        name: step.command.clone(),
        outcome,
        duration: started.elapsed(),
        error,
    };
    // `_guard` is the write end of the guard's pipe: held until the child is
    // done, and closed by the kernel if this process dies first.
    let (mut child, output, _guard) = match spawn(seg, exe, &step.command) {
        Ok(x) => x,
        Err(e) => return done(Outcome::Failed, Some(format!("cannot start `sh`: {e}"))),
    };
    let deadline = started + step.timeout;
    let (outcome, status) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (None, Some(status)),
            Ok(None) => {}
            Err(e) => {
                kill_group(&child, Signal::KILL);
                let _ = child.wait();
                return done(
                    Outcome::Failed,
                    Some(format!("cannot wait for the step: {e}")),
                );
            }
        }
        if stop.load(Ordering::SeqCst) {
            break (Some(Outcome::Aborted), terminate(&mut child));
        }
        if Instant::now() >= deadline {
            kill_group(&child, Signal::KILL);
            break (Some(Outcome::Timeout), child.wait().ok());
        }
        std::thread::sleep(POLL);
    };
    // A grandchild that left the group may hold the pipe open; do not wait for it.
    let tail = output
        .recv_timeout(Duration::from_millis(500))
        .unwrap_or_default();
    let with_tail = |what: String| {
        if tail.is_empty() {
            what
        } else {
            format!("{what}; output: {tail}")
        }
    };
    match (outcome, status) {
        (Some(Outcome::Timeout), _) => done(
            Outcome::Timeout,
            Some(with_tail(format!(
                "killed after its timeout of {} ms",
                step.timeout.as_millis()
            ))),
        ),
        (Some(Outcome::Aborted), _) => done(
            Outcome::Aborted,
            Some("ended early: the watcher was asked to stop".into()),
        ),
        (_, Some(status)) if status.success() => done(Outcome::Ok, None),
        (_, Some(status)) => done(Outcome::Failed, Some(with_tail(describe(status)))),
        (_, None) => done(
            Outcome::Failed,
            Some(with_tail("exit status unknown".into())),
        ),
    }
}

/// Starts `sh -c`, with stdout and stderr into one pipe whose tail a thread
/// keeps, and the write end of the guard's pipe (see the module docs).
fn spawn(
    seg: &Segment,
    exe: &Path,
    command: &str,
) -> std::io::Result<(Child, mpsc::Receiver<String>, std::io::PipeWriter)> {
    use std::os::unix::process::CommandExt;
    let (mut reader, writer) = std::io::pipe()?;
    let (guard, guard_writer) = std::io::pipe()?;
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "{CTX_FUNCTION}\n{}",
            SCRIPT.replace("{command}", command)
        ))
        .current_dir(&seg.root)
        .env("CTX_AUTOPILOT_EXE", exe)
        .env("CTX_AUTOPILOT_SEGMENT", &seg.root)
        // `-s <path>` must be read as a path, not a name under $CTX_ROOT.
        .env_remove("CTX_ROOT")
        .env("NO_COLOR", "1")
        .stdin(guard)
        .stdout(writer.try_clone()?)
        .stderr(writer)
        .process_group(0);
    let child = cmd.spawn()?;
    // The command holds our copies of the pipe's write end; without dropping it the
    // reader would never see the end of the output.
    drop(cmd);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tail: Vec<u8> = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    tail.extend_from_slice(&buf[..n]);
                    if tail.len() > 2 * TAIL_BYTES {
                        tail.drain(..tail.len() - TAIL_BYTES);
                    }
                }
            }
        }
        let _ = tx.send(summarize(&tail));
    });
    Ok((child, rx, guard_writer))
}

/// The last few non-empty lines of a child's output, on one line.
fn summarize(tail: &[u8]) -> String {
    let text = String::from_utf8_lossy(tail);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let last = &lines[lines.len().saturating_sub(3)..];
    let joined = last.join(" | ");
    let chars: Vec<char> = joined.chars().collect();
    if chars.len() > 500 {
        let cut: String = chars[chars.len() - 500..].iter().collect();
        format!("…{cut}")
    } else {
        joined
    }
}

fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        _ => "exit status unknown".into(),
    }
}

/// Signals the child's whole process group; a group already gone is fine.
fn kill_group(child: &Child, signal: Signal) {
    let _ = kill_process_group(Pid::from_child(child), signal);
}

/// SIGTERM to the group, SIGKILL after [`GRACE`]; the child's exit status.
fn terminate(child: &mut Child) -> Option<ExitStatus> {
    kill_group(child, Signal::TERM);
    let until = Instant::now() + GRACE;
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(POLL);
    }
    kill_group(child, Signal::KILL);
    child.wait().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_keeps_the_last_lines() {
        assert_eq!(summarize(b"a\n\nb\nc\nd\n"), "b | c | d");
        assert_eq!(summarize(b""), "");
        let long = "x".repeat(2000);
        assert_eq!(summarize(long.as_bytes()).chars().count(), 501);
    }
}
