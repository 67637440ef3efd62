//! `ctx autopilot`: run the watcher, or report on it with `--status`.

use std::process::ExitCode;

use super::{Cli, resolve_segment};
use crate::config::Autopilot;
use crate::surface::autopilot::{self, Event, Finish, Outcome, Record, RunOptions, Status};
use crate::surface::output::{Printer, sanitize};

/// Arguments of `ctx autopilot`.
#[derive(Debug, clap::Args)]
pub struct AutopilotArgs {
    /// Run one round and exit: at once when the pack is missing or older than the
    /// files, else after the next batch of changes. Exit 1 when a step fails.
    #[arg(long, conflicts_with = "status")]
    pub once: bool,
    /// Is a watcher running for this segment, and what did its last rounds do?
    #[arg(long)]
    pub status: bool,
    /// Rescan the tree instead of using OS file events (e.g. on network file
    /// systems). Without it, polling is the fallback when the OS watch limit is hit.
    #[arg(long, conflicts_with = "status")]
    pub poll: bool,
}

pub(super) fn autopilot(cli: &Cli, p: &Printer, args: &AutopilotArgs) -> anyhow::Result<ExitCode> {
    let seg = resolve_segment(cli.segment.as_deref())?;
    if args.status {
        let status = autopilot::status(&seg)?;
        print_status(p, &status);
        return Ok(ExitCode::SUCCESS);
    }
    let config = Autopilot::load(&seg.session_md())?;
    if config.as_ref().is_some_and(|c| !c.enabled) {
        if p.json {
            p.json(&serde_json::json!({
                "enabled": false,
                "session_md": seg.session_md().display().to_string(),
            }));
        } else {
            p.text(&format!(
                "autopilot is disabled for {}: `session.md` sets `autopilot.enabled: false`; nothing to do\n",
                sanitize(&seg.root.display().to_string())
            ));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = RunOptions {
        once: args.once,
        poll: args.poll,
    };
    let finish = autopilot::run(&seg, config, &options, &mut |r| print_record(p, r))?;
    Ok(match finish {
        Finish::Once { ok: false } => ExitCode::from(1),
        Finish::Once { ok: true } | Finish::Stopped | Finish::Disabled => ExitCode::SUCCESS,
    })
}

/// One record as it happens: a JSON line with `--json`, else a short human line
/// for what a user watching the terminal cares about.
fn print_record(p: &Printer, r: &Record) {
    if p.json {
        if let Ok(line) = serde_json::to_string(r) {
            p.text(&format!("{line}\n"));
        }
        return;
    }
    let text = |s: &Option<String>| sanitize(s.as_deref().unwrap_or(""));
    match r.event {
        Event::Start => p.note(&format!("autopilot: {}; Ctrl-C stops", text(&r.message))),
        Event::Stop => p.note(&format!("autopilot: {}", text(&r.message))),
        Event::Warning => p.warn(&text(&r.message)),
        Event::Error => p.note(&format!("error: {}", text(&r.error))),
        Event::Change if r.message.is_some() => p.note(&format!(
            "round {}: {}",
            r.round.unwrap_or(0),
            text(&r.message)
        )),
        Event::Change | Event::RoundStart => {
            if p.verbose > 0 {
                p.note(&format!(
                    "round {}: {} change(s) {}",
                    r.round.unwrap_or(0),
                    r.changed.unwrap_or(0),
                    text(&r.message)
                ));
            }
        }
        Event::Step => {
            let outcome = r.outcome.unwrap_or(Outcome::Ok);
            if outcome != Outcome::Ok {
                p.warn(&format!(
                    "step `{}` {} after {} ms: {}",
                    text(&r.step),
                    outcome.as_str(),
                    r.duration_ms.unwrap_or(0),
                    text(&r.error)
                ));
            } else if p.verbose > 0 {
                p.note(&format!(
                    "  step `{}` ok in {} ms",
                    text(&r.step),
                    r.duration_ms.unwrap_or(0)
                ));
            }
        }
        Event::RoundEnd => {
            if !p.quiet {
                let outcome = r.outcome.unwrap_or(Outcome::Ok).as_str();
                p.text(&format!(
                    "{} round {}: {} change(s), {} in {} ms\n",
                    p.dim(&r.time),
                    r.round.unwrap_or(0),
                    r.changed.unwrap_or(0),
                    if outcome == "ok" {
                        p.accent(outcome)
                    } else {
                        outcome.to_string()
                    },
                    r.duration_ms.unwrap_or(0)
                ));
            }
        }
    }
}

fn print_status(p: &Printer, s: &Status) {
    if p.json {
        p.json(s);
        return;
    }
    let root = sanitize(&s.root.display().to_string());
    match &s.pid {
        Some(pid) if s.running => p.text(&format!(
            "autopilot {} for {root} (pid {})\n",
            p.accent("running"),
            sanitize(pid)
        )),
        _ => p.text(&format!("autopilot not running for {root}\n")),
    }
    if let Some(start) = &s.started {
        p.text(&format!("last start {}\n", start.time));
    }
    if let Some(stop) = &s.stopped {
        p.text(&format!(
            "last stop {} ({})\n",
            stop.time,
            sanitize(stop.message.as_deref().unwrap_or(""))
        ));
    }
    if s.rounds.is_empty() {
        p.text(&format!(
            "no rounds in {}\n",
            sanitize(&s.log.display().to_string())
        ));
    } else {
        p.text("last rounds:\n");
    }
    for round in &s.rounds {
        let outcome = round.outcome.map_or("running", Outcome::as_str);
        p.text(&format!(
            "  {} round {}: {} change(s), {}{}\n",
            round.started,
            round.round,
            round.changed.unwrap_or(0),
            outcome,
            round
                .duration_ms
                .map(|d| format!(" in {d} ms"))
                .unwrap_or_default()
        ));
        for step in &round.steps {
            p.text(&format!(
                "    {} {} ({} ms){}\n",
                sanitize(&step.step),
                step.outcome.map_or("?", Outcome::as_str),
                step.duration_ms.unwrap_or(0),
                step.error
                    .as_deref()
                    .map(|e| format!(": {}", sanitize(e)))
                    .unwrap_or_default()
            ));
        }
    }
    if let Some(problem) = &s.last_problem {
        let what = problem
            .error
            .as_deref()
            .or(problem.message.as_deref())
            .unwrap_or("");
        p.text(&format!(
            "last problem {}: {}\n",
            problem.time,
            sanitize(what)
        ));
    }
}
