//! Chunking throughput over the real corpora (`../shared/corpora`).

use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctx::chunk::{ChunkOptions, markdown::chunk_markdown};

fn markdown_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).expect("corpus dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            markdown_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "md")
            && let Ok(t) = std::fs::read_to_string(&p)
        {
            out.push((p.display().to_string(), t));
        }
    }
}

fn corpus(name: &str) -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpora")
        .join(name);
    let mut files = Vec::new();
    markdown_files(&dir, &mut files);
    assert!(!files.is_empty(), "corpus {} missing", dir.display());
    files
}

fn bench(c: &mut Criterion) {
    let opts = ChunkOptions::default();
    for name in ["rust-book", "k8s-enhancements"] {
        let files = corpus(name);
        let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();
        let mut group = c.benchmark_group("chunk_markdown");
        group.throughput(Throughput::Bytes(bytes as u64));
        group.sample_size(10);
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut n = 0;
                for (doc, text) in &files {
                    n += chunk_markdown(doc, text, &opts).chunks.len();
                }
                // The bench checks its own result so it cannot measure nothing.
                assert!(n > files.len() / 2);
                n
            })
        });
        group.finish();
        // The encoded-payload scan every Markdown and code file goes through first.
        let mut group = c.benchmark_group("encoded_scan");
        group.throughput(Throughput::Bytes(bytes as u64));
        group.sample_size(10);
        group.bench_function(name, |b| {
            b.iter(|| {
                files
                    .iter()
                    .filter(|(_, text)| ctx::chunk::encoded::elided(text).len() < text.len())
                    .count()
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
