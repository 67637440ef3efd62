//! `get` and `evidence` on the demo project: budgets, stale IDs, trimmed views.

use predicates::prelude::*;

use super::util::{Env, refused, strings};

/// `get` respects the budget and names what does not fit.
#[test]
fn get_within_budget() {
    let env = Env::demo_built();
    let hits = env.json(&["search", "stale locks", "-k", "4"]);
    let ids: Vec<String> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect();
    let mut args = vec!["get", "--mode", "raw", "--budget", "250"];
    args.extend(ids.iter().map(String::as_str));
    let r = env.json(&args);
    let used = returned_tokens(&r);
    assert!(used <= 250, "{used}");
    assert_eq!(r["used"], used);
    if !r["omitted"].as_array().unwrap().is_empty() {
        assert!(
            r["hint"]
                .as_str()
                .unwrap()
                .contains("did not fit; raise --budget to")
        );
    }
    let mut args = vec![
        "get", "--mode", "excerpt", "--budget", "120", "--query", "stale",
    ];
    args.extend(ids.iter().map(String::as_str));
    let r = env.json(&args);
    let used = returned_tokens(&r);
    assert!(used <= 120, "{used}");
    let r = env.json(&["get", "--budget", "999999", &ids[0]]);
    assert_eq!(r["budget"]["clamped"], true);
    assert!(
        r["hint"]
            .as_str()
            .unwrap()
            .contains("is over the cap of 16000")
    );
    // evidence clamps the same way and says so, in JSON and on stderr.
    let r = env.json(&["evidence", "--budget", "999999", "stale locks"]);
    assert_eq!(r["budget"]["clamped"], true);
    assert_eq!(r["budget"]["applied"], 16000);
    assert_eq!(
        r["hint"],
        "budget 999999 is over the cap of 16000 (max_budget in _ctx/ctx.toml); clamped"
    );
    env.ctx(&["evidence", "--budget", "999999", "stale locks"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("EVIDENCE (read-only)"))
        .stderr(predicate::str::contains(
            "hint: budget 999999 is over the cap of 16000",
        ));
    let r = env.json(&["evidence", "--budget", "900", "stale locks"]);
    assert_eq!(r["budget"]["clamped"], false);
    assert!(r.get("hint").is_none(), "{r}");
    // A budget of 0 fits nothing; it is refused, not answered with nothing.
    for args in [
        &["get", "--budget", "0", &ids[0]][..],
        &["evidence", "--budget", "0", "stale lock"],
    ] {
        refused(
            &env,
            args,
            &[
                "error: the budget is 0 tokens, which nothing fits: give a positive budget (e.g. 800), or leave it out for the default",
            ],
        );
    }
}

/// A stale ID points to the chunk now at the same heading path.
#[test]
fn stale_id_redirects() {
    let env = Env::demo_built();
    let r = env.json(&["search", "stale locks detected", "-k", "1"]);
    let id = r["hits"][0]["id"].as_str().unwrap().to_string();
    let ops = env.path().join("docs/operations.md");
    let text = std::fs::read_to_string(&ops).unwrap();
    std::fs::write(
        &ops,
        text.replacen("A lock counts as stale", "A lock is considered stale", 1),
    )
    .unwrap();
    let r = env.json(&["get", &id]);
    assert_eq!(r["chunks"][0]["replaces"], id.as_str());
    assert_ne!(r["chunks"][0]["id"], id.as_str());
}

/// Evidence is one block with IDs and line ranges, within the budget.
#[test]
fn evidence_block() {
    let env = Env::demo_built();
    let out = env
        .ctx(&["evidence", "lock timeout policy", "--budget", "600"])
        .assert()
        .success()
        .get_output()
        .clone();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with("EVIDENCE (read-only)\n"), "{s}");
    assert!(s.contains("[operations:"), "{s}");
    let r = env.json(&["evidence", "lock timeout policy", "--budget", "600"]);
    assert!(r["used"].as_u64().unwrap() <= 600);
}

