//! Stable IDs: golden values for a fixture, and no collisions on a corpus where
//! hundreds of documents share one heading skeleton.

use std::collections::HashMap;

use ctx::chunk::{ChunkOptions, markdown::chunk_markdown};

use super::util::{Env, corpus, repo};

fn md_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            md_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "md") && !p.is_symlink() {
            out.push(p);
        }
    }
}

/// The IDs of the Markdown edge-case fixtures are the same on every machine.
#[test]
fn golden_ids() {
    let dir = repo().join("fixtures/markdown");
    let mut files = Vec::new();
    md_files(&dir, &mut files);
    files.sort();
    let mut got = String::new();
    for f in files {
        let doc = f
            .strip_prefix(&dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&f).unwrap();
        for c in chunk_markdown(&doc, &text, &ChunkOptions::default()).chunks {
            got.push_str(&format!("{} {}\n", c.id, c.title_path.join(" > ")));
        }
    }
    if std::env::var_os("CTX_BLESS").is_some() {
        std::fs::write(dir.join("golden_ids.txt"), &got).unwrap();
        return;
    }
    let golden = std::fs::read_to_string(dir.join("golden_ids.txt")).expect("golden_ids.txt");
    assert_eq!(
        got, golden,
        "IDs changed; if intended, rerun with CTX_BLESS=1"
    );
}

/// 668 KEPs sharing `Summary > Motivation > Goals …` produce no ID collisions.
#[test]
fn k8s_template_headings_do_not_collide() {
    let root = corpus("k8s-enhancements");
    let mut files = Vec::new();
    md_files(&root, &mut files);
    assert!(files.len() > 600);
    let mut seen: HashMap<String, (String, Vec<String>)> = HashMap::new();
    let mut goals = 0;
    for f in files {
        let doc = f
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for c in chunk_markdown(&doc, &text, &ChunkOptions::default()).chunks {
            if c.title_path.last().is_some_and(|t| t == "Goals") {
                goals += 1;
            }
            if let Some((d, t)) = seen.insert(c.id.clone(), (doc.clone(), c.title_path.clone())) {
                panic!(
                    "collision on {}: {d} {t:?} and {doc} {:?}",
                    c.id, c.title_path
                );
            }
        }
    }
    assert!(goals > 300, "only {goals} Goals sections");
}

/// A file named in another script keeps its name in its IDs (`日本語:…`, not
/// `---:…`), and such an ID is fetched as the command line passes it.
#[test]
fn ids_keep_letters_of_any_script() {
    let env = super::util::Env::empty();
    env.write("docs/日本語.md", "# 概要\n\nquokka notes in Japanese\n");
    env.write("café.md", "# Menu\n\nquokka coffee\n");
    env.ctx(&["build", "-q"]).assert().success();
    env.ctx(&["validate"]).assert().success();
    let hits = env.json(&["search", "quokka"]);
    let mut ids = super::util::strings(&hits, "hits", "id");
    ids.sort();
    assert_eq!(ids.len(), 2, "{hits}");
    assert!(ids[0].starts_with("café:"), "{ids:?}");
    assert!(ids[1].starts_with("日本語:"), "{ids:?}");
    let got = env.json(&["get", ids[1]]);
    assert_eq!(got["chunks"][0]["doc"], "docs/日本語.md", "{got}");
    let out = env.ctx(&["get", ids[0]]).output().expect("run");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("quokka coffee"));
}

/// The ID of the hit `query` ranks first.
fn first_hit(env: &Env, query: &str) -> String {
    let r = env.json(&["search", query, "-k", "1"]);
    r["hits"][0]["id"].as_str().expect("a hit").to_string()
}

/// A stale ID leads to the chunk now where it stood: with two sections
/// headed alike, the edited one, not the first at that heading; with a
/// section split into parts, the edited part.
#[test]
fn a_stale_id_leads_to_its_own_place_among_chunks_at_one_heading() {
    let env = Env::empty();
    env.write(
        "d.md",
        "# Doc\n\n## Notes\n\nfirst notes apple.\n\n## Notes\n\nsecond notes banana.\n",
    );
    env.ctx(&["build", "-q"]).assert().success();
    let old = first_hit(&env, "banana");
    let text = std::fs::read_to_string(env.path().join("d.md")).expect("read");
    env.write("d.md", text.replace("banana", "cherry"));
    let r = env.json(&["get", &old]);
    assert_eq!(r["chunks"][0]["replaces"], old.as_str(), "{r}");
    let got = r["chunks"][0]["text"].as_str().expect("text");
    assert!(got.contains("second notes cherry"), "{got}");

    // Three parts of one long section: the third is edited.
    let para = |word: &str| format!("{} {word}.\n\n", "filler words here ".repeat(60));
    let words = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    ];
    let long = format!(
        "# Guide\n\n## Setup\n\n{}",
        words.iter().map(|w| para(w)).collect::<String>()
    );
    env.write("g.md", &long);
    env.ctx(&["build", "-q"]).assert().success();
    let pack = env.pack();
    let parts: Vec<&serde_json::Value> = pack["chunks"]
        .as_array()
        .expect("chunks")
        .iter()
        .filter(|c| c["doc"] == "g.md" && c["part"].is_array())
        .collect();
    assert!(parts.len() >= 3, "{} parts", parts.len());
    let last = parts.last().expect("a part");
    let old = last["id"].as_str().expect("id").to_string();
    let word = words
        .into_iter()
        .rev()
        .find(|w| last["text"].as_str().is_some_and(|t| t.contains(w)))
        .expect("a word of the last part");
    env.write("g.md", long.replace(&format!(" {word}."), " omega."));
    let r = env.json(&["get", &old]);
    assert_eq!(r["chunks"][0]["replaces"], old.as_str(), "{r}");
    let got = r["chunks"][0]["text"].as_str().expect("text");
    assert!(got.contains("omega"), "{got}");
}
