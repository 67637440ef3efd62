//! Test environment: a temp segment made from fixtures, the `ctx` command, child
//! processes fed on stdin, and the installed MCP test tools.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::OnceLock;

use assert_cmd::Command;

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/corpora/<name>` beside the repository; the test fails when missing.
pub fn corpus(name: &str) -> PathBuf {
    let p = repo().join("..").join("shared").join("corpora").join(name);
    assert!(
        p.is_dir(),
        "corpus {} is missing: the shared corpora must sit beside the repo",
        p.display()
    );
    p
}

/// A temp directory holding a copy of a fixture tree.
pub struct Env {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
}

impl Env {
    /// An empty segment.
    pub fn empty() -> Env {
        Env {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// A copy of `fixtures/<name>` as committed: without the `_ctx/` that a
    /// build there leaves (the README's first command builds the demo), which
    /// would make every test's first build an incremental one.
    pub fn fixture(name: &str) -> Env {
        let env = Env::empty();
        copy_dir(&repo().join("fixtures").join(name), env.path());
        let built = env.path().join("_ctx");
        if built.exists() {
            std::fs::remove_dir_all(built).expect("remove the copied _ctx");
        }
        env
    }

    /// A copy of `fixtures/demo`, built.
    pub fn demo_built() -> Env {
        let env = Env::fixture("demo");
        env.ctx(&["build"]).assert().success();
        env
    }

    /// `fixtures/code` plus a Markdown guide about the same walk builder,
    /// built: a query matches both kinds.
    pub fn code_and_docs() -> Env {
        let env = Env::fixture("code");
        env.write(
            "GUIDE.md",
            "# Guide\n\n## Walking\n\nThe walk builder builds a walker over a directory tree.\n",
        );
        env.ctx(&["build", "-q"]).assert().success();
        env
    }

    /// The segment root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file under the segment.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(p, content).expect("write");
    }

    /// A Cargo workspace of `crates/*` whose members are `names`, each a
    /// manifest declaring its name; their sources are the caller's.
    pub fn cargo_workspace(&self, names: &[&str]) {
        self.write("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n");
        for name in names {
            self.write(
                &format!("crates/{name}/Cargo.toml"),
                format!("[package]\nname = \"{name}\"\n"),
            );
        }
    }

    /// The modification time of `rel` (a file, or a directory; `""` is the root).
    pub fn mtime(&self, rel: &str) -> std::time::SystemTime {
        std::fs::metadata(self.path().join(rel))
            .and_then(|m| m.modified())
            .unwrap_or_else(|e| panic!("mtime of {rel}: {e}"))
    }

    /// Sets the modification time of `rel` (a file, or a directory) to `to`.
    pub fn set_mtime(&self, rel: &str, to: std::time::SystemTime) {
        std::fs::File::open(self.path().join(rel))
            .and_then(|f| f.set_modified(to))
            .unwrap_or_else(|e| panic!("set mtime of {rel}: {e}"));
    }

    /// `ctx -s <segment> args…`.
    pub fn ctx(&self, args: &[&str]) -> Command {
        let mut c = ctx();
        c.arg("-s").arg(self.path()).args(args);
        c
    }

    /// The built pack, `_ctx/context_pack.json`, parsed.
    pub fn pack(&self) -> serde_json::Value {
        let text = std::fs::read_to_string(self.path().join("_ctx/context_pack.json"))
            .expect("read the pack");
        serde_json::from_str(&text).expect("pack JSON")
    }

    /// Runs `ctx … --json` and parses stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self.ctx(args).arg("--json").output().expect("run ctx");
        parse_json(args, &out)
    }

    /// Runs `ctx … --json` with `input` on stdin and parses stdout.
    pub fn json_with_input(&self, args: &[&str], input: &str) -> serde_json::Value {
        let out = self
            .ctx(args)
            .arg("--json")
            .write_stdin(input)
            .output()
            .expect("run ctx");
        parse_json(args, &out)
    }
}

/// The JSON that `ctx args…` printed, or a panic showing what it printed.
fn parse_json(args: &[&str], out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "ctx {args:?} printed no JSON ({e}); status {:?}\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A Rust struct (lines 3-6), a free function, then two impl blocks (lines
/// 13-22 with `triangle` at 14-17 and `sides`, and 24-28).
pub const SHAPE_RS: &str = "use std::fmt;

/// A shape with straight sides.
pub struct Polygon {
    sides: u32,
}

/// Unrelated helper between the type and its impl.
pub fn helper() -> u32 {
    7
}

impl Polygon {
    /// A triangle.
    pub fn triangle() -> Polygon {
        Polygon { sides: 3 }
    }

    pub fn sides(&self) -> u32 {
        self.sides
    }
}

impl fmt::Display for Polygon {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, \"{}-gon\", self.sides)
    }
}
";

/// A Rust method whose doc comment (lines 4-18) is longer than its code
/// (lines 19-25), for windows cut by a budget.
pub const LEDGER_RS: &str = "\
pub struct Ledger { entries: Vec<i64> }

impl Ledger {
    /// Sums the ledger's entries.
    ///
    /// Refunds are negative entries, so the total can be below zero.
    ///
    /// # Examples
    ///
    /// ```
    /// let mut ledger = Ledger { entries: vec![] };
    /// ledger.entries.push(5);
    /// ledger.entries.push(-2);
    ///
    /// assert_eq!(ledger.total(), 3);
    /// ```
    ///
    /// See also the audit trail, which keeps every entry ever booked.
    pub fn total(&self) -> i64 {
        let mut sum = 0;
        for e in &self.entries {
            sum += e;
        }
        sum
    }
}
";

/// The `ctx` binary with a clean environment for colour and roots.
pub fn ctx() -> Command {
    let mut c = Command::cargo_bin("ctx").expect("ctx binary");
    c.env_remove("CTX_ROOT")
        .env_remove("CTX_RERANK_MODEL")
        .env("NO_COLOR", "1");
    c
}

/// Runs `ctx -s <env> args…` and checks that it exits 2 with each of `says` on stderr.
pub fn refused(env: &Env, args: &[&str], says: &[&str]) {
    let mut assert = env.ctx(args).assert().code(2);
    for s in says {
        assert = assert.stderr(predicates::str::contains(*s));
    }
}

/// The string `key` of each item of the list `list` in a JSON answer
/// (`strings(&r, "chunks", "id")`).
pub fn strings<'a>(answer: &'a serde_json::Value, list: &str, key: &str) -> Vec<&'a str> {
    answer[list]
        .as_array()
        .unwrap_or_else(|| panic!("no list `{list}` in {answer}"))
        .iter()
        .map(|item| {
            item[key]
                .as_str()
                .unwrap_or_else(|| panic!("no string `{key}` in {item}"))
        })
        .collect()
}

/// Recursive copy (symlinks copied as links).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        let ft = entry.file_type().expect("file type");
        if ft.is_symlink() {
            let link = std::fs::read_link(entry.path()).expect("readlink");
            std::os::unix::fs::symlink(link, &target).expect("symlink");
        } else if ft.is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Starts `cmd` with stdin, stdout and stderr piped.
pub fn spawn_piped(cmd: &mut std::process::Command) -> Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {:?}: {e}", cmd.get_program()))
}

/// Starts `cmd` with its streams piped, writes `input` to its stdin and closes
/// it, so the child sees the end of its input.
pub fn spawn_with_input(cmd: &mut std::process::Command, input: &[u8]) -> Child {
    let mut child = spawn_piped(cmd);
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child
}

/// Runs `cmd` with `input` on stdin and collects its exit status, stdout and stderr.
pub fn run_with_input(cmd: &mut std::process::Command, input: &[u8]) -> Output {
    spawn_with_input(cmd, input)
        .wait_with_output()
        .expect("wait for child")
}

/// `ctx -s <segment> box args…` with `value` on stdin; fails the test unless it
/// succeeds, and returns its stdout (the value itself, or its reference).
pub fn boxed(segment: &Path, value: &str, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctx"));
    cmd.arg("-s").arg(segment).arg("box").args(args);
    let out = run_with_input(&mut cmd, value.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

/// Paths of the real MCP clients and servers (`.test-tools/paths.env`).
pub struct TestTools(HashMap<String, PathBuf>);

impl TestTools {
    /// The path under `CTX_TT_<key>`.
    pub fn get(&self, key: &str) -> &Path {
        self.0
            .get(&format!("CTX_TT_{key}"))
            .unwrap_or_else(|| panic!("CTX_TT_{key} missing from .test-tools/paths.env"))
    }
}

/// Installs the test tools once per run (fast when already there). A missing tool
/// fails the test: the MCP and proxy tests are never skipped.
pub fn test_tools() -> &'static TestTools {
    static TOOLS: OnceLock<TestTools> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let out = std::process::Command::new("bash")
            .arg(repo().join("scripts/setup-test-tools.sh"))
            .output()
            .expect("run scripts/setup-test-tools.sh");
        assert!(
            out.status.success(),
            "scripts/setup-test-tools.sh failed; the MCP and proxy tests need its real clients and servers:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(repo().join(".test-tools/paths.env"))
            .expect("read .test-tools/paths.env");
        let map: HashMap<String, PathBuf> = text
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        for (k, v) in &map {
            assert!(v.exists(), "{k}={} does not exist", v.display());
        }
        TestTools(map)
    })
}

/// Starts the Python SDK client (`tests/mcp/pyclient.py`) with `script` on stdin.
pub fn spawn_pyclient(script: &serde_json::Value) -> Child {
    let t = test_tools();
    let mut cmd = std::process::Command::new(t.get("PYTHON"));
    cmd.arg(t.get("PYCLIENT")).arg("-");
    spawn_with_input(&mut cmd, script.to_string().as_bytes())
}

/// Cases a property test runs: `default`, or `$PROPTEST_CASES` for a long
/// search (`PROPTEST_CASES=20000 cargo test --release --test integration props`).
pub fn prop_cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse().ok())
        .unwrap_or(default)
}
