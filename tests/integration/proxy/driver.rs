//! Test harness for `ctx relay`: the installed MCP peers, a raw JSON-RPC driver
//! over the proxy's real stdio pipes, and the Python SDK client runner.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Env, repo, spawn_piped, spawn_pyclient};

/// The stub server command (`fixtures/mcp/stub_server.py`).
pub fn stub(extra: &[&str]) -> Vec<String> {
    let mut cmd = vec![
        "python3".to_string(),
        repo()
            .join("fixtures/mcp/stub_server.py")
            .display()
            .to_string(),
    ];
    cmd.extend(extra.iter().map(|s| s.to_string()));
    cmd
}

/// The ctx binary.
pub fn ctx_bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("ctx")
}

/// A running `ctx relay` driven line by line.
pub struct Relay {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    next_id: i64,
    /// Messages that were not the awaited response (notifications, server requests).
    pub others: Vec<Value>,
}

/// Default wait for one message.
pub const WAIT: Duration = Duration::from_secs(60);

impl Relay {
    /// Starts `ctx -s <env> relay <opts> -- <server>` with extra environment.
    pub fn start(env: &Env, opts: &[&str], server: &[String], vars: &[(&str, &str)]) -> Relay {
        let mut cmd = Command::new(ctx_bin());
        cmd.arg("-s")
            .arg(env.path())
            .arg("relay")
            .args(opts)
            .arg("--")
            .args(server);
        for (k, v) in vars {
            cmd.env(k, v);
        }
        Relay::spawn(cmd)
    }

    /// Starts `ctx -s <env> mcp --no-build <opts>`, to drive `ctx mcp` on the wire.
    pub fn mcp(env: &Env, opts: &[&str]) -> Relay {
        let mut cmd = Command::new(ctx_bin());
        cmd.arg("-s")
            .arg(env.path())
            .args(["mcp", "--no-build"])
            .args(opts);
        Relay::spawn(cmd)
    }

    /// Starts `cmd` (a `ctx` command line) with its stdio piped to the driver.
    fn spawn(mut cmd: Command) -> Relay {
        cmd.env_remove("CTX_ROOT").env_remove("CTX_RERANK_MODEL");
        let mut child = spawn_piped(&mut cmd);
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if line.last() == Some(&b'\n') {
                            line.pop();
                        }
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let sink = stderr.clone();
        let mut err = child.stderr.take().expect("stderr");
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = err.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().expect("lock").extend_from_slice(&buf[..n]);
            }
        });
        Relay {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            next_id: 0,
            others: Vec::new(),
        }
    }

    /// What the proxy (and its child) wrote to stderr so far.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().expect("lock")).into_owned()
    }

    /// The proxy's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes one line (a newline is added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Writes one message.
    pub fn send(&mut self, v: &Value) {
        self.send_raw(&serde_json::to_vec(v).expect("json"));
    }

    /// The next line, or `None` after `timeout`.
    pub fn recv_raw(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => Some(line),
            Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The next message; fails the test after `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> Value {
        let line = self.recv_raw(timeout).unwrap_or_else(|| {
            panic!(
                "no message from ctx relay within {timeout:?}; stderr:\n{}",
                self.stderr()
            )
        });
        serde_json::from_slice(&line).unwrap_or_else(|e| {
            panic!(
                "ctx relay sent a non-JSON line ({e}): {}",
                String::from_utf8_lossy(&line[..line.len().min(500)])
            )
        })
    }

    /// Waits for the response with `id`; other messages go to `others`.
    pub fn response(&mut self, id: &Value, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let msg = self.recv(left.max(Duration::from_millis(1)));
            if msg.get("id") == Some(id) && msg.get("method").is_none() {
                return msg;
            }
            self.others.push(msg);
        }
    }

    /// Sends a request with a fresh integer id and returns the whole response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(&id, WAIT)
    }

    /// The legacy handshake; returns the initialize result.
    pub fn initialize(&mut self) -> Value {
        let r = self.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        r["result"].clone()
    }

    /// `tools/call`; returns the result (fails on a JSON-RPC error).
    pub fn call(&mut self, tool: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(r.get("error").is_none(), "{tool}: {r}");
        r["result"].clone()
    }

    /// Closes stdin and waits for the proxy to exit.
    pub fn finish(mut self, timeout: Duration) -> (ExitStatus, String) {
        self.stdin = None;
        self.wait(timeout)
    }

    /// Waits for the proxy to exit on its own.
    pub fn wait(&mut self, timeout: Duration) -> (ExitStatus, String) {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                // Let the stderr thread drain.
                std::thread::sleep(Duration::from_millis(100));
                return (status, self.stderr());
            }
            assert!(
                Instant::now() < deadline,
                "ctx relay did not exit within {timeout:?}; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The query workers (`ctx __jq-worker`) whose parent is `pid`.
pub fn query_workers(pid: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|child| {
            let stat = std::fs::read_to_string(format!("/proc/{child}/stat")).unwrap_or_default();
            // `pid (comm) state ppid …`; comm may hold spaces, so split after `)`.
            let parent = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<u32>().ok());
            let cmdline = std::fs::read(format!("/proc/{child}/cmdline")).unwrap_or_default();
            parent == Some(pid) && cmdline.windows(11).any(|w| w == b"__jq-worker")
        })
        .collect()
}

/// Waits up to `timeout` for `pid` to have no query workers; true when it has none.
pub fn no_query_workers(pid: u32, timeout: Duration) -> bool {
    let deadline = Instant::now() + timeout;
    loop {
        if query_workers(pid).is_empty() {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Text of every text block of a result, joined.
pub fn text_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The first `resource_link` reference of a result.
pub fn reference_of(result: &Value) -> String {
    result["content"]
        .as_array()
        .and_then(|blocks| {
            blocks
                .iter()
                .find(|b| b["type"] == "resource_link")
                .and_then(|b| b["uri"].as_str())
        })
        .unwrap_or_else(|| panic!("no resource_link in {}", cut(result)))
        .to_string()
}

/// A value's JSON, cut for failure messages.
pub fn cut(v: &Value) -> String {
    let s = v.to_string();
    s.chars().take(1500).collect()
}

/// Runs `tests/mcp/pyclient.py` with `script`; returns its JSON document.
pub fn pyclient(script: &Value) -> Value {
    let out = spawn_pyclient(script).wait_with_output().expect("pyclient");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "pyclient printed no JSON ({e}), status {:?}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// `ctx -s <env> relay <opts> -- <server>` as a command line for other clients.
pub fn relay_argv(env: &Env, opts: &[&str], server: &[String]) -> Vec<String> {
    let mut argv = vec![
        ctx_bin().display().to_string(),
        "-s".into(),
        env.path().display().to_string(),
        "relay".into(),
    ];
    argv.extend(opts.iter().map(|s| s.to_string()));
    argv.push("--".into());
    argv.extend(server.iter().cloned());
    argv
}
