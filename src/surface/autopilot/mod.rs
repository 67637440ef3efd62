//! `ctx autopilot`: a watcher that keeps a segment's pack fresh.
//!
//! One watcher per segment holds `_ctx/.autopilot.lock` for its whole life (see
//! `pack::lock`); a second one refuses naming the first's pid. The watcher sees
//! changes through `notify` (inotify on Linux; polling with `--poll`, or as a
//! fallback with a warning when the OS watch limit is hit), debounced by
//! `notify-debouncer-full`, and filtered (see `watch`) so its own writes under
//! `_ctx/` never start a round.
//!
//! A *round* runs the steps of `session.md` in order (see `steps`), or without
//! configuration an in-process incremental build and then validate (these have no
//! timeout: a build cannot be stopped half-way, and need not be). A failing step
//! is logged and the rest of the round still runs; the watcher goes on. A
//! validate that runs while the next edit lands can fail for a moment (the pack
//! lags the disk); the round that edit starts sets it right.
//! Changes that arrive during a round are gathered into exactly one more round. A
//! *turn* is a run of rounds back to back; after `max_rounds_per_turn` of them the
//! watcher waits one debounce interval before the next, so a step that keeps
//! changing the tree cannot keep it busy forever. At start-up a pack that is
//! missing or older than the files on disk gets a round at once.
//!
//! SIGINT, SIGTERM and SIGHUP stop the watcher: a child step gets SIGTERM (then
//! SIGKILL after a grace period), an in-process build finishes, `stop` is logged
//! and the lock is released. A watcher killed outright still takes a running
//! child step down with it (see `steps.rs`). Everything is logged to `_ctx/autopilot.log` (see
//! [`log`]), which `--status` reads.
//!
//! Limits: `notify` watches every directory under the root, gitignored ones too
//! (the filter drops their events), so a huge ignored tree counts against the
//! inotify limit; the polling fallback then rescans it as well.
//!
//! This module never prints: it hands each log record to the caller.

pub mod log;
mod status;
mod steps;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

pub use self::log::{Event, Outcome, Record};
pub use self::status::{RoundSummary, Status, StepSummary, status};
use self::steps::Builtin;
pub use self::watch::Backend;
use self::watch::{Filter, Msg, Pending, Watch};
use crate::catalog::Catalog;
use crate::config::{Autopilot, Settings};
use crate::error::{Error, Result};
use crate::pack::lock::FileLock;
use crate::pack::store;
use crate::segment::Segment;
use crate::sources;

/// How to run the watcher.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Run one round, then return: at once when the pack is missing or stale,
    /// else after the next batch of changes.
    pub once: bool,
    /// Rescan the tree instead of using OS events (network file systems).
    pub poll: bool,
}

/// Why [`run`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// A signal stopped the watcher.
    Stopped,
    /// `--once` ran its round; `ok` is false when a step did not succeed.
    Once {
        /// Every step succeeded.
        ok: bool,
    },
    /// `session.md` was changed to `enabled: false` while the watcher ran.
    Disabled,
}

/// Watches `seg` until a signal (or, with `once`, one round), calling `report`
/// with every record it logs. `config` is the front matter read by the caller
/// (which handles `enabled: false`); `None` means the in-process default.
pub fn run(
    seg: &Segment,
    config: Option<Autopilot>,
    options: &RunOptions,
    report: &mut dyn FnMut(&Record),
) -> Result<Finish> {
    store::ensure_dir(&seg.ctx_dir())?;
    let lock_path = seg.autopilot_lock();
    let _lock = match FileLock::try_acquire(&lock_path)? {
        Ok(lock) => lock,
        Err(holder) => {
            return Err(Error::LockHeld {
                path: lock_path,
                message: format!(
                    "another `ctx autopilot` already watches this segment; stop it first \
                     (`kill {holder}`), or see what it does with `ctx autopilot --status`"
                ),
                holder,
            });
        }
    };
    let log = log::Log::open(&seg.autopilot_log())?;
    let exe = std::env::current_exe().map_err(|e| Error::io("cannot locate", "ctx binary", e))?;
    let (tx, rx) = mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let mut signals = Signals::new([SIGINT, SIGTERM, SIGHUP])
        .map_err(|e| Error::io("cannot install signal handlers for", &seg.root, e))?;
    let signal_handle = signals.handle();
    {
        let (tx, stop) = (tx.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            for signal in signals.forever() {
                stop.store(true, Ordering::SeqCst);
                let _ = tx.send(Msg::Signal(signal));
            }
        });
    }
    let config = config.unwrap_or_default();
    let mut runner = Runner {
        seg,
        filter: Filter::new(&seg.root),
        watch: None,
        config,
        options: options.clone(),
        log,
        log_failed: false,
        report,
        round: 0,
        stop,
        signal: None,
        exe,
        tx,
        rx,
    };
    let result = runner.main();
    signal_handle.close();
    result
}

