//! Unit tests of the token estimator, including its accuracy against o200k.
use super::{Running, estimate};

#[test]
fn empty_is_zero() {
    assert_eq!(estimate(""), 0);
}

#[test]
fn deterministic() {
    let text = "fn main() {\n    println!(\"héllo, 世界 {}\", 42);\n}\n";
    assert_eq!(estimate(text), estimate(text));
    // The same text at another address (no hidden dependence on alignment).
    let copy = text.to_string();
    assert_eq!(estimate(text), estimate(&copy));
}

#[test]
fn never_decreases_as_text_grows() {
    let text = "## Heading\n\nSome prose, with `code`, numbers 123456 and URLs \
                https://example.com/a/b?c=d.\n\n```rust\nfn parse(s: &str) -> Result<u32, Error> {\n\
                \tlet HTTPServer = s.trim();\n}\n```\n\n你好，世界。Ünïcödé — “quoted” 🎉\n";
    let mut previous = 0;
    for (i, _) in text.char_indices().skip(1) {
        let n = estimate(&text[..i]);
        assert!(
            n >= previous,
            "estimate({:?}) = {n} < {previous}",
            &text[..i]
        );
        previous = n;
    }
    assert!(estimate(text) >= previous);
}

#[test]
fn running_count_equals_estimate_of_concatenation() {
    let text = "## Heading\n\nSome prose, with `code`, numbers 123456.\n```rust\nfn parse(s: &str) {\n\
                \tlet HTTPServer = s.trim();\n}\n```\n你好，世界。Ünïcödé — “quoted” 🎉\n";
    // Cut at every char boundary and at every line: the running count sees the
    // same bytes in the same order, so it must agree exactly.
    for (i, _) in text.char_indices() {
        let mut count = Running::default();
        count.push(&text[..i]);
        count.push(&text[i..]);
        assert_eq!(count.value(), estimate(text), "cut at {i}");
    }
    let mut count = Running::default();
    let mut so_far = String::new();
    for line in text.split_inclusive('\n') {
        count.push(line);
        so_far.push_str(line);
        assert_eq!(count.value(), estimate(&so_far));
    }
}

/// The one-pass search ends where checking every char boundary would.
#[test]
fn longest_prefix_within_matches_every_boundary() {
    let text = "## Heading\n\nSome prose, with `code`, numbers 123456.\n你好，世界。Ünïcödé — “quoted” 🎉 and more words";
    for max in 0..=estimate(text) + 1 {
        let expected = text
            .char_indices()
            .map(|(i, _)| i)
            .chain([text.len()])
            .filter(|&i| estimate(&text[..i]) <= max)
            .max()
            .unwrap_or(0);
        assert_eq!(
            super::longest_prefix_within(text, max),
            expected,
            "max {max}"
        );
    }
}

#[test]
fn common_shapes_match_o200k() {
    // Real o200k counts: "hello"," world" / "fn"," main","()"," {}" /
    // "123","456","7" / "   "," let"," x" / "\n\n".
    assert_eq!(estimate("hello world"), 2);
    assert_eq!(estimate("fn main() {}"), 4);
    assert_eq!(estimate("1234567"), 3);
    assert_eq!(estimate("    let x"), 3);
    assert_eq!(estimate("\n\n"), 1);
}

#[test]
fn cjk_costs_about_a_token_per_char() {
    // o200k makes 8 tokens of this 13-char sentence; bytes/4 would say 10, and
    // counting it as ASCII-like words would say 1.
    let zh = "你好，世界。这是一个测试。";
    let n = estimate(zh);
    assert!((6..=12).contains(&n), "{n}");
    let long = zh.repeat(50);
    let per_char = estimate(&long) as f64 / long.chars().count() as f64;
    assert!((0.5..=1.0).contains(&per_char), "{per_char}");
}

#[test]
fn p90_error_within_15_percent_on_rust_book() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/rust-book/src");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("rust-book corpus missing at {}: {e}", dir.display()))
        .map(|e| e.expect("readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 50,
        "rust-book corpus at {} has only {} .md files",
        dir.display(),
        files.len()
    );

    let texts: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("readable corpus file"))
        .collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    // CPU time of this thread (Linux), so a busy machine does not skew the figure.
    let cpu = || {
        let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
        stat.split_whitespace().next()?.parse::<f64>().ok()
    };
    let (wall, cpu_before) = (std::time::Instant::now(), cpu());
    let whole: usize = texts.iter().map(|t| estimate(t)).sum();
    let secs = match cpu_before.zip(cpu()) {
        Some((before, after)) if after > before => (after - before) / 1e9,
        _ => wall.elapsed().as_secs_f64(),
    };
    println!(
        "estimate: {whole} tokens in {bytes} bytes, {:.0} MB/s in this build",
        bytes as f64 / secs / 1e6
    );

    let o200k = bpe_openai::o200k_base();
    let (mut errors, mut est_total, mut real_total) = (Vec::new(), 0, 0);
    for text in &texts {
        for chunk in super::split::chunks(text, true, 2_400) {
            let (est, real) = (estimate(chunk), o200k.count(chunk));
            est_total += est;
            real_total += real;
            // Tiny chunks (a lone heading) make percentages meaningless.
            if real >= 20 {
                errors.push((est as f64 - real as f64).abs() / real as f64);
            }
        }
    }
    assert!(errors.len() >= 500, "only {} chunks", errors.len());
    errors.sort_by(f64::total_cmp);
    let p90 = errors[errors.len() * 9 / 10];
    let bias = est_total as f64 / real_total as f64 - 1.0;
    println!(
        "rust-book: {} chunks, p90 {:.1}%, bias {:+.1}%",
        errors.len(),
        p90 * 100.0,
        bias * 100.0
    );
    assert!(
        p90 <= 0.15,
        "p90 per-chunk error {:.1}% over {} chunks",
        p90 * 100.0,
        errors.len()
    );
    assert!(
        bias.abs() <= 0.05,
        "whole-corpus bias {:+.1}%",
        bias * 100.0
    );
}
