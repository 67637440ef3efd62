//! `get` and `evidence` within a budget: what is printed (the lines naming
//! the chunks included) fits it, an excerpt is useful or left out and named,
//! a query never makes an excerpt show less of it, a raw file over the
//! budget is cut to its first lines, and no hint names a budget over the cap.

use super::util::{Env, refused};
use ctx::tokens::estimate;

/// Runs `ctx args…` and returns its stdout and stderr; it must succeed.
fn run(env: &Env, args: &[&str]) -> (String, String) {
    let out = env.ctx(args).output().expect("run ctx");
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    let stderr = String::from_utf8(out.stderr).expect("utf8");
    assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    (stdout, stderr)
}

/// The printed chunks of a `get` answer: stdout without its `omitted` lines.
fn shown(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.starts_with("omitted "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Thirty short sections, as the tester's `guide.md`.
fn guide(env: &Env) {
    let mut doc = String::from("# Guide\n\n");
    for i in 0..30 {
        doc.push_str(&format!(
            "## Topic {i}\n\nThis section explains topic number {i} in a few plain sentences.\n\n"
        ));
    }
    env.write("guide.md", doc);
    env.ctx(&["build", "-q"]).assert().success();
}

/// Six paragraphs of sixty words drawn from a small vocabulary (a fixed
/// generator), each one long line, under one heading: the query's words
/// are in most paragraphs, far from where the lines start. `seed` varies
/// the words.
fn big_doc(seed: u64) -> String {
    let words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi \
                 omicron pi rho sigma tau upsilon phi chi psi omega lock stale timeout \
                 retry server client cache"
        .split(' ')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>();
    let mut state: u64 = seed;
    let mut next = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        words[(state >> 33) as usize % words.len()]
    };
    let mut doc = String::from("# Big Doc\n\n## Section 0 about alpha\n\n");
    for _ in 0..6 {
        let line: Vec<&str> = (0..60).map(|_| next()).collect();
        doc.push_str(&line.join(" "));
        doc.push_str("\n\n");
    }
    doc
}

/// A file's excerpts fit the budget with the lines naming them, and the
/// chunks that cannot get a useful excerpt are named as omitted instead of
/// printed as one-character slivers.
#[test]
fn excerpts_of_a_file_are_useful_or_omitted() {
    let env = Env::empty();
    guide(&env);
    for budget in [50, 120, 400] {
        let b = budget.to_string();
        let args = ["get", "guide.md", "--mode", "excerpt", "--budget", &b];
        let (stdout, stderr) = run(&env, &args);
        let printed = shown(&stdout);
        assert!(estimate(&printed) <= budget, "{budget}: {stdout}");
        // Every section shown is shown whole: its sentence, not `#…`.
        for body in printed.split("\n[guide:").skip(1) {
            assert!(body.contains("in a few plain sentences."), "{stdout}");
        }
        assert!(
            stdout.contains("chunks of guide.md (lines "),
            "{budget}: {stdout}"
        );
        assert!(
            stderr.contains(" did not fit; raise --budget to "),
            "{stderr}"
        );
        let r = env.json(&args);
        let sum: u64 = r["chunks"]
            .as_array()
            .expect("chunks")
            .iter()
            .map(|c| c["token_est"].as_u64().expect("token_est"))
            .sum();
        assert_eq!(r["used"].as_u64(), Some(sum), "{r}");
        assert!(sum <= budget as u64, "{r}");
    }
    // 400 tokens hold the first sections; they are the file's beginning.
    let r = env.json(&["get", "guide.md", "--mode", "excerpt", "--budget", "400"]);
    assert_eq!(r["chunks"][1]["title_path"][1], "Topic 1", "{r}");
}

/// With --query, an excerpt whose best window does not fit shrinks it to
/// the words around the match, so it never shows less of the query than
/// the same budget without --query; evidence too.
#[test]
fn a_query_never_shows_less_of_itself() {
    let env = Env::empty();
    env.write("big.md", big_doc(1));
    env.ctx(&["build", "-q"]).assert().success();
    let count = |text: &str| text.matches("stale").count() + text.matches("lock").count();
    for budget in [60, 90, 120, 139, 200] {
        let b = budget.to_string();
        let plain = ["get", "big.md", "--mode", "excerpt", "--budget", &b];
        let (without, _) = run(&env, &plain);
        let mut args = plain.to_vec();
        args.extend(["--query", "stale lock"]);
        let (with, _) = run(&env, &args);
        assert!(estimate(&shown(&with)) <= budget, "{budget}: {with}");
        assert!(
            count(&with) >= count(&without).max(1),
            "{budget}:\n{with}\n{without}"
        );
    }
    let mut doc = String::from("# Runbook\n\n");
    for s in 0..8 {
        let body = big_doc(s + 2).replace("# Big Doc\n\n## Section 0 about alpha", "");
        doc.push_str(&format!("## Section {s}\n{body}"));
    }
    env.write("runbook.md", doc);
    env.ctx(&["build", "-q"]).assert().success();
    let args = [
        "evidence",
        "stale lock timeout",
        "--budget",
        "100",
        "--doc",
        "runbook.md",
    ];
    let (stdout, _) = run(&env, &args);
    assert!(estimate(&shown(&stdout)) <= 100, "{stdout}");
    assert!(count(&stdout) >= 2, "{stdout}");
    let r = env.json(&args);
    assert!(r["used"].as_u64().expect("used") <= 100, "{r}");
}

/// A raw file over the budget is cut to its first lines, with fences kept
/// balanced, marked, and a hint; a file whose first line is over the budget
/// is refused, naming the budget that shows it.
#[test]
fn a_raw_file_over_the_budget_is_cut_to_its_first_lines() {
    let env = Env::empty();
    let steps: String = (0..80).map(|i| format!("echo step {i}\n")).collect();
    env.write(
        "setup.md",
        format!("# Setup\n\nRun these:\n\n```sh\n{steps}```\n"),
    );
    env.write("big.md", big_doc(1));
    env.ctx(&["build", "-q"]).assert().success();
    let (stdout, stderr) = run(&env, &["get", "setup.md", "--budget", "100"]);
    assert!(estimate(&shown(&stdout)) <= 100, "{stdout}");
    assert!(
        stdout.contains("Run these:\n\n```sh\necho step 0\n"),
        "{stdout}"
    );
    assert!(stdout.ends_with("```\n[…]\n"), "{stdout}");
    assert_eq!(stdout.matches("```").count(), 2, "{stdout}");
    assert!(
        stderr.contains("hint: `setup.md` is cut after line ")
            && stderr.contains(" to fit; raise --budget to "),
        "{stderr}"
    );
    let r = env.json(&["get", "setup.md", "--budget", "100"]);
    assert_eq!(r["chunks"][0]["trimmed"], true, "{r}");
    // Not even the heading and its first paragraph line fit.
    refused(
        &env,
        &["get", "big.md", "--budget", "30"],
        &[
            "error: `big.md`: not even its first line fits the budget of 30 tokens as raw text; raise --budget to ",
            ", or use --mode excerpt or --mode skeleton",
        ],
    );
}

/// Every `--budget N` a hint names is within the cap; past it, hints say
/// the cap stops it and name `max_budget`.
#[test]
fn hints_never_name_a_budget_over_the_cap() {
    let env = Env::empty();
    guide(&env);
    env.write(
        "one-line.md",
        format!("# One\n\n{}\n", "word ".repeat(4000)),
    );
    env.write("_ctx/ctx.toml", "max_budget = 100\n");
    env.ctx(&["build", "-q"]).assert().success();
    let named = |stderr: &str| -> Vec<usize> {
        stderr
            .split("--budget ")
            .skip(1)
            .filter_map(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .collect()
    };
    for args in [
        &["get", "guide.md", "--budget", "999999"][..],
        &["get", "guide.md", "--mode", "excerpt"],
        &["get", "guide.md", "--mode", "skeleton", "--budget", "40"],
        &["get", "one-line.md", "--budget", "90"],
        &["evidence", "topic number sentences"],
    ] {
        let out = env.ctx(args).output().expect("run ctx");
        let stderr = String::from_utf8(out.stderr).expect("utf8");
        assert!(
            named(&stderr).iter().all(|&n| n <= 100),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("over the cap of 100 (max_budget in _ctx/ctx.toml)"),
            "{args:?}: {stderr}"
        );
    }
}
