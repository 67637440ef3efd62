//! `ctx relay -- <server command>`: an MCP proxy in front of any stdio MCP server.
//!
//! It starts the server as a child and relays newline-delimited JSON-RPC both
//! ways on `serde_json::Value`, rewriting only what it must (see `rewrite`): large
//! `tools/call` results are boxed into the relay store (see `boxing`), references
//! in arguments are unboxed (see `unbox`), arguments are checked against the
//! tool's `inputSchema` (see `schema_check`), and the resolve and search tools are
//! added (see `local`). Everything else passes through as the bytes received, so
//! both protocol eras, unknown methods and unknown fields survive; see
//! `shared/research/mcp.md` §3.4 for why this is not built on rmcp (a 16 MiB line
//! cap that drops messages silently, typed models that lose unknown fields).
//!
//! Process contract: lines of any length (no cap; a 20 MB result is one line);
//! the child's stderr is the proxy's stderr; SIGINT and SIGTERM are passed to
//! the child; the proxy ends when the child has exited and everything it said
//! was delivered, with the child's exit code (128 + signal when killed). Requests
//! still open then get an error answer, so no client waits forever. When the
//! client closes stdin, the child's stdin is closed; a child still running 10 s
//! later gets SIGTERM, and SIGKILL 5 s after that.
//!
//! The event loop is one task that owns all state (no locks on the hot path);
//! readers, writers, timers and blocking work (store, index, jq) talk to it
//! through one channel.

mod boxing;
pub mod local;
mod local_calls;
mod responses;
mod rewrite;
pub mod schema_check;
mod unbox;

use std::path::PathBuf;
use std::process::{ExitCode, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

use self::boxing::BoxConfig;
use self::local::LocalContext;
use self::rewrite::{Router, Shared};
use crate::config::Settings;
use crate::segment::Segment;

/// Everything `ctx relay -- <command>` needs, resolved from the command line.
#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The server command and its arguments.
    pub command: Vec<String>,
    /// Segment whose `_ctx/relay/` stores boxed values.
    pub seg: Segment,
    /// Its settings.
    pub settings: Settings,
    /// Session of the references this proxy makes and resolves.
    pub session: String,
    /// Text over this many estimated tokens is boxed.
    pub threshold_tokens: usize,
    /// Binary payloads over this many base64 bytes are boxed.
    pub binary_threshold: usize,
    /// Check arguments against the tool's `inputSchema`.
    pub validate: bool,
    /// How long a forwarded `tools/call` may take.
    pub call_timeout: Duration,
    /// Append calls and results as JSON lines to this file.
    pub record: Option<PathBuf>,
    /// Say on stderr what the proxy does.
    pub verbose: bool,
    /// Sentence encoder for the added `ctx_search`, when configured.
    pub reranker: Option<Arc<crate::rerank::Reranker>>,
}

/// What the event loop hears about.
pub(crate) enum Event {
    /// One line from the client (no newline).
    Client(Vec<u8>),
    /// The client closed stdin.
    ClientClosed,
    /// One line from the child (no newline).
    Child(Vec<u8>),
    /// The child closed stdout.
    ChildClosed,
    /// The child exited.
    ChildExited(Option<ExitStatus>),
    /// A call's arguments were unboxed and checked off the loop.
    Prepared {
        /// Id key of the call.
        key: String,
        /// The client's id.
        id: Value,
        /// Tool name.
        tool: String,
        /// The request was 2026-07-28.
        modern: bool,
        /// Forward or reject.
        outcome: Prepared,
    },
    /// A `tools/call` result made off the loop (added tool, boxed result).
    Answer {
        /// The client's id.
        id: Value,
        /// Tool name.
        tool: String,
        /// The `CallToolResult`.
        result: Value,
        /// References made, when the result was boxed.
        references: Option<Vec<String>>,
    },
    /// The answer to a call of an added tool.
    LocalAnswer {
        /// Id key of the call.
        key: String,
        /// The client's id.
        id: Value,
        /// Tool name, as the client called it.
        tool: String,
        /// The `CallToolResult`.
        result: Value,
    },
    /// A large result that needed no boxing after all: its original bytes.
    Passed {
        /// The client's id.
        id: Value,
        /// Tool name.
        tool: String,
        /// The result's `isError`.
        is_error: bool,
        /// The child's response line.
        line: Vec<u8>,
    },
    /// Any other response line made off the loop.
    Reply(Vec<u8>),
    /// A forwarded call's timer fired.
    Timeout {
        /// Id key of the call.
        key: String,
    },
    /// SIGINT or SIGTERM reached the proxy.
    Signal(rustix::process::Signal),
    /// Time to stop waiting for a child that was asked to stop.
    Escalate(u8),
    /// Time to stop waiting for stdout of a child that exited.
    Grace,
}

