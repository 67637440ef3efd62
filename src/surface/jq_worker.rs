//! jq queries run in a worker process: the `ctx` binary itself, started with
//! [`WORKER_ARG`], which reads the stored value, runs the query with the
//! library's [`resolve::query`] and prints the outputs as JSON.
//!
//! jaq evaluates without a hook to stop it: a query is an iterator whose next
//! output can take forever (`def f: f; f`, `last(range(1e10))`) or all memory
//! (`[range(1e8)]`), and recursion in it can overflow the stack. On a thread
//! none of that can be stopped, and in `ctx mcp` or the `ctx relay` proxy it
//! took the server down with it or burned a core after the client gave up. A
//! process can be killed: the caller kills it at the deadline or when the
//! client cancels, and the worker caps its own memory (`RLIMIT_DATA`) and CPU
//! time (`RLIMIT_CPU`, a backstop should its parent die without killing it).
//! Starting it costs a few milliseconds per query (see the README's
//! performance section); the value is read by the worker, not sent to it.

use std::io::{Read as _, Write as _};
use std::os::unix::process::ExitStatusExt as _;
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

use crate::relay::resolve::{self, QueryOptions, QueryResult};

/// The first argument that makes `ctx` a query worker. Not a subcommand: it
/// is no interface for people, and skipping the command-line parser keeps the
/// start short.
pub const WORKER_ARG: &str = "__jq-worker";

/// Memory a query may use beyond its value's share (see [`memory_limit`]).
const BASE_MEMORY: u64 = 1 << 30;

/// Bytes of memory per byte of the stored value a query may use: jaq's tree
/// of a JSON text of small numbers and short strings is up to ~10× its size.
const MEMORY_PER_BYTE: u64 = 16;

/// Stack of the thread that runs the query: jaq recurses once per level of
/// the values it reads, builds and prints (the input is at most
/// [`crate::relay::nesting::MAX_JSON_DEPTH`] deep; a query may build deeper).
const STACK_BYTES: usize = 256 << 20;

/// The most memory a query on a value of `value_bytes` bytes may take.
pub fn memory_limit(value_bytes: u64) -> u64 {
    STACK_BYTES as u64 + BASE_MEMORY + value_bytes.saturating_mul(MEMORY_PER_BYTE)
}

/// What the caller asks the worker (on its stdin, as JSON).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Request {
    /// The stored value's file.
    pub file: PathBuf,
    /// The jq program.
    pub jq: String,
    /// `jq -c`.
    pub compact: bool,
    /// `jq -r`.
    pub raw: bool,
    /// Stop once the outputs hold this many chars.
    pub max_output_chars: usize,
    /// Wall-clock limit.
    pub timeout: Duration,
    /// `RLIMIT_DATA` of the worker, in bytes.
    pub memory_bytes: u64,
}

/// What the worker answers (on its stdout, as JSON).
#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    /// The outputs.
    Done(QueryResult),
    /// The library's error, as its message.
    Failed(String),
}

/// Why a query run gave no outputs.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The query or the value was refused or failed (the library's message).
    #[error("{0}")]
    Query(String),
    /// The deadline passed; the worker was killed.
    #[error(
        "jq query `{query}` ran longer than {seconds} s and was stopped; narrow it (e.g. `.items[:20]`, `first(...)`, `limit(10; ...)`)"
    )]
    TimedOut {
        /// The query.
        query: String,
        /// The limit in seconds.
        seconds: f64,
    },
    /// The worker ran out of its memory limit.
    #[error(
        "jq query `{query}` needed more than {mib} MiB of memory and was stopped; narrow it (e.g. `.items[:20]`, `first(...)`, `length` instead of collecting `[...]`)"
    )]
    OutOfMemory {
        /// The query.
        query: String,
        /// The limit in MiB.
        mib: u64,
    },
    /// The worker overflowed its stack.
    #[error(
        "jq query `{query}` recursed too deeply (a recursive `def`, or a value built thousands of levels deep) and was stopped"
    )]
    StackOverflow {
        /// The query.
        query: String,
    },
    /// The worker could not be started or ended without an answer.
    #[error("jq query `{query}` could not run: {why}")]
    Worker {
        /// The query.
        query: String,
        /// What went wrong.
        why: String,
    },
}

/// The program to start as the worker: this very executable, also when its
/// file was replaced or removed since it started (an upgrade under a running
/// `ctx mcp`), so the worker always speaks this process's protocol.
fn program() -> PathBuf {
    let this = Path::new("/proc/self/exe");
    if this.exists() {
        return this.to_path_buf();
    }
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("ctx"))
}

/// Grace after the deadline before the worker is killed, so a query that
/// times out between two outputs reports it itself, with its output count.
const GRACE: Duration = Duration::from_millis(200);

