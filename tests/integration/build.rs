//! `ctx build` and `ctx validate` on real trees.

use predicates::prelude::*;
use serde_json::Value;

use super::util::{Env, copy_dir, repo};

/// The demo builds, validates, and its pack has every schema-v1 field.
#[test]
fn demo_builds_and_validates() {
    let env = Env::fixture("demo");
    let r = env.json(&["build"]);
    assert_eq!(r["files"], 9, "{r}");
    assert!(r["chunks"].as_u64().unwrap() > 40);
    env.ctx(&["validate"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("valid "));
    let p = env.pack();
    for field in [
        "schema_version",
        "created_at",
        "generator_version",
        "segment",
        "source_files",
        "chunking",
        "digest",
        "index",
        "chunks",
    ] {
        assert!(p.get(field).is_some(), "missing {field}");
    }
    assert_eq!(p["schema_version"], 1);
    let docs: Vec<&str> = p["source_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(
        !docs.iter().any(|d| d.starts_with("scratch/")),
        "gitignored scratch/ was indexed: {docs:?}"
    );
    let c = &p["chunks"][0];
    for field in [
        "id",
        "doc",
        "title_path",
        "text",
        "token_est",
        "text_sha256",
        "lines",
        "kind",
    ] {
        assert!(c.get(field).is_some(), "chunk misses {field}");
    }
    assert!(p["digest"].as_str().unwrap().contains("docs/operations.md"));
}

/// Two builds of the same tree differ only in `created_at`.
#[test]
fn builds_are_deterministic() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    let mut a = env.pack();
    let env2 = Env::fixture("demo");
    env2.ctx(&["build"]).assert().success();
    let mut b = env2.pack();
    for p in [&mut a, &mut b] {
        p["created_at"] = Value::Null;
        let name = p["segment"].as_str().unwrap().to_string();
        p["digest"] = Value::String(p["digest"].as_str().unwrap().replace(&name, "SEGMENT"));
        p["segment"] = Value::Null;
        for f in p["source_files"].as_array_mut().unwrap() {
            f["mtime"] = Value::Null;
        }
    }
    assert_eq!(a, b);
}

/// A build in batches (a few files at a time, each batch written and dropped)
/// gives the same pack as a build that holds everything, and stays incremental.
#[test]
fn batched_builds_match_whole_builds() {
    let whole = Env::fixture("demo");
    let batched = Env::fixture("demo");
    batched.write("_ctx/ctx.toml", "build_batch_bytes = 3000\n");
    for env in [&whole, &batched] {
        env.ctx(&["build"]).assert().success();
    }
    let chunks = |env: &Env| env.pack()["chunks"].clone();
    assert_eq!(chunks(&whole), chunks(&batched));
    let query = ["search", "how are stale locks handled"];
    let ranked = |env: &Env| -> Vec<(String, String)> {
        let r = env.json(&query);
        r["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| (h["id"].to_string(), h["score"].to_string()))
            .collect()
    };
    assert_eq!(ranked(&whole), ranked(&batched));
    batched.ctx(&["validate"]).assert().success();
    for env in [&whole, &batched] {
        std::fs::remove_file(env.path().join("docs/faq.md")).unwrap();
        env.write(
            "docs/new.md",
            "# New page\n\nA section about lock timeouts.\n",
        );
        let ops = env.path().join("docs/operations.md");
        let text = std::fs::read_to_string(&ops).unwrap();
        std::fs::write(&ops, text.replacen("stale", "stale (edited)", 1)).unwrap();
        let r = env.json(&["build"]);
        assert_eq!(
            (r["changed"].clone(), r["removed"].clone()),
            (2.into(), 1.into()),
            "{r}"
        );
    }
    assert_eq!(chunks(&whole), chunks(&batched));
    batched.ctx(&["validate"]).assert().success();
    let r = batched.json(&["build", "--full"]);
    assert_eq!(r["files"], whole.json(&["build"])["files"], "{r}");
    assert_eq!(chunks(&whole), chunks(&batched));
}

/// Editing one section changes only that section's ID; an incremental build
/// re-chunks only that file; a no-op build writes nothing.
#[test]
fn edit_changes_one_id_and_rebuilds_incrementally() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    let before: Vec<String> = env.pack()["index"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    let noop = env.json(&["build"]);
    assert_eq!(noop["noop"], true, "{noop}");
    let faq = env.path().join("docs/faq.md");
    let text = std::fs::read_to_string(&faq).unwrap();
    let edited = text.replacen("shipyard", "Shipyard (edited)", 1);
    assert_ne!(text, edited);
    std::fs::write(&faq, edited).unwrap();
    let r = env.json(&["build"]);
    assert_eq!(r["changed"], 1, "{r}");
    assert_eq!(r["full"], false);
    let after: Vec<String> = env.pack()["index"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    let gone: Vec<_> = before.iter().filter(|i| !after.contains(i)).collect();
    let new: Vec<_> = after.iter().filter(|i| !before.contains(i)).collect();
    assert_eq!(gone.len(), 1, "gone {gone:?}");
    assert_eq!(new.len(), 1, "new {new:?}");
    assert!(new[0].starts_with("faq:"));
    env.ctx(&["validate"]).assert().success();
}

/// Every Markdown edge case builds, tiles its file and validates.
#[test]
fn markdown_edge_cases_validate() {
    let env = Env::fixture("markdown");
    env.ctx(&["build"]).assert().success();
    env.ctx(&["validate"]).assert().success();
    let p = env.pack();
    let chunks = p["chunks"].as_array().unwrap();
    let of = |doc: &str| {
        chunks
            .iter()
            .filter(|c| c["doc"] == doc)
            .collect::<Vec<_>>()
    };
    assert!(of("empty.md").is_empty());
    assert_eq!(of("heading_only.md").len(), 1);
    assert_eq!(
        of("front_matter_yaml_bom.md")[0]["title_path"][0],
        "Front Matter Title"
    );
    assert_eq!(of("front_matter_toml.md")[0]["title_path"][0], "TOML Title");
    let giant = of("giant_code_block.md");
    assert!(giant.len() > 5, "giant code block not split");
    for c in &giant {
        let fences = c["text"]
            .as_str()
            .unwrap()
            .lines()
            .filter(|l| l.trim_start().starts_with("```"))
            .count();
        assert_eq!(fences % 2, 0, "unbalanced fence in {}", c["id"]);
    }
    let dups = of("duplicate_sections.md");
    let ids: std::collections::HashSet<_> =
        dups.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), dups.len(), "duplicate sections share an ID");
    let crlf = of("crlf.md");
    assert!(
        crlf.iter()
            .all(|c| !c["title_path"].to_string().contains('\r'))
    );
}

