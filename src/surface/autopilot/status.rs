//! `ctx autopilot --status`: whether a watcher holds the segment's lock, and its
//! last rounds from the log.

use std::path::PathBuf;

use serde::Serialize;

use super::log::{self, Event, Outcome, Record};
use crate::error::Result;
use crate::pack::lock::FileLock;
use crate::segment::Segment;

/// How many rounds `--status` shows.
const LAST_ROUNDS: usize = 5;

/// What `--status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    /// The segment's name.
    pub segment: String,
    /// The segment's root.
    pub root: PathBuf,
    /// A watcher holds `_ctx/.autopilot.lock` now.
    pub running: bool,
    /// The holder's pid, as it wrote it, when running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<String>,
    /// The log file.
    pub log: PathBuf,
    /// The last `start` record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<Record>,
    /// The last `stop` record, when it is later than the last start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Record>,
    /// The last rounds, oldest first.
    pub rounds: Vec<RoundSummary>,
    /// The last `error` or `warning` record.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_problem: Option<Record>,
}

/// One round as the log tells it.
#[derive(Debug, Clone, Serialize)]
pub struct RoundSummary {
    /// Round number within its watcher process.
    pub round: u64,
    /// When it started.
    pub started: String,
    /// Changed paths it took in.
    pub changed: Option<usize>,
    /// Wall time; `None` while it runs (or if the watcher died in it).
    pub duration_ms: Option<u64>,
    /// How it ended; `None` while it runs.
    pub outcome: Option<Outcome>,
    /// Its steps so far.
    pub steps: Vec<StepSummary>,
}

/// One step of a round.
#[derive(Debug, Clone, Serialize)]
pub struct StepSummary {
    /// The step's command or built-in name.
    pub step: String,
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Wall time.
    pub duration_ms: Option<u64>,
    /// What went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Reads the lock and the log of `seg`. The lock is taken only for an instant
/// when free (and released at once), never waited for.
pub fn status(seg: &Segment) -> Result<Status> {
    let lock_path = seg.autopilot_lock();
    let (running, pid) = if seg.ctx_dir().is_dir() {
        match FileLock::try_acquire(&lock_path)? {
            Ok(lock) => {
                drop(lock);
                (false, None)
            }
            Err(holder) => (true, Some(holder)),
        }
    } else {
        (false, None)
    };
    let records = log::read(&seg.autopilot_log())?;
    let mut status = Status {
        segment: seg.name.clone(),
        root: seg.root.clone(),
        running,
        pid,
        log: seg.autopilot_log(),
        started: None,
        stopped: None,
        rounds: Vec::new(),
        last_problem: None,
    };
    summarize(&records, &mut status);
    Ok(status)
}

fn summarize(records: &[Record], status: &mut Status) {
    let mut rounds: Vec<RoundSummary> = Vec::new();
    for r in records {
        match r.event {
            Event::Start => {
                status.started = Some(r.clone());
                status.stopped = None;
            }
            Event::Stop => status.stopped = Some(r.clone()),
            Event::Error | Event::Warning => status.last_problem = Some(r.clone()),
            Event::RoundStart => rounds.push(RoundSummary {
                round: r.round.unwrap_or(0),
                started: r.time.clone(),
                changed: r.changed,
                duration_ms: None,
                outcome: None,
                steps: Vec::new(),
            }),
            Event::Step => {
                if let Some(last) = rounds.last_mut().filter(|l| Some(l.round) == r.round) {
                    last.steps.push(StepSummary {
                        step: r.step.clone().unwrap_or_default(),
                        outcome: r.outcome,
                        duration_ms: r.duration_ms,
                        error: r.error.clone(),
                    });
                }
            }
            Event::RoundEnd => {
                if let Some(last) = rounds.last_mut().filter(|l| Some(l.round) == r.round) {
                    last.duration_ms = r.duration_ms;
                    last.outcome = r.outcome;
                }
            }
            Event::Change => {}
        }
        if rounds.len() > 4 * LAST_ROUNDS {
            rounds.drain(..rounds.len() - LAST_ROUNDS);
        }
    }
    let skip = rounds.len().saturating_sub(LAST_ROUNDS);
    status.rounds = rounds.split_off(skip);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_steps_into_rounds() {
        let rec = |event, round: Option<u64>| {
            let mut r = Record::new(event);
            r.round = round;
            r
        };
        let mut records = vec![rec(Event::Start, None)];
        for n in 1..=7 {
            records.push(rec(Event::RoundStart, Some(n)));
            let mut step = rec(Event::Step, Some(n));
            step.step = Some("build".into());
            step.outcome = Some(Outcome::Ok);
            records.push(step);
            let mut end = rec(Event::RoundEnd, Some(n));
            end.outcome = Some(Outcome::Ok);
            records.push(end);
        }
        records.push(rec(Event::RoundStart, Some(8)));
        let mut status = Status {
            segment: "s".into(),
            root: PathBuf::new(),
            running: false,
            pid: None,
            log: PathBuf::new(),
            started: None,
            stopped: None,
            rounds: Vec::new(),
            last_problem: None,
        };
        summarize(&records, &mut status);
        let numbers: Vec<u64> = status.rounds.iter().map(|r| r.round).collect();
        assert_eq!(numbers, vec![4, 5, 6, 7, 8]);
        assert_eq!(status.rounds[0].steps.len(), 1);
        assert_eq!(status.rounds[4].outcome, None, "still running");
        assert!(status.started.is_some());
    }
}
