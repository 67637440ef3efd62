//! `_ctx/autopilot.log`: one JSON object per line, one line per watcher event or
//! step, appended by the one watcher that holds `_ctx/.autopilot.lock`.
//!
//! Fields: `time` (RFC 3339), `event` (`start`, `change`, `round_start`, `step`,
//! `round_end`, `stop`, `error`, `warning`), and when they apply `pid`, `round`,
//! `changed` (count of changed paths), `step`, `duration_ms`, `outcome` (`ok`,
//! `failed`, `timeout`, `aborted`), `error`, `message`.
//!
//! When an append would take the log past [`ROTATE_BYTES`], the log is renamed to
//! `autopilot.log.1` (replacing the previous one) and a new log is started, so the
//! two files together never hold much more than twice that. `--status` reads both.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::pack;

/// Size past which the log is rotated to `autopilot.log.1`.
pub const ROTATE_BYTES: u64 = 1024 * 1024;

/// What a log line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// The watcher took the lock and watches the segment.
    Start,
    /// A batch of changes that starts a round.
    Change,
    /// A round begins.
    RoundStart,
    /// One step of a round finished.
    Step,
    /// A round finished.
    RoundEnd,
    /// The watcher stopped and released the lock.
    Stop,
    /// Something failed outside a step (watcher errors, configuration reloads).
    Error,
    /// Something the user may want to act on; the watcher goes on.
    Warning,
}

/// How a step or a round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Exit status 0 (or, in process, no error).
    Ok,
    /// A non-zero exit status, a failed build or validation problems.
    Failed,
    /// The step ran past its `timeout_ms` and was killed.
    Timeout,
    /// The watcher was asked to stop (SIGINT/SIGTERM) and ended the step early.
    Aborted,
}

impl Outcome {
    /// `ok`, `failed`, `timeout` or `aborted`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Failed => "failed",
            Outcome::Timeout => "timeout",
            Outcome::Aborted => "aborted",
        }
    }
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// When it happened, RFC 3339 UTC.
    pub time: String,
    /// What happened.
    pub event: Event,
    /// The watcher's process id (on `start` and `stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Round number, counted from 1 by each watcher process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<u64>,
    /// How many changed paths the round takes in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<usize>,
    /// The step: its command, or `build`/`validate` for the in-process default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Wall time of the step or round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// How the step or round ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// What went wrong, with the tail of a failed child's output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Details for people (watcher kind, why a round started, why it stopped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Record {
    /// A record of `event` stamped now.
    pub fn new(event: Event) -> Record {
        let ns = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        Record {
            time: pack::rfc3339(ns),
            event,
            pid: None,
            round: None,
            changed: None,
            step: None,
            duration_ms: None,
            outcome: None,
            error: None,
            message: None,
        }
    }

    /// With a message.
    pub fn message(mut self, message: impl Into<String>) -> Record {
        self.message = Some(message.into());
        self
    }

    /// With an error.
    pub fn error(mut self, error: impl Into<String>) -> Record {
        self.error = Some(error.into());
        self
    }
}

/// Appends records to the log, rotating it at [`ROTATE_BYTES`].
pub struct Log {
    path: PathBuf,
    file: File,
    size: u64,
}

impl Log {
    /// Opens (creating) the log at `path` for appending.
    pub fn open(path: &Path) -> Result<Log> {
        let file = Self::open_file(path)?;
        let size = file
            .metadata()
            .map_err(|e| Error::io("cannot stat", path, e))?
            .len();
        Ok(Log {
            path: path.to_path_buf(),
            file,
            size,
        })
    }

    fn open_file(path: &Path) -> Result<File> {
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| Error::io("cannot open", path, e))
    }

    /// Appends one record as one line (a single `write` call, so a reader never
    /// sees half a line unless the disk is full).
    pub fn append(&mut self, record: &Record) -> Result<()> {
        let mut line = serde_json::to_string(record)
            .map_err(|e| Error::Invalid(format!("cannot encode an autopilot log line: {e}")))?;
        line.push('\n');
        let len = line.len() as u64;
        if self.size > 0 && self.size + len > ROTATE_BYTES {
            self.rotate()?;
        }
        self.file
            .write_all(line.as_bytes())
            .map_err(|e| Error::io("cannot write", &self.path, e))?;
        self.size += len;
        Ok(())
    }

    fn rotate(&mut self) -> Result<()> {
        let old = rotated(&self.path);
        std::fs::rename(&self.path, &old).map_err(|e| Error::io("cannot rotate", &self.path, e))?;
        self.file = Self::open_file(&self.path)?;
        self.size = 0;
        Ok(())
    }
}

/// `autopilot.log.1` beside `path`.
pub fn rotated(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".1");
    path.with_file_name(name)
}

/// The records of the rotated log, then of the current one, oldest first. Lines
/// that are not records (a torn last line after a full disk) are skipped.
pub fn read(path: &Path) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    for p in [rotated(path), path.to_path_buf()] {
        let text = match std::fs::read_to_string(&p) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("cannot read", &p, e)),
        };
        records.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Record>(l).ok()),
        );
    }
    Ok(records)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_rotates_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("autopilot.log");
        let mut log = Log::open(&path).unwrap();
        let big = "x".repeat(1000);
        let n = (ROTATE_BYTES / 1000) as usize + 10;
        for i in 0..n {
            let mut r = Record::new(Event::Warning).message(&big);
            r.round = Some(i as u64);
            log.append(&r).unwrap();
        }
        let current = std::fs::metadata(&path).unwrap().len();
        assert!(current <= ROTATE_BYTES, "{current}");
        assert!(rotated(&path).exists());
        let back = read(&path).unwrap();
        assert_eq!(back.last().unwrap().round, Some(n as u64 - 1));
        let rounds: Vec<_> = back.iter().filter_map(|r| r.round).collect();
        assert!(rounds.windows(2).all(|w| w[0] + 1 == w[1]), "in order");
    }

    #[test]
    fn line_shape() {
        let mut r = Record::new(Event::Step);
        r.step = Some("ctx build".into());
        r.outcome = Some(Outcome::Timeout);
        r.duration_ms = Some(300);
        let line = serde_json::to_string(&r).unwrap();
        assert!(line.contains(r#""event":"step""#), "{line}");
        assert!(line.contains(r#""outcome":"timeout""#), "{line}");
        assert!(!line.contains("null"), "{line}");
    }
}