/// Binary, invalid UTF-8 and over-size files are skipped with a warning naming
/// them; the build goes on.
#[test]
fn bad_files_are_skipped_with_warnings() {
    let env = Env::empty();
    env.write("ok.md", "# Fine\n\ntext\n");
    env.write("bin.md", b"# x\n\0\x01\x02");
    env.write("latin1.md", b"# caf\xe9\n");
    env.write("big.md", "x".repeat(2000));
    env.write("_ctx/ctx.toml", "max_file_bytes = 1000\n");
    let out = env.ctx(&["build"]).assert().success().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("warning: bin.md: skipped: binary file (NUL byte at offset 4)"),
        "{err}"
    );
    assert!(
        err.contains("warning: latin1.md: skipped: invalid UTF-8 at line 1 (byte 5)"),
        "{err}"
    );
    assert!(
        err.contains("warning: big.md: skipped: 2000 bytes is over max_file_bytes (1000)"),
        "{err}"
    );
    env.ctx(&["validate"]).assert().success();
}

/// A Markdown line far over the chunk budget (a generated one-line paragraph)
/// is cut into parts that fit it, so search names a part a budget can fetch,
/// not one chunk of the whole line; the pack still validates.
#[test]
fn a_one_line_paragraph_is_cut_into_parts() {
    let env = Env::empty();
    let words: Vec<String> = (0..40_000)
        .map(|i| {
            if i == 31_337 {
                "quokka".to_string()
            } else {
                format!("w{i}")
            }
        })
        .collect();
    env.write("gen.md", format!("# Generated\n\n{}\n", words.join(" ")));
    env.ctx(&["build"]).assert().success();
    env.ctx(&["validate"]).assert().success();
    let hits = env.json(&["search", "quokka", "-k", "1"]);
    let hit = &hits["hits"][0];
    let tokens = hit["token_est"].as_u64().expect("token_est");
    assert!((100..=620).contains(&tokens), "{hit}");
    let got = env.json(&["get", hit["id"].as_str().expect("id"), "--budget", "700"]);
    let text = got["chunks"][0]["text"].as_str().expect("the part fits");
    assert!(text.contains(" quokka "), "{text}");
    assert_eq!(got["chunks"][0]["trimmed"], false, "{got}");
}

