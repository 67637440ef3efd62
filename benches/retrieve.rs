//! In-process search and get latency on a built pack of k8s-enhancements.

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use ctx::config::Settings;
use ctx::pipeline::{self, BuildOptions};
use ctx::retrieve::{GetOptions, Mode, Retriever, SearchOptions};
use ctx::segment::Segment;

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir").flatten() {
        let t = to.join(e.file_name());
        let ft = e.file_type().expect("type");
        if ft.is_dir() {
            copy(&e.path(), &t);
        } else if ft.is_file() {
            std::fs::copy(e.path(), &t).expect("copy");
        }
    }
}

fn bench(c: &mut Criterion) {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/k8s-enhancements");
    let dir = tempfile::tempdir().expect("tempdir");
    copy(&src, dir.path());
    let seg = Segment::open(dir.path(), "").expect("segment");
    pipeline::build(&seg, &Settings::default(), &BuildOptions::default()).expect("build");
    let r = Retriever::open(&seg).expect("open");
    let queries = [
        "pod topology spread min domains",
        "why did sig-node want graceful node shutdown",
        "kubelet credential provider plugin",
        "how are sidecar containers restarted",
    ];
    let opts = SearchOptions::default();
    c.bench_function("search k8s (warm, in-process)", |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            let res = r.search(queries[i % queries.len()], &opts).expect("search");
            assert!(res.no_evidence || !res.hits.is_empty());
            res.hits.len()
        })
    });
    let ids: Vec<String> = r
        .search(queries[0], &opts)
        .expect("search")
        .hits
        .iter()
        .take(2)
        .map(|h| h.id.clone())
        .collect();
    let get = GetOptions {
        mode: Mode::Excerpt,
        budget: 800,
        cap: 16_000,
        query: Some(queries[0].into()),
    };
    c.bench_function("get 2 chunks excerpt (warm, in-process)", |b| {
        b.iter(|| {
            let g = r.get(&ids, &get).expect("get");
            assert!(g.used <= 800);
            g.used
        })
    });
    c.bench_function("open + search (cold reader, in-process)", |b| {
        b.iter(|| {
            let r = Retriever::open(&seg).expect("open");
            r.search(queries[1], &opts).expect("search").hits.len()
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
