//! Advisory file locks (`std::fs::File::lock`, i.e. `flock`): the OS releases them
//! when the holder exits or is killed, so a lock can never be left stale. The lock
//! files themselves stay in `_ctx/`; they are harmless and safe to delete when no
//! ctx process runs.
//!
//! - `_ctx/.build.lock` ([`LockKind::Build`]): held for a whole build, so two builds
//!   of one segment never interleave. A second build waits up to `--lock-timeout`,
//!   then fails naming the holder's pid. Readers (search, get) never take it.
//! - `_ctx/.autopilot.lock` ([`LockKind::Autopilot`]): held by the one watcher of a
//!   segment for its whole life; a second watcher refuses at once.
//!
//! The holder writes its pid into the file after locking, for messages only.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// Which lock, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockKind {
    /// `_ctx/.build.lock`.
    Build,
    /// `_ctx/.autopilot.lock`.
    Autopilot,
}

impl LockKind {
    fn command(self) -> &'static str {
        match self {
            LockKind::Build => "build",
            LockKind::Autopilot => "autopilot",
        }
    }
}

/// Digits of the widest pid (`u32::MAX`).
const PID_WIDTH: usize = 10;

/// A held lock; released on drop.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
}

impl FileLock {
    fn open(path: &Path) -> Result<File> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| Error::io("cannot open lock", path, e))
    }

    fn claim(file: File, path: &Path) -> FileLock {
        use std::os::unix::fs::FileExt;
        // Best effort: the pid is only used in other processes' messages.
        // Padded to one width so it overwrites the last holder's in place:
        // truncating the file first took 0.6 ms of every search's refresh
        // (ext4 journals the freed block).
        let pid = format!("{:<PID_WIDTH$}\n", std::process::id());
        let _ = file.write_all_at(pid.as_bytes(), 0);
        if file.metadata().is_ok_and(|m| m.len() > pid.len() as u64) {
            let _ = file.set_len(pid.len() as u64);
        }
        FileLock {
            file,
            path: path.to_path_buf(),
        }
    }

    /// Takes the lock, waiting up to `timeout` for the current holder.
    pub fn acquire(path: &Path, kind: LockKind, timeout: Duration) -> Result<FileLock> {
        let file = Self::open(path)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Self::claim(file, path)),
                Err(std::fs::TryLockError::WouldBlock) => {
                    if start.elapsed() >= timeout {
                        return Err(Error::LockTimeout {
                            path: path.to_path_buf(),
                            holder: holder(path),
                            waited_secs: timeout.as_secs(),
                            what: kind.command(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(25));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(Error::io("cannot lock", path, e));
                }
            }
        }
    }

    /// Takes the lock now or returns `None` with the holder's pid.
    pub fn try_acquire(path: &Path) -> Result<Result<FileLock, String>> {
        let file = Self::open(path)?;
        match file.try_lock() {
            Ok(()) => Ok(Ok(Self::claim(file, path))),
            Err(std::fs::TryLockError::WouldBlock) => Ok(Err(holder(path))),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io("cannot lock", path, e)),
        }
    }

    /// The lock file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

/// The pid written by the current holder of `path`, or `unknown`.
pub fn holder(path: &Path) -> String {
    let mut s = String::new();
    match File::open(path).and_then(|mut f| f.read_to_string(&mut s)) {
        Ok(_) if !s.trim().is_empty() => s.trim().to_string(),
        _ => "unknown".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_times_out_naming_pid() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".build.lock");
        let _held = FileLock::acquire(&p, LockKind::Build, Duration::from_secs(1)).unwrap();
        let err = FileLock::acquire(&p, LockKind::Build, Duration::from_millis(100)).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("held by pid {}", std::process::id())),
            "{msg}"
        );
        assert!(FileLock::try_acquire(&p).unwrap().is_err());
        drop(_held);
        assert!(FileLock::try_acquire(&p).unwrap().is_ok());
    }

    #[test]
    fn the_holder_pid_replaces_whatever_the_file_held() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".build.lock");
        let me = std::process::id().to_string();
        // Another holder's longer text (an older format), then a shorter pid.
        for before in ["4294967295 and a stale note", "7"] {
            std::fs::write(&p, before).unwrap();
            let held = FileLock::acquire(&p, LockKind::Build, Duration::ZERO).unwrap();
            assert_eq!(holder(&p), me);
            drop(held);
        }
    }
}
