//! `search`, `stats` and `eval` on the demo project and small crates.

use predicates::prelude::*;

use super::util::{Env, boxed, refused};

mod words;

/// The README's first command finds the section that answers it, first.
#[test]
fn readme_query_ranks_the_section_first() {
    let env = Env::demo_built();
    let r = env.json(&[
        "search",
        "how is a stale lock detected and broken",
        "-k",
        "3",
    ]);
    assert_eq!(
        r["hits"][0]["title_path"].to_string(),
        r#"["Operations guide","Lock policy","Stale locks","How a stale lock is detected"]"#,
        "{r}"
    );
}

/// The issue's example query; the demo's skill.md quotes it verbatim as an
/// example command, so that chunk may rank first.
#[test]
fn search_finds_stale_lock_policy() {
    let env = Env::demo_built();
    let r = env.json(&["search", "how are stale locks handled", "-k", "5"]);
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    let top = hits
        .iter()
        .take(2)
        .find(|h| h["doc"] != "skill.md")
        .expect("a hit besides skill.md in the top 2");
    assert_eq!(top["doc"], "docs/operations.md");
    assert!(
        top["title_path"].to_string().contains("Stale locks"),
        "{top}"
    );
    for f in [
        "id",
        "doc",
        "title_path",
        "preview",
        "token_est",
        "source_path",
        "lines",
        "score",
    ] {
        assert!(top.get(f).is_some(), "hit misses {f}");
    }
    assert!(
        top["preview"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("stale")
    );
    assert!(top["preview"].as_str().unwrap().chars().count() <= 170);
}

/// The top 3 are the first 3 of the top 10.
#[test]
fn ranking_does_not_depend_on_k() {
    let env = Env::demo_built();
    let ids = |k: &str| -> Vec<String> {
        env.json(&["search", "lock timeout policy", "-k", k, "--no-build"])["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["id"].as_str().unwrap().to_string())
            .collect()
    };
    let top10 = ids("10");
    assert_eq!(ids("3"), top10[..3].to_vec());
}

/// Operators and punctuation are words, never errors.
#[test]
fn hostile_queries_never_error() {
    let env = Env::demo_built();
    for q in [
        "\"unbalanced (( AND : OR NOT",
        "lock:timeout*",
        "?!",
        "-- --",
        "title:(x] AND",
    ] {
        let out = env
            .ctx(&["search", "--no-build", "--", q])
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0) | Some(1)),
            "{q}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Unanswerable questions get an explicit no-evidence answer, exit 1.
#[test]
fn no_evidence() {
    let env = Env::demo_built();
    env.ctx(&["search", "how do I tune the JVM garbage collector heap"])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "No evidence in indexed context.",
        ));
    let r = env.json(&["search", "sourdough starter hydration ratio"]);
    assert_eq!(r["no_evidence"], true);
    assert_eq!(r["hits"].as_array().unwrap().len(), 0);
}

/// A query with no word that can be searched for (stop words, question words,
/// punctuation) has no evidence and says why, so the caller rewords it rather
/// than concluding the docs lack the answer; a real word brings hits back.
#[test]
fn query_without_searchable_words_says_so() {
    let env = Env::demo_built();
    let why = "every word of the query is a stop word, question word or punctuation";
    env.ctx(&["search", "what is it?"])
        .assert()
        .code(1)
        .stdout(predicate::str::starts_with(
            "No evidence in indexed context.",
        ))
        .stderr(predicate::str::contains(format!("note: {why}")));
    let r = env.json(&["search", "to be or not to be"]);
    assert_eq!(r["no_evidence"], true, "{r}");
    assert!(r["note"].as_str().unwrap().starts_with(why), "{r}");
    env.ctx(&["evidence", "what is it"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!("Note: {why}")));
    let e = env.json(&["evidence", "what is it"]);
    assert!(e["note"].as_str().unwrap().starts_with(why), "{e}");

    let r = env.json(&["search", "what is a lock?"]);
    assert_eq!(r["no_evidence"], false, "{r}");
    assert!(r.get("note").is_none(), "{r}");
}

/// A blank query is a usage error that says what to do, not "no evidence";
/// `evidence` says the same.
#[test]
fn empty_query_is_an_error() {
    let env = Env::demo_built();
    for args in [&["search", "  "][..], &["evidence", ""][..]] {
        env.ctx(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("the query is empty"))
            .stderr(predicate::str::contains("ctx search \""));
    }
}