/// Runs `request` in a worker; dropping the future kills the worker (that is
/// how a cancelled MCP call stops it).
pub async fn run(request: &Request) -> Result<QueryResult, RunError> {
    let query = || request.jq.clone();
    let worker = |why: String| RunError::Worker {
        query: query(),
        why,
    };
    let mut child = tokio::process::Command::new(program())
        .arg(WORKER_ARG)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| worker(format!("cannot start a worker process: {e}")))?;
    let (Some(mut stdin), Some(mut stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(worker("the worker process started without pipes".into()));
    };
    let body = serde_json::to_vec(request).map_err(|e| worker(e.to_string()))?;
    let talk = async {
        // A worker that dies at once closes its stdin; its status says why.
        let _ = stdin.write_all(&body).await;
        drop(stdin);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        // A crash message is short; more is not read.
        let mut stderr = (&mut stderr).take(64 << 10);
        let (_, _, status) = tokio::join!(
            stdout.read_to_end(&mut out),
            stderr.read_to_end(&mut err),
            child.wait()
        );
        (out, err, status)
    };
    let Ok((out, err, status)) = tokio::time::timeout(request.timeout + GRACE, talk).await else {
        return Err(RunError::TimedOut {
            query: query(),
            seconds: request.timeout.as_secs_f64(),
        });
    };
    let status = status.map_err(|e| worker(format!("cannot wait for the worker: {e}")))?;
    if let Ok(reply) = serde_json::from_slice::<Reply>(&out) {
        return match reply {
            Reply::Done(result) => Ok(result),
            Reply::Failed(message) => Err(RunError::Query(message)),
        };
    }
    let err = String::from_utf8_lossy(&err);
    Err(if err.contains("memory allocation of") {
        RunError::OutOfMemory {
            query: query(),
            mib: request.memory_bytes >> 20,
        }
    } else if err.contains("has overflowed its stack") {
        RunError::StackOverflow { query: query() }
    } else if status.signal() == Some(rustix::process::Signal::XCPU.as_raw()) {
        RunError::TimedOut {
            query: query(),
            seconds: request.timeout.as_secs_f64(),
        }
    } else {
        let last = err.lines().rev().find(|l| !l.trim().is_empty());
        worker(format!(
            "the worker process ended ({status}) without an answer{}",
            last.map(|l| format!(": {l}")).unwrap_or_default()
        ))
    })
}

/// [`run`] for a caller without an async runtime (the command line).
pub fn run_blocking(request: &Request) -> Result<QueryResult, RunError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::Worker {
            query: request.jq.clone(),
            why: format!("cannot start the async runtime: {e}"),
        })?;
    runtime.block_on(run(request))
}

/// The worker's side: reads a [`Request`] on stdin, limits itself, runs the
/// query and writes a [`Reply`] on stdout.
pub fn worker_main() -> ExitCode {
    let mut input = Vec::new();
    let request = match std::io::stdin().read_to_end(&mut input) {
        Ok(_) => serde_json::from_slice::<Request>(&input).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let reply = match request {
        Ok(request) => {
            limit_self(&request);
            answer(request)
        }
        Err(why) => Reply::Failed(format!("the query worker got no request: {why}")),
    };
    let mut out = std::io::stdout().lock();
    let written = serde_json::to_writer(&mut out, &reply)
        .map_err(std::io::Error::from)
        .and_then(|()| out.flush());
    if written.is_err() {
        return ExitCode::from(2);
    }
    ExitCode::SUCCESS
}

/// Caps the worker's memory and CPU time. A limit that cannot be set is left
/// as it is: the caller's deadline still holds.
fn limit_self(request: &Request) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let capped = |resource: Resource, soft: u64, hard: u64| {
        let held = getrlimit(resource).maximum;
        let cap = |n: u64| Some(held.map_or(n, |h| n.min(h)));
        let _ = setrlimit(
            resource,
            Rlimit {
                current: cap(soft),
                maximum: cap(hard),
            },
        );
    };
    capped(Resource::Data, request.memory_bytes, request.memory_bytes);
    // Wall time bounds CPU time for a single-threaded query; the caller
    // kills at the deadline, this only stops a worker whose caller is gone.
    let cpu = request.timeout.as_secs().saturating_add(2);
    capped(Resource::Cpu, cpu, cpu.saturating_add(5));
}

fn answer(request: Request) -> Reply {
    let value = match std::fs::read_to_string(&request.file) {
        Ok(value) => value,
        Err(e) => {
            return Reply::Failed(
                crate::error::Error::io("cannot read", &request.file, e).to_string(),
            );
        }
    };
    let options = QueryOptions {
        compact: request.compact,
        raw: request.raw,
        max_output_chars: request.max_output_chars,
        timeout: request.timeout,
    };
    let jq = request.jq.clone();
    let ran = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || resolve::query(&value, &jq, &options).map_err(|e| e.to_string()))
        .map_err(|e| format!("cannot start the query thread: {e}"))
        .and_then(|thread| {
            thread
                .join()
                .map_err(|_| "the query thread panicked".to_string())
        })
        .and_then(|result| result);
    match ran {
        Ok(result) => Reply::Done(result),
        Err(message) => Reply::Failed(message),
    }
}
