//! `ctx::tokens::estimate`: throughput, and accuracy against the real o200k tokenizer.
//!
//! `cargo bench --bench tokens` first prints, once and outside any timed loop, the
//! per-chunk error of the estimator and of the chars/4 baseline on the held-out
//! (odd-numbered) files of each corpus, and asserts the estimator is still accurate;
//! then criterion times `estimate` over the k8s corpus (MB/s).
//!
//! `CTX_TOKENS_FIT=1 cargo bench --bench tokens` also refits the estimator's costs on
//! the even-numbered files and prints them, ready to paste into `COST` in
//! `src/tokens.rs`, with the held-out table the refit would give.
//!
//! Corpora: `../shared/corpora` (rust-book, k8s-enhancements; required), the Rust
//! sources of a few dependencies in the cargo registry, the Python standard library,
//! and the translated Rust by Example shipped with rustup's docs (each optional: skipped
//! with a note where the machine lacks it).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The estimator's source again, for replaying the automaton during a refit (its unit
/// tests compile here too, unused).
#[allow(dead_code, unused_imports)]
#[path = "../src/tokens.rs"]
mod model;

/// The chunk splitting the unit test's accuracy check uses too. When this target
/// is checked as a test, `model` holds a second copy (for its unit tests).
#[allow(clippy::duplicate_mod)]
#[path = "../src/tokens/split.rs"]
mod split;

/// Chunks larger than this are split at blank lines (ctx's chunks are ≤ 600 tokens).
const MAX_CHUNK_BYTES: usize = 2_400;
/// Chunks with fewer real tokens are left out of the error statistics: one token off
/// on a 5-token heading is 20 %, which says nothing about the estimator.
const MIN_TOKENS: usize = 20;
/// What the issue asks for, per chunk (p90) and over a whole corpus.
const LIMIT: f64 = 0.15;

struct Corpus {
    name: &'static str,
    markdown: bool,
    /// Sorted by path; even indices calibrate, odd ones are held out.
    files: Vec<String>,
}

/// The files' contents, sorted by path; files that are not UTF-8 text are skipped.
fn read_sorted(mut paths: Vec<PathBuf>) -> Vec<String> {
    paths.sort();
    paths
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

/// Files under `dir` (recursively) whose name ends with `suffix`. Symlinks are skipped:
/// k8s-enhancements links some files twice.
fn walk(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            walk(&path, suffix, out);
        } else if kind.is_file() && path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
}

fn required_corpus(name: &'static str, dir: &Path) -> Corpus {
    let mut paths = Vec::new();
    walk(dir, ".md", &mut paths);
    assert!(
        !paths.is_empty(),
        "corpus {name} missing: no Markdown under {} (the shared/ directory must sit beside \
         the repository)",
        dir.display()
    );
    Corpus {
        name,
        markdown: true,
        files: read_sorted(paths),
    }
}

/// Rust sources of dependencies (exact versions from Cargo.lock) in the cargo registry.
fn rust_code() -> Vec<PathBuf> {
    const CRATES: [&str; 6] = [
        "ignore-0.4.34",
        "regex-1.13.1",
        "regex-automata-0.4.18",
        "tantivy-0.27.0",
        "clap_builder-4.6.7",
        "serde_json-1.0.154",
    ];
    let cargo_home =
        std::env::var_os("CARGO_HOME").map_or_else(|| home().join(".cargo"), PathBuf::from);
    let mut paths = Vec::new();
    if let Some(registry) = sorted_dirs(&cargo_home.join("registry/src")).first() {
        for krate in CRATES {
            walk(&registry.join(krate).join("src"), ".rs", &mut paths);
        }
    }
    paths
}

/// Top-level modules of a Python 3 standard library (pyenv's, else the system's).
fn python_code() -> Vec<PathBuf> {
    let mut libs: Vec<PathBuf> = sorted_dirs(&home().join(".pyenv/versions"))
        .iter()
        .flat_map(|v| sorted_dirs(&v.join("lib")))
        .chain(sorted_dirs(Path::new("/usr/lib")))
        .filter(|d| d.to_string_lossy().contains("python3") && d.join("os.py").is_file())
        .collect();
    libs.truncate(1);
    libs.iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "py") && p.is_file())
        .collect()
}