/// Hit and chunk counts outside 1..=100 are refused with the range, not
/// silently clamped.
#[test]
fn counts_out_of_range_are_usage_errors() {
    let env = Env::demo_built();
    env.ctx(&["search", "stale locks", "-k", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("0 is not in 1..=100"));
    env.ctx(&["evidence", "stale locks", "--max-chunks", "500"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("500 is not in 1..=100"));
}

/// `stats` reports counts and sizes.
#[test]
fn stats() {
    let env = Env::demo_built();
    let r = env.json(&["stats"]);
    assert_eq!(r["files"], 9);
    assert!(r["index_bytes"].as_u64().unwrap() > 0);
    assert_eq!(r["vector_cache_bytes"], 0, "nothing re-ranked yet");
}

/// Searches running during builds always get complete answers.
#[test]
fn searches_during_builds_are_complete() {
    let env = Env::demo_built();
    let root = env.path().to_path_buf();
    let writer = std::thread::spawn(move || {
        for i in 0..6 {
            let p = root.join("docs/faq.md");
            let t = std::fs::read_to_string(&p).unwrap();
            std::fs::write(&p, format!("{t}\n\n## Extra {i}\n\nstale lock note {i}\n")).unwrap();
            super::util::ctx()
                .arg("-s")
                .arg(&root)
                .arg("build")
                .assert()
                .success();
        }
    });
    for _ in 0..15 {
        let r = env.json(&["search", "stale lock", "--no-build"]);
        for h in r["hits"].as_array().unwrap() {
            assert!(
                h["id"].is_string() && h["preview"].is_string() && h["lines"].is_array(),
                "{h}"
            );
        }
    }
    writer.join().unwrap();
}

/// A small crate whose test repeats its function's words more often than the
/// function does.
fn crate_with_tests() -> Env {
    let env = Env::empty();
    env.write(
        "src/walk.rs",
        r#"/// Returns an error when a followed symlink points back to an ancestor.
fn check_symlink_loop(child: &Path, ancestors: &[Handle]) -> Result<(), Error> {
    let handle = Handle::from_path(child)?;
    if ancestors.iter().any(|a| *a == handle) {
        return Err(Error::Loop);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn symlink_loop() {
        // a symlink loop: a/b/c points back to a, an ancestor
        let td = tmpdir();
        symlink(td.join("a"), td.join("a/b/c"));
        assert_symlink_loop(td.join("a/b/c"));
    }
}
"#,
    );
    env.write(
        "tests/symlinks.rs",
        "#[test]\nfn symlink_loop_is_reported() {\n    // symlink loop back to an ancestor\n    let symlink = make_symlink_loop();\n    assert!(walk(symlink).is_err());\n}\n",
    );
    env.ctx(&["build"]).assert().success();
    env
}

/// Tests (in `mod tests` and under `tests/`) rank below the code they test.
#[test]
fn implementation_outranks_its_tests() {
    let env = crate_with_tests();
    let r = env.json(&[
        "search",
        "--no-build",
        "-k",
        "3",
        "symlink loop back to an ancestor",
    ]);
    let hits = r["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3, "{r}");
    assert_eq!(hits[0]["symbol"], "check_symlink_loop", "{r}");
}

/// Code abstention looks at the hit's whole file: a question in words the
/// file uses is answered, one whose distinctive words it lacks is not.
#[test]
fn code_abstention_uses_the_file() {
    let env = crate_with_tests();
    let answered = env.json(&[
        "search",
        "--no-build",
        "how does a followed symlink that points back to an ancestor return an error?",
    ]);
    assert_eq!(answered["no_evidence"], false, "{answered}");
    let absent = env.json(&[
        "search",
        "--no-build",
        "compress the symlink with zstd before uploading",
    ]);
    assert_eq!(absent["no_evidence"], true, "{absent}");
}

/// Hits show the text of the last build, in one process, also for a
/// retriever opened before it. The catalog reuses the rowids of dropped
/// pages: below, the page of the deleted `b.md` becomes the new page of
/// `a.md`, whose first section (and ID) did not change, so a page cache that
/// outlived one search would show `b.md`'s text for it.
#[test]
fn hits_show_the_text_of_the_last_build() {
    use ctx::config::Settings;
    use ctx::pipeline::{self, BuildOptions};
    use ctx::retrieve::{Retriever, SearchOptions};
    use ctx::segment::Segment;

    let env = Env::empty();
    let a = |spout: &str| {
        format!("# Kettle\n\n## Stove\n\nThe kettle sits on the stove.\n\n## Spout\n\n{spout}\n")
    };
    env.write("a.md", a("The spout is short."));
    let mut b = String::from("# Notes\n");
    for i in 0..40 {
        b.push_str(&format!(
            "\n## Teapot {i}\n\nThe teapot whistles at boiling point {i}.\n"
        ));
    }
    env.write("b.md", &b);
    let seg = Segment::open(env.path(), "").unwrap();
    let build = || pipeline::build(&seg, &Settings::default(), &BuildOptions::default()).unwrap();
    build();
    let opts = SearchOptions::default();
    let stove = |r: &Retriever| {
        let hits = r.search("kettle stove", &opts).unwrap().hits;
        assert_eq!(
            hits.first().map(|h| h.doc.as_str()),
            Some("a.md"),
            "{hits:?}"
        );
        assert!(
            hits[0].preview.contains("kettle sits on the stove"),
            "{hits:?}"
        );
    };
    let old = Retriever::open(&seg).unwrap();
    assert!(
        !old.search("teapot whistles", &opts)
            .unwrap()
            .hits
            .is_empty()
    );
    stove(&old);

    std::fs::remove_file(env.path().join("b.md")).unwrap();
    build();
    env.write("a.md", a("The spout is long now."));
    build();
    stove(&old);
    stove(&Retriever::open(&seg).unwrap());
}

/// A search's implicit refresh never empties a pack whose sources are all out
/// of reach (unmounted, moved, a pack shipped alone): it searches the pack as
/// built and says why. An explicit build does empty it.
#[test]
fn a_refresh_keeps_the_pack_when_every_source_is_gone() {
    let env = Env::empty();
    env.write(
        "docs/locks.md",
        "# Locks\n\n## Stale locks\n\nA stale lock is broken after the timeout.\n",
    );
    env.ctx(&["build"]).assert().success();
    std::fs::remove_dir_all(env.path().join("docs")).unwrap();
    env.ctx(&["search", "when is a stale lock broken"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Locks > Stale locks"))
        .stderr(predicate::str::contains(format!(
            "warning: no source files under `{}`, but the pack indexes 1 file; it was left as last built. If the sources moved, point -s at them; if they were removed on purpose, `ctx build` empties the pack",
            env.path().display()
        )));
    env.ctx(&["build"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 removed"));
    // Nothing indexed is a wrong directory, not a question the docs miss.
    env.ctx(&["search", "when is a stale lock broken"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("No evidence").not())
        .stderr(predicate::str::contains(format!(
            "error: nothing is indexed in `{}`: it has no Markdown, text or code files ctx reads. Run ctx in your project's directory or pass `-s DIR`",
            env.path().display()
        )));
    let boxed = boxed(
        env.path(),
        "a stale lock was broken at 12:00\n",
        &["--threshold-chars", "5"],
    );
    assert!(boxed.starts_with("internal://"), "{boxed}");
    refused(
        &env,
        &["evidence", "when is a stale lock broken"],
        &["only boxed tool outputs are, which scope relay searches (`--scope relay`)"],
    );
    env.ctx(&["search", "--scope", "relay", "when is a stale lock broken"])
        .assert()
        .success()
        .stdout(predicate::str::contains("stale lock was broken"));
}

/// A `--doc` glob that matches no indexed document is named, with paths that
/// show how globs are written, instead of answering "no evidence".
#[test]
fn a_doc_glob_matching_nothing_is_named() {
    let env = Env::demo_built();
    for cmd in ["search", "evidence"] {
        refused(
            &env,
            &[cmd, "--doc", "doc/**", "stale lock"],
            &[
                "error: no indexed document matches the doc glob `doc/**`; globs match paths relative to the segment root, e.g. `README.md`, `agent.md`, `docs/architecture.md`",
            ],
        );
    }
    env.ctx(&["search", "--doc", "docs/**", "stale lock"])
        .assert()
        .success();
}

/// `ctx eval` on a labelled set: hit@5, recall@5, MRR@10, both abstention
/// rates and tokens-to-evidence, each as its definition gives it for the
/// ranks `search` returns; a malformed line is named.
#[test]
fn eval_metrics_follow_their_definitions() {
    let env = Env::demo_built();
    let query = "how is a stale lock detected and broken";
    let hits = env.json(&["search", query, "-k", "3"]);
    let hits = hits["hits"].as_array().unwrap();
    assert_eq!(hits[0]["doc"], "docs/operations.md");
    let third = &hits[2];
    let tokens = |n: usize| -> f64 {
        hits[..n]
            .iter()
            .map(|h| h["token_est"].as_f64().unwrap())
            .sum()
    };
    let q = |qid: &str, kind: &str, query: &str, targets: serde_json::Value| {
        serde_json::json!({"qid": qid, "query": query, "kind": kind, "targets": targets})
            .to_string()
    };
    let lines = [
        // Found first, by a prefix of the hit's heading path, in other case and markup.
        q(
            "a1",
            "question",
            query,
            serde_json::json!([
            {"doc": "docs/operations.md", "title_path": ["operations GUIDE", "`Lock` policy"]}]),
        ),
        // One target third, one nowhere: recall 1/2, reciprocal rank 1/3.
        q(
            "a2",
            "question",
            query,
            serde_json::json!([
            {"doc": third["doc"], "title_path": third["title_path"]},
            {"doc": "docs/faq.md", "title_path": ["No such heading"]}]),
        ),
        q(
            "u1",
            "none",
            "how do I tune the JVM garbage collector",
            serde_json::json!([]),
        ),
    ];
    let file = env.path().join("q.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let m = env.json(&["eval", file.to_str().unwrap()]);
    assert_eq!(m["queries"], 3, "{m}");
    assert_eq!(m["answerable"], 2, "{m}");
    assert_eq!(m["hit_at_5"], 1.0, "{m}");
    assert_eq!(m["recall_at_5"], 0.75, "{m}");
    assert!(
        (m["mrr_at_10"].as_f64().unwrap() - (1.0 + 1.0 / 3.0) / 2.0).abs() < 1e-9,
        "{m}"
    );
    assert_eq!(m["abstained_on_unanswerable"], 1.0, "{m}");
    assert_eq!(m["abstained_on_answerable"], 0.0, "{m}");
    assert_eq!(
        m["median_tokens_to_evidence"].as_f64().unwrap(),
        (tokens(1) + tokens(3)) / 2.0,
        "{m}"
    );
    // Evidence hit: the `ctx evidence` block of the same query holds a
    // relevant chunk (the first target's section always leads it; the second
    // query's only when its block takes the third hit).
    let ev = env.json(&["evidence", query]);
    let chosen: Vec<&str> = ev["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["id"].as_str())
        .collect();
    assert_eq!(chosen.first(), hits[0]["id"].as_str().as_ref(), "{ev}");
    let second = match chosen.contains(&third["id"].as_str().unwrap()) {
        true => 1.0,
        false => 0.0,
    };
    assert_eq!(m["evidence_hit"], (1.0 + second) / 2.0, "{m}\n{ev}");

    std::fs::write(&file, lines.join("\n") + "\n{\"qid\": 1}\n").unwrap();
    env.ctx(&["eval", file.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "q.jsonl line 4: invalid type: integer `1`, expected a string",
        ));
}

/// One proposal of a templated design-doc corpus: every one has the same
/// sections, and its proposal names the feature as often as the other sections.
fn proposal(n: u32, feature: &str, words: &str) -> String {
    format!(
        "# Proposal {n}: {feature}\n\n## Summary\n\nAdd {feature} to the proxy.\n\n\
         ## Proposal\n\nThe proxy reads the {words} setting, a boolean field of the service, \
         and keeps the service's traffic local.\n\n\
         ## Risks and Mitigations\n\nA service with no local endpoint drops its traffic; \
         the proxy logs a warning for such a service.\n\n\
         ## Upgrade / Downgrade Strategy\n\nAn older proxy ignores the field, and the service's \
         traffic is spread over every node again.\n\n\
         ## Alternatives\n\n### A field per service port\n\nRejected: ports share endpoints.\n\n\
         ### A plain on/off value\n\nA {words} boolean could not grow a third mode later, \
         so the field is an enum.\n"
    )
}

/// A question that asks for a section role in its own words ("why wasn't…",
/// "if I roll back…", "what breaks") ranks the section of that role within the
/// document first, though the topic's words are thicker elsewhere in it; a
/// question without such words still ranks the section about its topic.
#[test]
fn a_question_finds_the_section_role_it_asks_for() {
    let env = Env::empty();
    env.write("p1.md", proposal(1, "Node-local traffic", "node-local"));
    env.write("p2.md", proposal(2, "Zone-aware routing", "zone-aware"));
    env.write("p3.md", proposal(3, "Topology hints", "topology-hint"));
    env.write(
        "glossary.md",
        "# Glossary\n\nTo roll back is to go back to the release before.\n",
    );
    env.ctx(&["build"]).assert().success();
    let top = |q: &str| {
        let r = env.json(&["search", "--no-build", q, "-k", "3"]);
        let hit = &r["hits"][0];
        format!("{} {}", hit["doc"], hit["title_path"])
    };
    assert_eq!(
        top("why wasn't a node-local boolean used for the service?"),
        r#""p1.md" ["Proposal 1: Node-local traffic","Alternatives","A plain on/off value"]"#
    );
    assert_eq!(
        top("if I roll back to an older zone-aware proxy, what happens to the service?"),
        r#""p2.md" ["Proposal 2: Zone-aware routing","Upgrade / Downgrade Strategy"]"#
    );
    assert_eq!(
        top("what breaks for a topology-hint service?"),
        r#""p3.md" ["Proposal 3: Topology hints","Risks and Mitigations"]"#
    );
    assert_eq!(
        top("where is the topology-hint setting of a service read?"),
        r#""p3.md" ["Proposal 3: Topology hints","Proposal"]"#
    );
}

/// A design document's table of contents repeats the headings a keyword query
/// names, but the section it points to is the hit; the contents still count
/// for their document, and are listed below its sections.
#[test]
fn a_table_of_contents_ranks_below_the_sections_it_lists() {
    let env = Env::empty();
    let contents = "## Table of Contents\n\n<!-- toc -->\n\
        - [Summary](#summary)\n\
        - [Proposal](#proposal)\n  \
          - [Specify a gMSA credential spec and RunAsUserName for a pod](#both)\n  \
          - [Specify a gMSA credential spec alone](#alone)\n\
        - [Alternatives](#alternatives)\n<!-- /toc -->\n";
    env.write(
        "windows.md",
        format!(
            "# Windows security options\n\n{contents}\n## Summary\n\nWindows pods get their own options.\n\n\
             ## Proposal\n\n### Specify a gMSA credential spec and RunAsUserName for a pod\n\n\
             Both fields may be set together; the runtime applies the credential spec first.\n\n\
             ### Specify a gMSA credential spec alone\n\nThe pod runs as the container's default user.\n\n\
             ## Alternatives\n\nNone were weighed.\n"
        ),
    );
    env.write(
        "linux.md",
        "# Linux security options\n\n## Summary\n\nA pod sets runAsUser and runAsGroup.\n",
    );
    env.ctx(&["build"]).assert().success();
    let r = env.json(&[
        "search",
        "--no-build",
        "gMSA credential spec with runAsUserName together",
        "-k",
        "6",
    ]);
    let titles: Vec<String> = r["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .map(|h| h["title_path"].to_string())
        .collect();
    assert_eq!(
        titles[0],
        r#"["Windows security options","Proposal","Specify a gMSA credential spec and RunAsUserName for a pod"]"#,
        "{titles:#?}"
    );
    let toc = r#"["Windows security options","Table of Contents"]"#;
    let at = titles.iter().position(|t| t == toc);
    assert!(
        at.is_some_and(|i| i > 1),
        "the contents are listed after the sections: {titles:#?}"
    );
}

/// The note naming query words no text holds names the first eight: a
/// pasted page of unknown words is not echoed back whole.
#[test]
fn the_absent_words_note_names_the_first_few() {
    let env = Env::demo_built();
    let words: Vec<String> = ["a", "b", "c", "d"]
        .iter()
        .flat_map(|x| ["a", "b", "c", "d", "e"].map(|y| format!("zq{x}{y}vx")))
        .collect();
    let out = env
        .ctx(&["search", &format!("stale lock {}", words.join(" "))])
        .output()
        .expect("ctx runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no searched text contains \"zqaavx\" or \"zqabvx\""),
        "{err}"
    );
    assert!(
        err.contains("\"zqbcvx\" (nor 12 more of the query's words)"),
        "{err}"
    );
    assert!(!err.contains("zqbdvx"), "{err}");
}