/// A screenshot pasted into a README as a base64 data URI is one elided line
/// of its section: the pack holds a few chunks, not hundreds of base64 parts,
/// `get` shows the marker, the section cites the image's line, and the pack
/// validates against the file on disk.
#[test]
fn an_embedded_image_is_elided_from_the_pack() {
    let env = Env::empty();
    let payload = "iVBORw0KGgoAAAANSUhEUgAA".repeat(14_000);
    env.write(
        "README.md",
        format!(
            "# Tool\n\n## Architecture\n\nThe queue feeds the workers.\n\n\
             <img alt=\"arch\" src=\"data:image/png;base64,{payload}\">\n\n\
             ## Tuning\n\nSet the worker count with `--workers`.\n"
        ),
    );
    let built = env.json(&["build"]);
    assert_eq!(built["chunks"], 2, "{built}");
    assert!(built["tokens"].as_u64().expect("tokens") < 100, "{built}");
    env.ctx(&["validate"]).assert().success();
    let hits = env.json(&["search", "queue feeds workers", "-k", "1"]);
    let hit = &hits["hits"][0];
    assert_eq!(hit["lines"], serde_json::json!([1, 8]), "{hit}");
    let got = env.json(&["get", hit["id"].as_str().expect("id")]);
    let text = got["chunks"][0]["text"].as_str().expect("text");
    assert!(
        text.contains("src=\"data:image/png;base64,…(328KB-elided)\">"),
        "{text}"
    );
    env.ctx(&["search", "iVBORw0KGgoAAAANSUhEUgAA"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("No evidence"));
}

/// A hand-written source file holding an inline image is indexed by its
/// symbols, not skipped whole as minified for the image's long line.
#[test]
fn a_source_file_with_an_embedded_image_is_indexed() {
    let env = Env::empty();
    let payload = "iVBORw0KGgoAAAANSUhEUgAA".repeat(2_000);
    env.write(
        "web/brand.ts",
        format!(
            "/** The shop's logo, inlined so the banner renders offline. */\n\
             export const LOGO = \"data:image/png;base64,{payload}\";\n\n\
             /** Renders the banner with the logo. */\n\
             export function renderBanner(title: string): string {{\n  \
             return `<img src=\"${{LOGO}}\"><h1>${{title}}</h1>`;\n}}\n"
        ),
    );
    let built = env.json(&["build"]);
    assert_eq!(built["files"], 1, "{built}");
    assert_eq!(
        built["warnings"].as_array().map(Vec::len),
        Some(0),
        "{built}"
    );
    let found = env.json(&["symbol", "LOGO"]);
    let text = found["text"].as_str().expect("text");
    assert!(
        text.contains("\"data:image/png;base64,…(46KB-elided)\";"),
        "{found}"
    );
    assert_eq!(found["lines"], serde_json::json!([1, 2]), "{found}");
    env.ctx(&["symbol", "renderBanner"]).assert().success();
    env.ctx(&["validate"]).assert().success();
}

/// A file whose name holds a newline, a tab or an escape character is built
/// and found, and the line that lists it stays one line: the name is shown
/// escaped (`a\\nb.md`), never as a line break or a terminal sequence.
#[test]
fn odd_file_names_stay_on_their_line() {
    let env = Env::empty();
    env.write("a\nb.md", "# Odd\n\nnewline name about pelicans\n");
    env.write(
        "c\td\u{1b}[31m.md",
        "# Tab\n\ntab and escape name about pelicans\n",
    );
    env.ctx(&["build", "-q"]).assert().success();
    env.ctx(&["validate"]).assert().success();
    let out = env.ctx(&["search", "pelicans"]).output().expect("run");
    let out = String::from_utf8(out.stdout).expect("utf8");
    assert!(out.contains("\n   a\\nb.md:1-3  ~"), "{out}");
    assert!(out.contains("\n   c\\td\u{fffd}[31m.md:1-3  ~"), "{out}");
    assert!(!out.contains('\u{1b}') && !out.contains('\t'), "{out}");
    // JSON keeps the real name, for tools.
    let hits = env.json(&["search", "pelicans"]);
    let docs = super::util::strings(&hits, "hits", "doc");
    assert!(docs.contains(&"a\nb.md"), "{docs:?}");
}

/// Symlink loops and links leaving the segment do not break or widen the walk.
#[test]
fn symlinks_loops_and_escapes() {
    let env = Env::empty();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "# Secret\n\nnot yours\n").unwrap();
    env.write("docs/a.md", "# A\n\nalpha\n");
    std::os::unix::fs::symlink(env.path().join("docs"), env.path().join("docs/loop")).unwrap();
    std::os::unix::fs::symlink(outside.path(), env.path().join("escape")).unwrap();
    let out = env.ctx(&["build"]).assert().success().get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("escape: symlink leads outside the segment; not followed"),
        "{err}"
    );
    let p = env.pack();
    let docs: Vec<_> = p["source_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert!(docs.contains(&"docs/a.md".to_string()));
    assert!(!docs.iter().any(|d| d.contains("secret")), "{docs:?}");
}