/// Japanese, Chinese, Korean and Spanish Rust by Example from rustup's docs, as text.
fn multilingual() -> Vec<String> {
    let rustup =
        std::env::var_os("RUSTUP_HOME").map_or_else(|| home().join(".rustup"), PathBuf::from);
    let mut toolchains = sorted_dirs(&rustup.join("toolchains"));
    // Prefer stable's copy: its translations change least often.
    toolchains.sort_by_key(|t| !t.to_string_lossy().contains("stable"));
    let Some(rbe) = toolchains
        .iter()
        .map(|t| t.join("share/doc/rust/html/rust-by-example"))
        .find(|d| d.join("ja").is_dir())
    else {
        return Vec::new();
    };
    let mut paths = Vec::new();
    for lang in ["ja", "zh", "ko", "es"] {
        walk(&rbe.join(lang), ".html", &mut paths);
    }
    paths.retain(|p| !p.ends_with("print.html") && !p.ends_with("toc.html"));
    read_sorted(paths)
        .iter()
        .filter_map(|html| html_main_text(html))
        .collect()
}

/// The text of an mdBook page's `<main>`: tags dropped, common entities decoded.
fn html_main_text(html: &str) -> Option<String> {
    let body = &html[html.find("<main>")? + 6..html.find("</main>")?];
    let mut text = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(lt) = rest.find('<') {
        text.push_str(&rest[..lt]);
        rest = rest[lt..].find('>').map_or("", |gt| &rest[lt + gt + 1..]);
    }
    text.push_str(rest);
    for (entity, ch) in [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&#x27;", "'"),
        ("&nbsp;", "\u{a0}"),
        ("&amp;", "&"),
    ] {
        text = text.replace(entity, ch);
    }
    while text.contains("\n\n\n") {
        text = text.replace("\n\n\n", "\n\n");
    }
    Some(text)
}

fn corpora() -> Vec<Corpus> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let mut all = vec![
        required_corpus("rust-book", &root.join("rust-book/src")),
        required_corpus("k8s", &root.join("k8s-enhancements")),
    ];
    for (name, markdown, files) in [
        ("rust-code", false, read_sorted(rust_code())),
        ("python", false, read_sorted(python_code())),
        ("multilingual", true, multilingual()),
    ] {
        if files.is_empty() {
            println!("(corpus {name} not found on this machine: skipped)");
        } else {
            all.push(Corpus {
                name,
                markdown,
                files,
            });
        }
    }
    all
}

// ---- accuracy -----------------------------------------------------------------------

struct Sample<'a> {
    corpus: usize,
    held_out: bool,
    text: &'a str,
    real: usize,
}

