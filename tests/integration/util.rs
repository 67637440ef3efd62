//! Test environment: a temp segment made from fixtures, and the `ctx` command.

use std::path::{Path, PathBuf};

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

    /// A copy of `fixtures/<name>`.
    pub fn fixture(name: &str) -> Env {
        let env = Env::empty();
        copy_dir(&repo().join("fixtures").join(name), env.path());
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

    /// `ctx -s <segment> args…`.
    pub fn ctx(&self, args: &[&str]) -> Command {
        let mut c = ctx();
        c.arg("-s").arg(self.path()).args(args);
        c
    }

    /// Runs `ctx … --json` and parses stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self.ctx(args).arg("--json").output().expect("run ctx");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "ctx {args:?} printed no JSON ({e}); status {:?}\nstdout: {}\nstderr: {}",
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}

/// The `ctx` binary with a clean environment for colour and roots.
pub fn ctx() -> Command {
    let mut c = Command::cargo_bin("ctx").expect("ctx binary");
    c.env_remove("CTX_ROOT").env("NO_COLOR", "1");
    c
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