struct Runner<'a> {
    seg: &'a Segment,
    config: Autopilot,
    options: RunOptions,
    filter: Filter,
    watch: Option<Watch>,
    log: log::Log,
    log_failed: bool,
    report: &'a mut dyn FnMut(&Record),
    round: u64,
    stop: Arc<AtomicBool>,
    /// The signal that set `stop`, for the `stop` record.
    signal: Option<&'static str>,
    exe: PathBuf,
    tx: Sender<Msg>,
    rx: Receiver<Msg>,
}

impl Runner<'_> {
    fn main(&mut self) -> Result<Finish> {
        let mut pending = Pending::default();
        let start = self.start_watch()?;
        // Staleness is checked after the watch is in place, so that a change made
        // in between is seen by one or the other; `start` is logged after it, so
        // an edit made once it is logged reaches the watcher as an event alone.
        if let Some(reason) = stale(self.seg) {
            pending.reason = Some(reason);
        }
        self.emit(start);
        let finish = self.turns(&mut pending);
        // The signal's name may still be queued behind the stop flag.
        self.drain(&mut pending);
        let mut stop = Record::new(Event::Stop);
        stop.pid = Some(std::process::id());
        let why = match finish {
            Finish::Stopped => format!("stopped by {}", self.signal.unwrap_or("a signal")),
            Finish::Once { .. } => "--once: one round done".into(),
            Finish::Disabled => "disabled in session.md".into(),
        };
        self.emit(stop.message(why));
        self.watch = None;
        Ok(finish)
    }

    /// Starts watching and returns the `start` record to log.
    fn start_watch(&mut self) -> Result<Record> {
        let root = &self.seg.root;
        let debounce = self.config.debounce;
        let watch = if self.options.poll {
            Watch::poll(root, debounce, self.tx.clone())
        } else {
            match Watch::events(root, debounce, self.tx.clone()) {
                Err(e) if watch::is_watch_limit(&e) => {
                    self.warn_limit(&e);
                    Watch::poll(root, debounce, self.tx.clone())
                }
                other => other,
            }
        }
        .map_err(|e| {
            Error::Invalid(format!(
                "cannot watch `{}`: {}",
                root.display(),
                watch::describe(&e)
            ))
        })?;
        let backend = watch.backend();
        self.watch = Some(watch);
        let mut start = Record::new(Event::Start);
        start.pid = Some(std::process::id());
        let steps = if self.config.steps.is_empty() {
            "in-process build, validate".to_string()
        } else {
            self.config
                .steps
                .iter()
                .map(|s| s.command.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut message = format!(
            "watching {} with {}, debounce {} ms; steps: {steps}",
            root.display(),
            backend.as_str(),
            debounce.as_millis()
        );
        if backend == watch::Backend::Poll {
            message.push_str(&format!(
                "; rescans every {} ms",
                watch::poll_interval(debounce).as_millis()
            ));
        }
        Ok(start.message(message))
    }

    fn warn_limit(&mut self, error: &notify_debouncer_full::notify::Error) {
        self.emit(Record::new(Event::Warning).message(format!(
            "{}; falling back to polling every {} ms. Raise the limit (e.g. \
             `sysctl fs.inotify.max_user_watches=524288`) for instant events",
            watch::describe(error),
            watch::poll_interval(self.config.debounce).as_millis()
        )));
    }

    /// Runs turns until a signal, `--once`, or `enabled: false`.
    fn turns(&mut self, pending: &mut Pending) -> Finish {
        loop {
            if self.stopping() {
                return Finish::Stopped;
            }
            if pending.is_empty() {
                match self.rx.recv() {
                    Ok(msg) => self.absorb(msg, pending),
                    Err(_) => return Finish::Stopped,
                }
                self.drain(pending);
                continue;
            }
            let mut rounds = 0;
            while !pending.is_empty()
                && !self.stopping()
                && rounds < self.config.max_rounds_per_turn
            {
                let batch = std::mem::take(pending);
                if batch.ignore_rules {
                    self.filter = Filter::new(&self.seg.root);
                }
                if batch.session && !self.reload_config() {
                    return Finish::Disabled;
                }
                let outcome = self.round(&batch);
                rounds += 1;
                if self.options.once {
                    return Finish::Once {
                        ok: outcome == Outcome::Ok,
                    };
                }
                self.drain(pending);
            }
            if !pending.is_empty() && !self.stopping() {
                self.emit(Record::new(Event::Warning).message(format!(
                    "{rounds} rounds in a row (max_rounds_per_turn); waiting {} ms before the \
                     next round for {} more change(s)",
                    self.config.debounce.as_millis(),
                    pending.paths.len()
                )));
                self.settle(pending);
            }
        }
    }

    fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Takes in the messages already queued, without waiting.
    fn drain(&mut self, pending: &mut Pending) {
        loop {
            match self.rx.try_recv() {
                Ok(msg) => self.absorb(msg, pending),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return,
            }
        }
    }

    /// Takes in messages for one debounce interval.
    fn settle(&mut self, pending: &mut Pending) {
        let until = Instant::now() + self.config.debounce;
        while !self.stopping() {
            let left = until.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(msg) => self.absorb(msg, pending),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn absorb(&mut self, msg: Msg, pending: &mut Pending) {
        match msg {
            Msg::Fs(Ok(events)) => pending.absorb(&events, &self.filter),
            Msg::Fs(Err(errors)) => {
                for error in errors {
                    if watch::is_watch_limit(&error)
                        && self.watch.as_ref().map(Watch::backend) == Some(Backend::Events)
                    {
                        self.fall_back_to_polling(&error, pending);
                    } else if !watch::is_noise(&error, &self.filter) {
                        self.emit(
                            Record::new(Event::Error)
                                .error(format!("watcher: {}", watch::describe(&error))),
                        );
                    }
                }
            }
            Msg::Signal(signal) => {
                let name = match signal {
                    SIGINT => "SIGINT",
                    SIGTERM => "SIGTERM",
                    SIGHUP => "SIGHUP",
                    _ => "a signal",
                };
                self.emit(
                    Record::new(Event::Warning).message(format!("{name} received; stopping")),
                );
            }
        }
    }

    /// A new directory hit the watch limit: the OS watcher misses events under it
    /// from now on, so switch to polling and run a round for what may be missed.
    fn fall_back_to_polling(
        &mut self,
        error: &notify_debouncer_full::notify::Error,
        pending: &mut Pending,
    ) {
        self.warn_limit(error);
        self.watch = None;
        match Watch::poll(&self.seg.root, self.config.debounce, self.tx.clone()) {
            Ok(w) => self.watch = Some(w),
            Err(e) => {
                self.emit(Record::new(Event::Error).error(format!(
                    "cannot poll `{}`: {e}; no more changes will be seen",
                    self.seg.root.display()
                )));
            }
        }
        pending
            .reason
            .get_or_insert_with(|| "switched to polling; catching up".into());
    }

    /// Reloads `session.md` after it changed. An invalid file keeps the previous
    /// configuration (logged as an error); `false` when autopilot was disabled.
    fn reload_config(&mut self) -> bool {
        match Autopilot::load(&self.seg.session_md()) {
            Ok(Some(c)) if !c.enabled => {
                self.emit(
                    Record::new(Event::Warning)
                        .message("session.md now sets `autopilot.enabled: false`; stopping"),
                );
                false
            }
            Ok(config) => {
                let config = config.unwrap_or_default();
                if config != self.config {
                    if config.debounce != self.config.debounce {
                        self.emit(Record::new(Event::Warning).message(
                            "debounce_ms changed in session.md; it applies when the watcher restarts",
                        ));
                    }
                    self.config.steps = config.steps;
                    self.config.max_rounds_per_turn = config.max_rounds_per_turn;
                }
                true
            }
            Err(e) => {
                self.emit(
                    Record::new(Event::Error)
                        .error(format!("{e}; keeping the previous autopilot configuration")),
                );
                true
            }
        }
    }

    /// One round: `change`, `round_start`, a `step` per step, `round_end`.
    fn round(&mut self, batch: &Pending) -> Outcome {
        self.round += 1;
        let round = self.round;
        let changed = batch.paths.len();
        let mut change = Record::new(Event::Change);
        change.round = Some(round);
        change.changed = Some(changed);
        change.message = batch.reason.clone().filter(|r| !r.is_empty());
        self.emit(change);
        let mut start = Record::new(Event::RoundStart);
        start.round = Some(round);
        start.changed = Some(changed);
        self.emit(start);
        let started = Instant::now();
        let mut worst = Outcome::Ok;
        let steps = self.config.steps.clone();
        let count = if steps.is_empty() { 2 } else { steps.len() };
        for i in 0..count {
            if self.stopping() {
                worst = worst.max(Outcome::Aborted);
                break;
            }
            let result = match steps.get(i) {
                Some(step) => steps::run_command(self.seg, &self.exe, step, &self.stop),
                None if i == 0 => steps::run_builtin(self.seg, Builtin::Build),
                None => steps::run_builtin(self.seg, Builtin::Validate),
            };
            worst = worst.max(match result.outcome {
                Outcome::Timeout => Outcome::Failed,
                o => o,
            });
            let mut r = Record::new(Event::Step);
            r.round = Some(round);
            r.step = Some(result.name);
            r.duration_ms = Some(millis(result.duration));
            r.outcome = Some(result.outcome);
            r.error = result.error;
            self.emit(r);
        }
        let mut end = Record::new(Event::RoundEnd);
        end.round = Some(round);
        end.changed = Some(changed);
        end.duration_ms = Some(millis(started.elapsed()));
        end.outcome = Some(worst);
        self.emit(end);
        worst
    }

    /// Logs a record and hands it to the caller. A log that cannot be written is
    /// reported once; the watcher goes on.
    fn emit(&mut self, record: Record) {
        if let Err(e) = self.log.append(&record)
            && !self.log_failed
        {
            self.log_failed = true;
            (self.report)(&Record::new(Event::Error).error(format!("{e}; the log is incomplete")));
        }
        (self.report)(&record);
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Why the pack needs a round now: missing, unreadable, or older than the files a
/// build would index. `None` when it is current.
fn stale(seg: &Segment) -> Option<String> {
    if !seg.pack_path().exists() {
        return Some("no pack yet".into());
    }
    let settings = match Settings::load(&seg.config_path()) {
        Ok(s) => s,
        Err(e) => return Some(e.to_string()),
    };
    let catalog = match Catalog::open_read(&seg.db_path()) {
        Ok(c) => c,
        Err(_) => return Some("the catalog cannot be read".into()),
    };
    let (Ok(known), Ok(generation), Ok(pack_generation)) = (
        catalog.files(),
        catalog.generation(),
        catalog.meta("pack_generation"),
    ) else {
        return Some("the catalog cannot be read".into());
    };
    if pack_generation.and_then(|g| g.parse::<u64>().ok()) != Some(generation) {
        return Some("the pack lags behind the catalog".into());
    }
    let walked = match sources::walk(&seg.root, &settings, &|rel| {
        crate::pipeline::is_code(&settings, rel)
    }) {
        Ok(w) => w,
        Err(e) => return Some(e.to_string()),
    };
    let changed = walked
        .files
        .iter()
        // Files a build skips for their size are never in the catalog.
        .filter(|f| f.size <= settings.max_file_bytes)
        .filter(|f| {
            known
                .get(&f.rel)
                .is_none_or(|k| k.size != f.size || k.mtime_ns != f.mtime_ns)
        })
        .count();
    let on_disk: std::collections::HashSet<&str> =
        walked.files.iter().map(|f| f.rel.as_str()).collect();
    let removed = known
        .keys()
        .filter(|k| !on_disk.contains(k.as_str()))
        .count();
    (changed + removed > 0).then(|| {
        format!(
            "the pack is older than the files on disk ({changed} changed or new, {removed} removed)"
        )
    })
}