/// What preparing a call came to.
pub(crate) enum Prepared {
    /// Forward this line.
    Forward(Vec<u8>),
    /// Answer with an `isError` result saying this.
    Reject(String),
}

/// Runs the proxy until the child exits; returns the child's exit code.
pub fn run(opts: ProxyOptions) -> anyhow::Result<ExitCode> {
    // One thread for the loop: its work per message is small, and blocking work
    // goes to tokio's blocking pool.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(serve(opts));
    // The stdin reader may sit in a blocking read forever (the client keeps its end
    // open); do not wait for it.
    runtime.shutdown_background();
    result
}

async fn serve(opts: ProxyOptions) -> anyhow::Result<ExitCode> {
    // Listened for first, not in the task that forwards them: a signal
    // before that task first ran would take the default action, ending the
    // proxy without passing it to the child.
    let signals = listen_for_signals();
    let Some((program, args)) = opts.command.split_first() else {
        anyhow::bail!("no server command given after `--`");
    };
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("cannot start the MCP server `{program}`"))?;
    let pid = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32));
    let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
        anyhow::bail!("the MCP server `{program}` started without pipes");
    };
    let record = match &opts.record {
        Some(path) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open the record file `{}`", path.display()))?,
        ),
        None => None,
    };
    if opts.verbose {
        eprintln!(
            "ctx relay: session `{}`, store `{}`, threshold {} tokens, server pid {}",
            opts.session,
            opts.seg.relay_dir().display(),
            opts.threshold_tokens,
            pid.map(|p| p.as_raw_nonzero().get()).unwrap_or(0)
        );
    }

    let (events, mut inbox) = unbounded_channel::<Event>();
    tokio::spawn(read_lines(
        tokio::io::stdin(),
        events.clone(),
        Event::Client,
        Event::ClientClosed,
    ));
    tokio::spawn(read_lines(
        child_out,
        events.clone(),
        Event::Child,
        Event::ChildClosed,
    ));
    let (to_client, client_writer) = writer(tokio::io::stdout());
    let (to_child, child_writer) = writer(child_in);
    tokio::spawn(forward_signals(signals, events.clone()));
    {
        let events = events.clone();
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = events.send(Event::ChildExited(status));
        });
    }

    let shared = Arc::new(Shared {
        boxing: BoxConfig {
            seg: opts.seg.clone(),
            session: opts.session.clone(),
            threshold_tokens: opts.threshold_tokens,
            binary_threshold: opts.binary_threshold,
            lock_timeout: Duration::from_secs(60),
            tool_names: Arc::new(Mutex::new(Default::default())),
            blobs: Arc::new(Mutex::new(Default::default())),
        },
        local: LocalContext {
            seg: opts.seg.clone(),
            settings: opts.settings.clone(),
            session: opts.session.clone(),
            max_tokens: opts.threshold_tokens,
            reranker: opts.reranker.clone(),
        },
        validate: opts.validate,
        call_timeout: opts.call_timeout,
    });
    let mut router = Router::new(shared, to_client, to_child, events.clone(), record);

    let mut exited: Option<Option<ExitStatus>> = None;
    let mut stdout_closed = false;
    let signal = |sig| {
        if let Some(pid) = pid {
            // The child may be gone already; nothing to do then.
            let _ = rustix::process::kill_process(pid, sig);
        }
    };
    while let Some(event) = inbox.recv().await {
        match event {
            Event::Client(line) => router.on_client(line),
            Event::Child(line) => router.on_child(line),
            Event::ClientClosed => {
                router.close_child_input();
                schedule(&events, Duration::from_secs(10), Event::Escalate(0));
            }
            Event::ChildClosed => stdout_closed = true,
            Event::ChildExited(status) => {
                exited = Some(status);
                // A grandchild may hold the pipe open after the child is gone.
                schedule(&events, Duration::from_secs(3), Event::Grace);
            }
            Event::Grace => stdout_closed = true,
            Event::Prepared {
                key,
                id,
                tool,
                modern,
                outcome,
            } => router.on_prepared(key, id, tool, modern, outcome),
            Event::Answer {
                id,
                tool,
                result,
                references,
            } => router.on_answer(id, tool, result, references),
            Event::LocalAnswer {
                key,
                id,
                tool,
                result,
            } => router.on_local_answer(key, id, tool, result),
            Event::Passed {
                id,
                tool,
                is_error,
                line,
            } => router.on_passed(id, tool, is_error, line),
            Event::Reply(line) => router.on_reply(line),
            Event::Timeout { key } => router.on_timeout(key),
            Event::Signal(sig) if exited.is_none() => signal(sig),
            Event::Signal(_) => {}
            Event::Escalate(step) if exited.is_none() => {
                if step == 0 {
                    signal(rustix::process::Signal::TERM);
                    schedule(&events, Duration::from_secs(5), Event::Escalate(1));
                } else {
                    signal(rustix::process::Signal::KILL);
                }
            }
            Event::Escalate(_) => {}
        }
        if exited.is_some() && stdout_closed && router.in_flight == 0 {
            break;
        }
    }
    let status = exited.flatten();
    let code = exit_code(status);
    if router.pending_count() > 0 {
        let why = match status.and_then(|s| s.code()) {
            Some(c) => format!("the MCP server exited with code {c} before answering"),
            None => "the MCP server was killed before answering".to_string(),
        };
        router.fail_pending(&why);
    }
    drop(router);
    drop(events);
    // Everything queued for the client is written before the proxy exits.
    let _ = client_writer.await;
    child_writer.abort();
    Ok(ExitCode::from(code))
}