/// Excerpts, skeletons and evidence leave out HTML comments (template
/// instructions nobody sees rendered); raw keeps the text exact.
#[test]
fn trimmed_views_drop_html_comments() {
    let env = Env::empty();
    env.write(
        "kep.md",
        "# Pod resize\n\n## Goals\n\n<!--\nList the specific goals of the KEP. What is it trying to achieve?\n-->\n\n\
         * Resize CPU limits in place without restarting the container.\n\n\
         ```html\n<!-- markup kept in code -->\n```\n",
    );
    let r = env.json(&["search", "resize cpu limits in place", "-k", "1"]);
    let id = r["hits"][0]["id"].as_str().unwrap().to_string();
    // Comment words are still searchable; the preview shows the rendered text.
    let r = env.json(&["search", "what is the KEP trying to achieve", "-k", "1"]);
    let preview = r["hits"][0]["preview"].as_str().unwrap();
    assert!(
        !preview.contains("specific goals") && !preview.contains("trying"),
        "{preview}"
    );
    let text = |mode: &str| {
        let r = env.json(&["get", "--mode", mode, &id]);
        r["chunks"][0]["text"].as_str().unwrap().to_string()
    };
    let raw = text("raw");
    assert!(raw.contains("List the specific goals"), "{raw}");
    for mode in ["excerpt", "skeleton"] {
        let t = text(mode);
        assert!(!t.contains("specific goals"), "{mode}: {t}");
        assert!(t.contains("Resize CPU limits"), "{mode}: {t}");
    }
    assert!(text("excerpt").contains("<!-- markup kept in code -->"));
    let out = env
        .ctx(&["evidence", "resize cpu limits in place"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.contains("Resize CPU limits") && !out.contains("specific goals"),
        "{out}"
    );
}

/// The token estimates of the chunks a `get --json` answer `r` returned, summed.
fn returned_tokens(r: &serde_json::Value) -> u64 {
    r["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["token_est"].as_u64().unwrap())
        .sum()
}

/// Excerpts of a whole file for a query give the budget to the sections that
/// hold the query's words: the one section about it shows the lines that say
/// so, the others their heading and first words, and all within the budget.
#[test]
fn excerpts_for_a_query_go_to_the_sections_that_hold_it() {
    let env = Env::empty();
    let mut doc = String::from("# Guide\n\n");
    for (i, topic) in ["Install", "Configure", "Upgrade", "Backups", "Logging"]
        .iter()
        .enumerate()
    {
        doc.push_str(&format!("## {topic}\n\n"));
        for line in 0..30 {
            doc.push_str(&format!(
                "Step {line} of the {topic} chapter explains one more detail at length.\n"
            ));
            if i == 3 && line == 20 {
                doc.push_str("A snapshot is rotated after seven days by the retention sweeper.\n");
            }
        }
        doc.push('\n');
    }
    env.write("guide.md", &doc);
    env.ctx(&["build", "-q"]).assert().success();
    let got = env.json(&[
        "get",
        "guide.md",
        "--mode",
        "excerpt",
        "--query",
        "snapshot retention",
        "--budget",
        "300",
    ]);
    assert!(got["used"].as_u64().expect("used") <= 300, "{got}");
    let chunks = got["chunks"].as_array().expect("chunks");
    let backups = chunks
        .iter()
        .find(|c| c["title_path"][1] == "Backups")
        .expect("the Backups section is shown");
    let text = backups["text"].as_str().expect("text");
    assert!(text.contains("retention sweeper"), "{text}");
    // The others get their heading and first words, at most 32 tokens of
    // text (`token_est` also counts the line naming the chunk).
    for other in chunks.iter().filter(|c| c["title_path"][1] != "Backups") {
        let text = other["text"].as_str().expect("text");
        assert!(ctx::tokens::estimate(text) <= 32, "{other}");
    }
}

/// A file with lines, as `search` prints a hit's place (`docs/a.md:5-9`),
/// gets the chunks holding those lines: the hit itself, the one section
/// holding a single line, or the sections a range spans, in order. Lines
/// that cannot be the file's are refused with the reason. A chunk asked for
/// twice comes once.
#[test]
fn a_file_with_lines_gets_the_chunks_holding_them() {
    let env = Env::empty();
    env.write(
        "docs/a.md",
        "# Guide\n\nIntro about pelicans.\n\n## Install\n\nRun the installer.\nThen check the version.\n\n## Remove\n\nRun the uninstaller.\n",
    );
    env.ctx(&["build", "-q"]).assert().success();
    let hits = env.json(&["search", "installer version", "-k", "1"]);
    let hit = &hits["hits"][0];
    let place = format!(
        "{}:{}-{}",
        hit["doc"].as_str().expect("doc"),
        hit["lines"][0],
        hit["lines"][1]
    );
    assert_eq!(place, "docs/a.md:5-9", "{hit}");
    let titles = |item: &str| -> Vec<String> {
        let r = env.json(&["get", item]);
        r["chunks"]
            .as_array()
            .expect("chunks")
            .iter()
            .map(|c| {
                c["title_path"]
                    .as_array()
                    .expect("path")
                    .last()
                    .expect("leaf")
                    .to_string()
            })
            .collect()
    };
    assert_eq!(titles(&place), [r#""Install""#]);
    assert_eq!(env.json(&["get", &place])["chunks"][0]["id"], hit["id"]);
    assert_eq!(titles("docs/a.md:11"), [r#""Remove""#]);
    assert_eq!(
        titles("a.md:3-10"),
        [r#""Guide""#, r#""Install""#, r#""Remove""#]
    );
    // Overlapping lines and a repeated ID: each chunk once, in the order
    // first asked for.
    let id = hit["id"].as_str().expect("id");
    let twice = env.json(&["get", "docs/a.md:11", id, "docs/a.md:5-12", id]);
    let ids = strings(&twice, "chunks", "id");
    assert_eq!(ids.len(), 2, "{twice}");
    assert_eq!(ids[1], id, "{twice}");
    refused(
        &env,
        &["get", "docs/a.md:40"],
        &["error: `docs/a.md:40`: line 40 is past the end of the file, whose last line is 12"],
    );
    refused(
        &env,
        &["get", "docs/a.md:0"],
        &["error: `docs/a.md:0`: lines count from 1"],
    );
    refused(
        &env,
        &["get", "docs/a.md:9-5"],
        &[
            "error: `docs/a.md:9-5`: the range 9-5 ends before it starts; write the first line first",
        ],
    );
    refused(
        &env,
        &["get", "docs/nope.md:3"],
        &[
            "error: `docs/nope.md:3` is neither a chunk ID nor an indexed file",
            "`docs/ops.md:12-30`",
        ],
    );
}

/// A part of a block split to fit the chunk budget says which part it is
/// (in search hits too) and names the parts next to it that the answer
/// lacks, so a listing cut off mid-way does not pass for the whole of it;
/// asked for together, the parts need no pointer.
#[test]
fn a_part_names_the_parts_next_to_it() {
    let env = Env::empty();
    env.write("_ctx/ctx.toml", "max_chunk_tokens = 80\n");
    let listing: String = (0..60)
        .map(|i| format!("let quokka_{i} = feed(quokka_{});\n", i + 1))
        .collect();
    env.write("notes.md", format!("# Feeding\n\n```rust\n{listing}```\n"));
    env.ctx(&["build", "-q"]).assert().success();
    // The budget pays for each part's line and part note too: ten parts
    // of 80 tokens need more than the default.
    let whole = env.json(&["get", "notes.md", "--budget", "4000"]);
    let parts = strings(&whole, "chunks", "id");
    assert!(parts.len() >= 3, "{whole}");
    let n = parts.len();
    // The whole file holds every part: no pointers.
    assert!(whole["chunks"][0]["part"].get("next").is_none(), "{whole}");
    let first = env.json(&["get", parts[0]]);
    assert_eq!(
        first["chunks"][0]["part"]["index"],
        serde_json::json!([1, n])
    );
    assert_eq!(first["chunks"][0]["part"]["next"], parts[1]);
    let out = env.ctx(&["get", parts[1]]).output().expect("run");
    let text = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        text.ends_with(&format!(
            "[part 2 of {n}; previous part: {}; next part: {}]\n",
            parts[0], parts[2]
        )),
        "{text}"
    );
    // A search hit on a part says so.
    let hits = env.json(&["search", "quokka_30", "-k", "1"]);
    let [i, total] = [0, 1].map(|k| hits["hits"][0]["part"][k].as_u64().expect("part"));
    assert_eq!(total as usize, n, "{hits}");
    let out = env
        .ctx(&["search", "quokka_30", "-k", "1"])
        .output()
        .expect("run");
    let line = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        line.contains(&format!(" tokens, part {i} of {n}  score ")),
        "{line}"
    );
    let both = env.json(&["get", parts[0], parts[1]]);
    assert!(both["chunks"][0]["part"].get("next").is_none(), "{both}");
    assert!(
        both["chunks"][1]["part"].get("previous").is_none(),
        "{both}"
    );
    assert_eq!(both["chunks"][1]["part"]["next"], parts[2], "{both}");
}