/// The committed v1 pack still loads and validates (format compatibility).
#[test]
fn committed_v1_pack_validates() {
    let env = Env::empty();
    copy_dir(&repo().join("fixtures/packs/v1"), env.path());
    env.ctx(&["validate"]).assert().success();
}

/// `validate` reports a tampered pack and a changed source, exit 1.
#[test]
fn validate_reports_problems() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    let path = env.path().join("_ctx/context_pack.json");
    let mut p = env.pack();
    p["chunks"][0]["text"] = Value::String("tampered".into());
    std::fs::write(&path, serde_json::to_string(&p).unwrap()).unwrap();
    env.write("docs/new.md", "# New\n\nfresh\n");
    let out = env.ctx(&["validate"]).assert().code(1).get_output().clone();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("[text_sha256]"), "{s}");
    assert!(
        s.contains("`docs/new.md` is new on disk and not in the pack; run `ctx build`"),
        "{s}"
    );
    p["schema_version"] = Value::String("1".into());
    std::fs::write(&path, serde_json::to_string(&p).unwrap()).unwrap();
    env.ctx(&["validate"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "schema_version must be an integer, found \"1\"",
        ));
}

/// `validate` checks each chunk's lines against its bytes in the file.
#[test]
fn validate_reports_lines_that_are_not_the_chunks() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    env.ctx(&["validate"]).assert().success();
    let path = env.path().join("_ctx/context_pack.json");
    let mut p = env.pack();
    let id = p["chunks"][1]["id"].as_str().expect("id").to_string();
    p["chunks"][1]["lines"] = serde_json::json!([100, 200]);
    std::fs::write(&path, serde_json::to_string(&p).unwrap()).unwrap();
    env.ctx(&["validate"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("[lines]"))
        .stdout(predicate::str::contains(format!(
            "chunk `{id}`: lines 100-200 are not the lines of bytes"
        )));
}

/// A tree of `files` Markdown files with a few sections of words that do not
/// repeat (so their compressed text fills catalog pages).
fn varied_tree(env: &Env, files: usize) {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut word = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let n = 3 + (state % 7) as usize;
        (0..n)
            .map(|i| (b'a' + ((state >> (i * 5)) % 26) as u8) as char)
            .collect::<String>()
    };
    for f in 0..files {
        let mut text = format!("# Topic {f}\n");
        for s in 0..6 {
            text.push_str(&format!("\n## Part {s}\n\n"));
            for _ in 0..120 {
                text.push_str(&word());
                text.push(' ');
            }
            text.push('\n');
        }
        env.write(&format!("docs/t{f:03}.md"), text);
    }
}

/// A build that rewrites most of the catalog leaves it the size a first build
/// does: the previous generation's rows, dropped after the index commits,
/// would otherwise stay behind as free pages (a third of the file after a full
/// rebuild). A build that changes a file leaves its few free pages for the
/// next one; what was compacted still searches and reads.
#[test]
fn a_rebuild_leaves_the_catalog_no_larger_than_a_first_build() {
    let env = Env::empty();
    varied_tree(&env, 160);
    let db = env.path().join("_ctx/context.db");
    let size = || std::fs::metadata(&db).expect("catalog").len();
    let stages = |args: &[&str]| -> String {
        let out = env.ctx(args).output().expect("run");
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(!stages(&["build", "--timings"]).contains("compact "));
    let first = size();
    assert!(first > 1 << 20, "the tree should fill a MiB: {first}");
    assert!(stages(&["build", "--full", "--timings"]).contains("compact "));
    let after = size();
    assert!(
        after <= first + first / 10,
        "catalog {after} bytes after a full rebuild, {first} after the first build"
    );
    env.write(
        "docs/t007.md",
        "# Topic 7\n\n## Kelp\n\nA paragraph about kelp.\n",
    );
    assert!(!stages(&["build", "--timings"]).contains("compact "));
    let hits = env.json(&["search", "kelp", "--no-build"]);
    let id = hits["hits"][0]["id"].as_str().expect("a hit").to_string();
    let got = env.json(&["get", &id, "--no-build"]);
    assert!(got.to_string().contains("A paragraph about kelp."), "{got}");
    env.ctx(&["validate"]).assert().success();
}