fn samples(corpora: &[Corpus]) -> Vec<Sample<'_>> {
    let o200k = bpe_openai::o200k_base();
    let mut out = Vec::new();
    let (mut bytes, started) = (0, Instant::now());
    for (ci, corpus) in corpora.iter().enumerate() {
        for (fi, file) in corpus.files.iter().enumerate() {
            for text in split::chunks(file, corpus.markdown, MAX_CHUNK_BYTES) {
                bytes += text.len();
                out.push(Sample {
                    corpus: ci,
                    held_out: fi % 2 == 1,
                    text,
                    real: o200k.count(text),
                });
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "exact o200k count (bpe-openai): {:.0} MB in {secs:.1} s, {:.0} MB/s",
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 / secs
    );
    out
}

struct Stats {
    scored: usize,
    small: usize,
    mean: f64,
    p50: f64,
    p90: f64,
    bias: f64,
}

/// Error statistics over `(real, estimated)` token counts of chunks.
fn stats(pairs: impl Iterator<Item = (usize, f64)>) -> Stats {
    let (mut errors, mut small, mut est_total, mut real_total) = (Vec::new(), 0, 0.0, 0.0);
    for (real, est) in pairs {
        est_total += est;
        real_total += real as f64;
        if real < MIN_TOKENS {
            small += 1;
        } else {
            errors.push(((est - real as f64) / real as f64).abs());
        }
    }
    assert!(!errors.is_empty(), "no chunk with {MIN_TOKENS}+ tokens");
    errors.sort_by(f64::total_cmp);
    let quantile = |q: f64| errors[((errors.len() as f64 * q) as usize).min(errors.len() - 1)];
    Stats {
        scored: errors.len(),
        small,
        mean: errors.iter().sum::<f64>() / errors.len() as f64,
        p50: quantile(0.5),
        p90: quantile(0.9),
        bias: est_total / real_total - 1.0,
    }
}

/// Prints the held-out table for `estimates` (one per sample) beside chars/4, and
/// returns each corpus's stats for `estimates`.
fn report(corpora: &[Corpus], samples: &[Sample], estimates: &[f64]) -> Vec<Stats> {
    println!(
        "{:<13} {:>6} {:>6} | {:>27} | {:>27}",
        "held-out", "chunks", "<20tok", "estimate: mean p50 p90 bias", "chars/4: mean p50 p90 bias"
    );
    let pct = |x: f64| format!("{:.1}%", x * 100.0);
    let signed = |x: f64| format!("{:+.1}%", x * 100.0);
    let mut out = Vec::new();
    for (ci, corpus) in corpora.iter().enumerate() {
        let held_out =
            || (0..samples.len()).filter(move |&i| samples[i].corpus == ci && samples[i].held_out);
        let e = stats(held_out().map(|i| (samples[i].real, estimates[i])));
        let b = stats(held_out().map(|i| {
            (
                samples[i].real,
                samples[i].text.chars().count().div_ceil(4) as f64,
            )
        }));
        println!(
            "{:<13} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6} | {:>6} {:>6} {:>6} {:>6}",
            corpus.name,
            e.scored,
            e.small,
            pct(e.mean),
            pct(e.p50),
            pct(e.p90),
            signed(e.bias),
            pct(b.mean),
            pct(b.p50),
            pct(b.p90),
            signed(b.bias),
        );
        out.push(e);
    }
    out
}

// ---- calibration (CTX_TOKENS_FIT=1) -------------------------------------------------

/// How often `text` pays each cost parameter.
fn features(text: &str) -> Vec<f64> {
    let mut counts = vec![0.0; model::N_PARAMS];
    let mut state = 0;
    for &b in text.as_bytes() {
        let (next, params) = model::step(state, model::class_of(b));
        for p in params.into_iter().filter(|&p| p != model::NONE) {
            counts[p as usize] += 1.0;
        }
        state = next;
    }
    counts
}

fn param_names() -> Vec<String> {
    let mut names = vec![String::new(); model::N_PARAMS];
    for k in 0..3 {
        names[model::WORD_FIRST + k] = format!("WORD_FIRST + {k}");
        names[model::WORD_MID + k] = format!("WORD_MID + {k}");
        names[model::WORD_LONG + k] = format!("WORD_LONG + {k}");
    }
    for k in 0..2 {
        names[model::PUNCT_FIRST + k] = format!("PUNCT_FIRST + {k}");
        names[model::PUNCT_THIRD + k] = format!("PUNCT_THIRD + {k}");
        names[model::PUNCT_LONG + k] = format!("PUNCT_LONG + {k}");
    }
    for (i, name) in [
        (model::UPPER_RUN, "UPPER_RUN"),
        (model::NA_L2, "NA_L2"),
        (model::NA_L3, "NA_L3"),
        (model::NA_CJK, "NA_CJK"),
        (model::NA_ASCII, "NA_ASCII"),
        (model::DIGITS, "DIGITS"),
        (model::SPACE_ALONE, "SPACE_ALONE"),
        (model::SPACE_RUN, "SPACE_RUN"),
        (model::NL_FIRST, "NL_FIRST"),
        (model::NL_MORE, "NL_MORE"),
        (model::NL_AFTER_SPACE, "NL_AFTER_SPACE"),
        (model::PUNCT_NL_MORE, "PUNCT_NL_MORE"),
        (model::SYM_2, "SYM_2"),
        (model::SYM_3, "SYM_3"),
        (model::SYM_4, "SYM_4"),
    ] {
        names[i] = name.to_string();
    }
    names
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for i in 0..n {
        let pivot = (i..n)
            .max_by(|&x, &y| a[x][i].abs().total_cmp(&a[y][i].abs()))
            .unwrap_or(i);
        a.swap(i, pivot);
        b.swap(i, pivot);
        let (upper, lower) = a.split_at_mut(i + 1);
        let pivot_row = &upper[i];
        for (k, row) in lower.iter_mut().enumerate() {
            let m = row[i] / pivot_row[i];
            for (x, p) in row[i..].iter_mut().zip(&pivot_row[i..]) {
                *x -= m * p;
            }
            b[i + 1 + k] -= m * b[i];
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        x[i] = (b[i] - (i + 1..n).map(|c| a[i][c] * x[c]).sum::<f64>()) / a[i][i];
    }
    x
}

/// Least squares on the relative error of each calibration chunk, every corpus weighted
/// equally (the multilingual one half: it mostly pins the non-ASCII costs), with a light
/// ridge pull toward the current costs so rarely paid parameters stay put, and costs
/// kept ≥ 0 (a negative one is fixed at 0 and the rest refitted) so that the estimate
/// never decreases as text grows.
fn fit(corpora: &[Corpus], samples: &[Sample], features: &[Vec<f64>]) -> Vec<f64> {
    let n = model::N_PARAMS;
    let mut per_corpus = vec![0usize; corpora.len()];
    for s in samples
        .iter()
        .filter(|s| !s.held_out && s.real >= MIN_TOKENS)
    {
        per_corpus[s.corpus] += 1;
    }
    let (mut a, mut b) = (vec![vec![0.0; n]; n], vec![0.0; n]);
    for (s, f) in samples.iter().zip(features) {
        if s.held_out || s.real < MIN_TOKENS {
            continue;
        }
        let corpus_weight = if corpora[s.corpus].name == "multilingual" {
            0.5
        } else {
            1.0
        };
        let real = s.real as f64;
        let weight = corpus_weight / per_corpus[s.corpus] as f64 / (real * real);
        for i in (0..n).filter(|&i| f[i] != 0.0) {
            b[i] += weight * f[i] * real;
            for j in 0..n {
                a[i][j] += weight * f[i] * f[j];
            }
        }
    }
    let ridge = 1e-3 * (0..n).map(|i| a[i][i]).sum::<f64>() / n as f64;
    for i in 0..n {
        a[i][i] += ridge;
        b[i] += ridge * model::COST[i];
    }
    let mut zero = vec![false; n];
    loop {
        let (mut a2, mut b2) = (a.clone(), b.clone());
        // A parameter fixed at zero: its equation becomes x_i = 0, its column goes.
        for i in (0..n).filter(|&i| zero[i]) {
            a2[i].fill(0.0);
            for row in &mut a2 {
                row[i] = 0.0;
            }
            a2[i][i] = 1.0;
            b2[i] = 0.0;
        }
        let x = solve(a2, b2);
        let negative: Vec<usize> = (0..n).filter(|&i| x[i] < 0.0).collect();
        if negative.is_empty() {
            return x;
        }
        for i in negative {
            zero[i] = true;
        }
    }
}

// ---- throughput ----------------------------------------------------------------------

/// This thread's CPU time so far, from Linux's `/proc/thread-self/schedstat`.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        stat.split_whitespace().next()?.parse().ok()?,
    ))
}

