//! Atomic replacement of files in `_ctx/`.
//!
//! The temporary file is created in the same directory as the target: a rename is
//! only atomic within one file system, and the system temp dir may be elsewhere.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// Marker in the names of temporary files, so leftovers can be recognised.
pub const TMP_MARKER: &str = ".tmp-";

/// Writes `path` atomically: temp file in the same directory, fsync, rename, fsync
/// the directory. Readers see the old file or the new one, never a mix; a crash
/// at any instant leaves the old file (and perhaps a stray temp file) in place.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    replace(path, true, |w| write(w))
}

/// Like [`write_atomic`] without the fsyncs, for files derived from durable
/// state that the caller checks and rewrites when damaged (the pack: rebuilt
/// from the catalog when its recorded size differs). Killing the process still
/// leaves the old file or the new one; only a power loss can tear it.
pub fn replace_derived(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    replace(path, false, write)
}

fn replace(
    path: &Path,
    durable: bool,
    write: impl FnOnce(&mut BufWriter<File>) -> std::io::Result<()>,
) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(
        ".{name}{TMP_MARKER}{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| -> std::io::Result<()> {
        let file = File::create(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        if durable {
            file.sync_all()?;
        }
        drop(file);
        if durable {
            fs::rename(&tmp, path)?;
            sync_dir(dir)?;
        } else {
            swap_into_place(&tmp, path)?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(Error::io("cannot write", path, e));
    }
    Ok(())
}

/// Moves `tmp` over `path` atomically without forcing `tmp`'s data to disk.
///
/// ext4 starts writeback of a file renamed over an existing one (its
/// `auto_da_alloc` guard against zero-length files after a crash), which costs a
/// one-file rebuild ~15 ms for a 40 MB pack. Exchanging the two names is just as
/// atomic for readers and skips that; the old file, now at `tmp`, is removed.
fn swap_into_place(tmp: &Path, path: &Path) -> std::io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        // Fails when there is no file to exchange with yet, or on a file
        // system without the flag: then a plain rename does.
        if renameat_with(CWD, tmp, CWD, path, RenameFlags::EXCHANGE).is_ok() {
            // The new file is in place; a leftover old one is removed by the
            // next build's sweep of stale temporaries.
            let _ = fs::remove_file(tmp);
            return Ok(());
        }
    }
    fs::rename(tmp, path)
}

/// Flushes a directory entry change (a rename) to disk.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Removes temporary files left in `dir` by writers that died. Call only while
/// holding the lock that serializes those writers.
pub fn remove_stale_temps(dir: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = fs::read_dir(dir) else {
        return removed;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.')
            && name.contains(TMP_MARKER)
            && fs::remove_file(entry.path()).is_ok()
        {
            removed.push(entry.path());
        }
    }
    removed
}

/// Creates `_ctx/` (and parents) when missing.
pub fn ensure_dir(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).map_err(|e| Error::io("cannot create", dir, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_cleans() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.json");
        write_atomic(&p, |w| w.write_all(b"one")).unwrap();
        write_atomic(&p, |w| w.write_all(b"two")).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        let failed = write_atomic(&p, |_| Err(std::io::Error::other("boom")));
        assert!(failed.is_err());
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn derived_files_are_swapped_in_and_the_old_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pack.json");
        // First write: nothing to exchange with, so a plain rename.
        replace_derived(&p, |w| w.write_all(b"one")).unwrap();
        // A reader holding the old file keeps reading the old content.
        let mut held = File::open(&p).unwrap();
        replace_derived(&p, |w| w.write_all(b"two")).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two");
        let mut old = String::new();
        std::io::Read::read_to_string(&mut held, &mut old).unwrap();
        assert_eq!(old, "one");
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["pack.json"]);
    }
}