fn exit_code(status: Option<ExitStatus>) -> u8 {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Some(s) => match (s.code(), s.signal()) {
            (Some(c), _) => u8::try_from(c & 0xff).unwrap_or(1),
            (None, Some(sig)) => u8::try_from((128 + sig) & 0xff).unwrap_or(1),
            _ => 1,
        },
        None => 1,
    }
}

fn schedule(events: &UnboundedSender<Event>, after: Duration, event: Event) {
    let events = events.clone();
    tokio::spawn(async move {
        tokio::time::sleep(after).await;
        let _ = events.send(event);
    });
}

/// Sends each line of `input` (without its newline) to the loop; lines have no
/// length limit.
async fn read_lines<R: AsyncRead + Unpin>(
    input: R,
    events: UnboundedSender<Event>,
    wrap: fn(Vec<u8>) -> Event,
    closed: Event,
) {
    let mut reader = BufReader::with_capacity(256 * 1024, input);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                if events.send(wrap(line)).is_err() {
                    return;
                }
            }
        }
    }
    let _ = events.send(closed);
}

/// A task that writes each queued line plus a newline to `output`, in order.
fn writer<W: AsyncWrite + Unpin + Send + 'static>(
    mut output: W,
) -> (UnboundedSender<Vec<u8>>, tokio::task::JoinHandle<()>) {
    let (tx, mut rx) = unbounded_channel::<Vec<u8>>();
    let task = tokio::spawn(async move {
        while let Some(line) = rx.recv().await {
            let written = async {
                output.write_all(&line).await?;
                output.write_all(b"\n").await?;
                output.flush().await
            };
            if written.await.is_err() {
                // The reader is gone; drain so senders never block or grow.
                while rx.recv().await.is_some() {}
                return;
            }
        }
        let _ = output.shutdown().await;
    });
    (tx, task)
}

/// Streams of SIGINT and SIGTERM, which from now on no longer end the
/// process; `None` when they cannot be listened for.
fn listen_for_signals() -> Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)> {
    use tokio::signal::unix::{SignalKind, signal};
    Some((
        signal(SignalKind::interrupt()).ok()?,
        signal(SignalKind::terminate()).ok()?,
    ))
}

/// Passes SIGINT and SIGTERM to the loop, which sends them to the child.
async fn forward_signals(
    signals: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
    events: UnboundedSender<Event>,
) {
    let Some((mut int, mut term)) = signals else {
        return;
    };
    loop {
        let sig = tokio::select! {
            _ = int.recv() => rustix::process::Signal::INT,
            _ = term.recv() => rustix::process::Signal::TERM,
        };
        if events.send(Event::Signal(sig)).is_err() {
            return;
        }
    }
}
