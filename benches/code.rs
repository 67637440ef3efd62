//! Code chunker throughput over real Rust sources: the `ignore` and `tantivy`
//! crates from the local cargo registry, read once at start-up.
//!
//! Run with `cargo bench --bench code`. The groups report MB/s of source text
//! for `chunk_code` (parse, query, tile, split, IDs) and for `skeleton`, and
//! the time each language's symbol query takes to compile (once per process
//! that chunks the language: a one-file rebuild pays it).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ctx::chunk::ChunkOptions;
use ctx::chunk::code::{all_languages, chunk_code, language_by_name, skeleton};

/// Crate source trees looked up under `<cargo home>/registry/src/*/`.
const CRATES: &[&str] = &["ignore-0.4.", "tantivy-0."];

fn cargo_home() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cargo")))
        .expect("CARGO_HOME or HOME is set")
}

fn rust_files(dir: &Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs")
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            out.push((path.display().to_string(), text));
        }
    }
}

fn sources() -> Vec<(String, String)> {
    let registry = cargo_home().join("registry").join("src");
    let mut files = Vec::new();
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(&registry)
        .expect("a cargo registry with downloaded sources")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    indexes.sort();
    for prefix in CRATES {
        // The newest downloaded version of each crate.
        let newest = indexes
            .iter()
            .filter_map(|index| std::fs::read_dir(index).ok())
            .flatten()
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with(prefix))
            })
            .max();
        if let Some(root) = newest {
            rust_files(&root.join("src"), &mut files);
        }
    }
    assert!(
        !files.is_empty(),
        "no sources for {CRATES:?} under {}",
        registry.display()
    );
    files
}

fn code(c: &mut Criterion) {
    let files = sources();
    let bytes: usize = files.iter().map(|(_, text)| text.len()).sum();
    let rust = language_by_name("rust").expect("rust is supported");
    let options = ChunkOptions::default();
    let count = |files: &[(String, String)]| -> usize {
        files
            .iter()
            .map(|(path, text)| {
                chunk_code(path, text, rust, &options)
                    .chunks
                    .iter()
                    .filter(|chunk| chunk.symbol.is_some())
                    .count()
            })
            .sum()
    };
    let symbols = count(&files);
    assert!(
        symbols > 1_000,
        "only {symbols} symbol chunks in {} files",
        files.len()
    );
    eprintln!(
        "{} files, {bytes} bytes, {symbols} symbol chunks",
        files.len()
    );

    let mut group = c.benchmark_group("code");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.sample_size(10);
    group.bench_function("chunk_code", |b| {
        b.iter(|| assert_eq!(count(black_box(&files)), symbols))
    });
    group.bench_function("skeleton", |b| {
        b.iter(|| {
            let total: usize = files
                .iter()
                .map(|(_, text)| skeleton(black_box(text), rust).len())
                .sum();
            assert!(total > 0 && total < bytes);
        })
    });
    group.finish();
}

fn query_compile(c: &mut Criterion) {
    let mut group = c.benchmark_group("query compile");
    group.sample_size(10);
    for spec in all_languages() {
        let grammar = spec.grammar();
        group.bench_function(spec.name, |b| {
            b.iter(|| {
                tree_sitter::Query::new(black_box(&grammar), spec.query_source())
                    .expect("the query compiles")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, code, query_compile);
criterion_main!(benches);