/// Prints throughput per second of CPU time besides wall time: on a shared 2-core machine
/// criterion's wall-clock figure mostly measures the other processes.
fn cpu_throughput(files: &[String], bytes: usize) {
    let passes = 5;
    let (wall, cpu) = (Instant::now(), thread_cpu_time());
    let tokens: usize = (0..passes)
        .flat_map(|_| files.iter())
        .map(|f| ctx::tokens::estimate(black_box(f)))
        .sum();
    let wall = wall.elapsed().as_secs_f64();
    let mb = (bytes * passes) as f64 / 1e6;
    assert!(
        tokens > bytes * passes / 8,
        "estimate counted {tokens} tokens: measuring nothing?"
    );
    match cpu.zip(thread_cpu_time()) {
        Some((before, after)) => println!(
            "estimate over k8s: {:.0} MB/s of CPU time ({:.0} MB/s wall)",
            mb / (after - before).as_secs_f64(),
            mb / wall
        ),
        None => println!("estimate over k8s: {:.0} MB/s wall", mb / wall),
    }
}

// ---- the bench ----------------------------------------------------------------------

fn tokens(c: &mut Criterion) {
    let corpora = corpora();
    let samples = samples(&corpora);

    println!(
        "\nper-chunk |estimate − o200k| / o200k on held-out files (≤ {MAX_CHUNK_BYTES} B chunks):"
    );
    let estimates: Vec<f64> = samples
        .iter()
        .map(|s| ctx::tokens::estimate(s.text) as f64)
        .collect();
    let measured = report(&corpora, &samples, &estimates);
    for (corpus, st) in corpora.iter().zip(&measured) {
        assert!(
            st.p90 <= LIMIT,
            "{}: p90 error {:.1}% exceeds 15%",
            corpus.name,
            st.p90 * 100.0
        );
        assert!(
            st.bias.abs() <= LIMIT,
            "{}: total off by {:+.1}%",
            corpus.name,
            st.bias * 100.0
        );
    }

    if std::env::var_os("CTX_TOKENS_FIT").is_some() {
        let features: Vec<Vec<f64>> = samples.iter().map(|s| features(s.text)).collect();
        let cost = fit(&corpora, &samples, &features);
        println!("\nrefitted costs (even files):");
        for (name, value) in param_names().iter().zip(&cost) {
            println!("    c[{name}] = {value:.3};");
        }
        println!("held-out error with the refitted costs:");
        let refitted: Vec<f64> = features
            .iter()
            .map(|f| f.iter().zip(&cost).map(|(f, c)| f * c).sum())
            .collect();
        report(&corpora, &samples, &refitted);
    }
    println!();

    let k8s = &corpora[1].files;
    let bytes: usize = k8s.iter().map(String::len).sum();
    cpu_throughput(k8s, bytes);
    let mut group = c.benchmark_group("tokens");
    group.throughput(Throughput::BytesDecimal(bytes as u64));
    group.bench_function("estimate/k8s-enhancements", |b| {
        b.iter(|| {
            k8s.iter()
                .map(|f| ctx::tokens::estimate(black_box(f)))
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = tokens
}
criterion_main!(benches);
