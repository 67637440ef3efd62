//! The relay: box, resolve, unbox, search and gc through the real binary.

use predicates::prelude::*;

use super::util::{Env, boxed, ctx, refused, spawn_with_input};

mod gc;
mod grep;
mod limits;
mod search;
mod shape;

/// The standard output of `ctx resolve ARGS`, which must succeed.
fn resolve(env: &Env, args: &[&str]) -> String {
    let out = env.ctx(&["resolve"]).args(args).output().expect("run");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf8")
}

/// A 4,000-line transcript whose last line holds a number.
fn transcript() -> String {
    let mut t = String::new();
    for i in 0..4000 {
        t.push_str(&format!(
            "[{i:05}] speaker {}: and then we talked about item {i}\n",
            i % 3
        ));
    }
    t.push_str("The final number is 982451653.\n");
    t
}

/// Short output passes through byte-identical; long output becomes a reference.
#[test]
fn short_passes_long_boxes() {
    let env = Env::empty();
    assert_eq!(
        boxed(env.path(), "tiny output\n", &["--tool", "t"]),
        "tiny output\n"
    );
    assert_eq!(boxed(env.path(), "no newline", &[]), "no newline");
    let r = boxed(env.path(), &transcript(), &["--tool", "yt_transcribe"]);
    let r = r.trim();
    assert!(
        r.starts_with("internal://") && r.len() == "internal://".len() + 16,
        "{r}"
    );
    let files: Vec<_> = std::fs::read_dir(env.path().join("_ctx/relay/default"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(files.len(), 1);
    let name = files[0].file_name().to_string_lossy().into_owned();
    assert!(name.ends_with("_yt_transcribe.txt"), "{name}");
    let j = boxed(env.path(), &transcript(), &["--boxing", "json"]);
    let v: serde_json::Value = serde_json::from_str(j.trim()).unwrap();
    assert_eq!(v["type"], "resource_link");
    assert!(v["uri"].as_str().unwrap().starts_with("internal://"));
    let c = boxed(env.path(), "abcdefghij", &["--threshold-chars", "5"]);
    assert!(c.starts_with("internal://"), "{c}");
}

/// The seed flow: the end of a long transcript answers "what number appears at
/// the end" without a full read; negative starts count from the end.
#[test]
fn slice_and_lines_from_the_end() {
    let env = Env::empty();
    let t = transcript();
    let r = boxed(env.path(), &t, &[]).trim().to_string();
    let end = resolve(&env, &["slice", &r, "-30", "30"]);
    assert!(end.contains("982451653"), "{end}");
    let last = resolve(&env, &["lines", &r, "-1", "1"]);
    assert_eq!(last, "The final number is 982451653.\n");
    let first = resolve(&env, &["lines", &r, "0", "2"]);
    assert!(first.starts_with("[00000]"));
    let len: serde_json::Value = env.json(&["resolve", "length", &r]);
    assert_eq!(len["chars"].as_u64().unwrap() as usize, t.chars().count());
    assert_eq!(len["lines"], 4001);
    let part = env.json(&["resolve", "slice", &r, "-30", "30"]);
    assert_eq!(
        part["describe"],
        format!("chars {}–{} of {}", t.len() - 30, t.len(), t.len())
    );
}

/// `ctx resolve REF OP …`, the order agents often write, reads like
/// `ctx resolve OP REF …`; a reference without an operation is told the order.
#[test]
fn reference_before_operation() {
    let env = Env::empty();
    let r = boxed(env.path(), &transcript(), &[]).trim().to_string();
    for op in [
        &["lines", "-1", "1"][..],
        &["grep", "final number", "-C", "0"],
    ] {
        let mut swapped = vec![r.as_str()];
        swapped.extend_from_slice(op);
        let mut usual = vec![op[0], r.as_str()];
        usual.extend_from_slice(&op[1..]);
        let out = resolve(&env, &swapped);
        assert!(out.contains("982451653"), "{out}");
        assert_eq!(out, resolve(&env, &usual));
    }
    // grep's own order: the pattern, then the file (here, the reference).
    assert_eq!(
        resolve(&env, &["grep", "final number", &r, "-C", "0"]),
        resolve(&env, &["grep", &r, "final number", "-C", "0"])
    );
    let json = boxed(
        env.path(),
        r#"{"items":[{"n":7},{"n":9}]}"#,
        &["--threshold-chars", "5"],
    );
    let json = json.trim();
    assert_eq!(resolve(&env, &["query", ".items[1].n", json]).trim(), "9");
    refused(
        &env,
        &["resolve", "grep", "final number", "not-a-reference"],
        &["error: `final number` is not a relay reference"],
    );
    refused(
        &env,
        &["resolve", &r],
        &[&format!(
            "error: `ctx resolve` takes the operation first, then the reference: `ctx resolve length|slice|lines|grep|query|read {r} …`"
        )],
    );
    refused(
        &env,
        &["resolve", &r, "head", "5"],
        &["(`head` is not an operation)"],
    );
    // Only a line clap refused is read that way: these are a query's words.
    env.ctx(&["search", "resolve", &r, "head"])
        .assert()
        .stderr(predicate::str::contains("operation first").not());
}

/// Slices count characters and never split UTF-8.
#[test]
fn multibyte_slices() {
    let env = Env::empty();
    let v = "é😀中".repeat(20_000);
    let r = boxed(env.path(), &v, &[]).trim().to_string();
    let s = env.json(&["resolve", "slice", &r, "1", "2"]);
    assert_eq!(s["text"], "😀中");
    let s = env.json(&["resolve", "slice", &r, "-1", "5"]);
    assert_eq!(s["text"], "中");
}

/// grep finds `<img` elements in a large HTML page without a full read.
#[test]
fn grep_html() {
    let env = Env::empty();
    let mut html = String::from("<!doctype html>\n<html><body>\n");
    for i in 0..5000 {
        html.push_str(&format!("<p>paragraph {i} with some words</p>\n"));
        if i % 1000 == 7 {
            html.push_str(&format!("<img src=\"/pics/{i}.png\" alt=\"figure {i}\">\n"));
        }
    }
    html.push_str("</body></html>\n");
    let r = boxed(env.path(), &html, &["--tool", "get_page"])
        .trim()
        .to_string();
    assert!(
        std::fs::read_dir(env.path().join("_ctx/relay/default"))
            .unwrap()
            .flatten()
            .any(|f| f.file_name().to_string_lossy().ends_with(".html"))
    );
    let g = env.json(&["resolve", "grep", &r, "<img\\s+src", "--window", "1"]);
    assert_eq!(g["total_matches"], 5);
    assert!(
        g["matches"][0]["line"]
            .as_str()
            .unwrap()
            .contains("/pics/7.png")
    );
    assert_eq!(g["matches"][0]["before"].as_array().unwrap().len(), 1);
    let g = env.json(&["resolve", "grep", &r, "IMG SRC", "-i", "--max-results", "2"]);
    assert_eq!(g["matches"].as_array().unwrap().len(), 2);
    assert_eq!(g["truncated"], true);
    // grep's own spellings of the context and count options work too.
    let g = env.json(&["resolve", "grep", &r, "<img", "-C", "0", "-m", "1"]);
    assert_eq!(g["matches"].as_array().unwrap().len(), 1);
    assert_eq!(g["matches"][0]["before"].as_array().unwrap().len(), 0);
}

/// jq over JSON values; clear errors for bad jq, non-JSON and bad regex.
#[test]
fn query_and_errors() {
    let env = Env::empty();
    let items: Vec<_> = (0..3000)
        .map(|i| serde_json::json!({"name": format!("n{i}"), "size": i}))
        .collect();
    let v = serde_json::json!({"items": items}).to_string();
    let r = boxed(env.path(), &v, &["--tool", "api"]).trim().to_string();
    let out = resolve(
        &env,
        &[
            "query",
            &r,
            ".items[] | select(.size > 2997) | .name",
            "--raw",
        ],
    );
    assert_eq!(out, "n2998\nn2999\n");
    // Its length says what a filter can name: keys and runnable examples, and
    // every example runs.
    let len = resolve(&env, &["length", &r]);
    assert!(len.starts_with(&format!("{} chars", v.len())), "{len}");
    assert!(
        len.contains("shape: object{items} (1 keys)\n  .items: array[3000] of object{name,size}\n"),
        "{len}"
    );
    let len = env.json(&["resolve", "length", &r]);
    assert_eq!(len["media"], "json");
    let examples = len["shape"]["examples"].as_array().unwrap();
    assert!(examples.len() >= 3, "{len}");
    for jq in examples {
        resolve(&env, &["query", &r, jq.as_str().unwrap()]);
    }
    refused(
        &env,
        &["resolve", "query", &r, ".items[] | select("],
        &["error:", ".items[] | select("],
    );
    let t = boxed(env.path(), &transcript(), &[]).trim().to_string();
    assert!(env.json(&["resolve", "length", &t]).get("shape").is_none());
    refused(&env, &["resolve", "query", &t, "."], &["not JSON"]);
    refused(&env, &["resolve", "grep", &t, "("], &["error:", "("]);
}

/// Forged and foreign references are refused with clear messages.
#[test]
fn forged_and_foreign_references() {
    let env = Env::empty();
    let r = boxed(env.path(), &transcript(), &[]).trim().to_string();
    for bad in [
        "internal://../x",
        "internal:///etc/passwd",
        "file:///etc/passwd",
        &format!("internal://{}", "a".repeat(200)),
    ] {
        refused(&env, &["resolve", "read", bad], &["error:", "internal://"]);
    }
    refused(
        &env,
        &["resolve", "read", "internal://aaaaaaaaaaaaaaaa"],
        &["error: unknown reference `internal://aaaaaaaaaaaaaaaa`"],
    );
    refused(
        &env,
        &["resolve", "--session", "other", "length", &r],
        &["belongs to another session (`default`), not `other`; pass --any-session to read it"],
    );
    env.ctx(&[
        "resolve",
        "--session",
        "other",
        "--any-session",
        "length",
        &r,
    ])
    .assert()
    .success();
    // The flags may follow the operation, where the error's advice is read.
    env.ctx(&[
        "resolve",
        "length",
        &r,
        "--session",
        "other",
        "--any-session",
    ])
    .assert()
    .success();
    env.ctx(&["unbox", "--session", "other"])
        .write_stdin(serde_json::json!({ "a": r }).to_string())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "belongs to another session (`default`), not `other`; pass --any-session to read it",
        ));
    ctx()
        .arg("-s")
        .arg(env.path())
        .args(["resolve", "length", &r])
        .env("CTX_SESSION", "x y")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid session `x y`"));
}

/// A reference passed to another command is unboxed byte-identically.
#[test]
fn unbox_into_arguments() {
    let env = Env::empty();
    let t = transcript();
    let r = boxed(env.path(), &t, &[]).trim().to_string();
    let input = serde_json::json!({"file_content": r, "name": "t.txt", "nested": [{"type": "resource_link", "uri": r}]});
    let out = env
        .ctx(&["unbox"])
        .write_stdin(input.to_string())
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["file_content"].as_str().unwrap(), t);
    assert_eq!(v["nested"][0].as_str().unwrap(), t);
    assert_eq!(v["name"], "t.txt");
    env.ctx(&["unbox"])
        .write_stdin(r#"{"a":"internal://zzzzzzzzzzzzzzzz"}"#)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "unknown reference `internal://zzzzzzzzzzzzzzzz`",
        ));
}

/// Boxed values are searchable with --scope relay, and gc removes them everywhere.
#[test]
fn searchable_and_gc() {
    let env = Env::fixture("demo");
    env.ctx(&["build"]).assert().success();
    let r = boxed(env.path(), &transcript(), &["--tool", "yt_transcribe"])
        .trim()
        .to_string();
    let id = r.trim_start_matches("internal://");
    let hits = env.json(&["search", "final number", "--scope", "relay"]);
    let first = &hits["hits"][0];
    assert_eq!(first["doc"], format!("relay/{id}"));
    assert_eq!(first["title_path"][0], "yt_transcribe");
    assert!(
        first["source_path"]
            .as_str()
            .unwrap()
            .contains("_ctx/relay/default/")
    );
    // The human output names the resolve call that reads the hit's lines
    // (hits count lines from one, `resolve lines` from zero); run as printed,
    // it gives the chunk's text.
    let out = env
        .ctx(&["search", "final number", "--scope", "relay", "-k", "1"])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    let call = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("ctx "))
        .unwrap_or_else(|| panic!("no resolve call in {out}"));
    let [l0, l1] = [0, 1].map(|i| first["lines"][i].as_u64().unwrap() as usize);
    assert_eq!(
        call,
        format!("resolve lines {r} {} {}", l0 - 1, l1 - l0 + 1)
    );
    assert_eq!(
        first["boxed"],
        serde_json::json!({"reference": r, "session": "default", "start_line": l0 - 1, "line_count": l1 - l0 + 1})
    );
    let args: Vec<&str> = call.split(' ').collect();
    let lines = resolve(&env, &args[1..]);
    let chunk = env.json(&["get", "--mode", "raw", first["id"].as_str().unwrap()]);
    assert_eq!(
        lines.trim_end(),
        chunk["chunks"][0]["text"].as_str().unwrap().trim_end()
    );
    // In another session's value, the call names that session.
    let other = ctx()
        .current_dir(env.path())
        .args(["box", "--session", "s9", "--threshold-chars", "5"])
        .write_stdin("a zebra crossing\n")
        .output()
        .unwrap();
    let other = String::from_utf8(other.stdout).unwrap();
    let out = env
        .ctx(&["search", "zebra crossing", "--scope", "relay", "-k", "1"])
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.contains(&format!("ctx resolve --session s9 lines {}", other.trim())),
        "{out}"
    );
    let docs = env.json(&["search", "final number", "--scope", "docs"]);
    assert!(docs["hits"][0].get("boxed").is_none(), "{docs}");
    assert!(
        docs["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| !h["doc"].as_str().unwrap().starts_with("relay/"))
    );
    env.ctx(&["build", "--full"]).assert().success();
    assert_eq!(
        env.json(&["search", "final number", "--scope", "relay"])["hits"][0]["doc"],
        format!("relay/{id}")
    );
    let g = env.json(&["relay", "gc", "--older-than", "0s"]);
    assert_eq!(g["removed"], 2, "both sessions' values");
    assert_eq!(
        env.json(&["search", "final number", "--scope", "relay"])["no_evidence"],
        true
    );
    refused(&env, &["resolve", "length", &r], &[]);
    assert_eq!(
        std::fs::read_dir(env.path().join("_ctx/relay/default"))
            .unwrap()
            .count(),
        0
    );
    refused(
        &env,
        &["relay", "gc", "--older-than", "7x"],
        &["unknown unit `x` in `7x`"],
    );
}

/// The same output of the same tool, boxed again in one session, is the same
/// box: one file, one reference, one search hit, its age refreshed for `gc`.
/// Another tool, another session, or a box whose file is gone gets a new one.
#[test]
fn the_same_output_twice_is_one_box() {
    let env = Env::empty();
    let value = transcript();
    let first = env.json_with_input(&["box", "--tool", "t"], &value);
    let again = env.json_with_input(&["box", "--tool", "t"], &value);
    let r = first["reference"].as_str().unwrap().to_string();
    assert_eq!(again["reference"], r.as_str());
    assert_eq!(first["reused"], false, "{first}");
    assert_eq!(again["reused"], true, "{again}");
    assert!(
        again["box"]["created_ns"].as_i64() > first["box"]["created_ns"].as_i64(),
        "reuse counts as boxed now: {again}"
    );
    let dir = env.path().join("_ctx/relay/default");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let hits = env.json(&["search", "final number", "--scope", "relay", "-k", "10"]);
    let docs: std::collections::HashSet<_> = hits["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["doc"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(docs.len(), 1, "{hits}");

    let other_tool = boxed(env.path(), &value, &["--tool", "u"]);
    let other_session = boxed(env.path(), &value, &["--tool", "t", "--session", "s2"]);
    assert_ne!(other_tool.trim(), r);
    assert_ne!(other_session.trim(), r);

    // A value whose stored file went missing is stored again, not referenced.
    let file = first["box"]["file"].as_str().unwrap();
    std::fs::remove_file(env.path().join("_ctx/relay").join(file)).unwrap();
    let fresh = boxed(env.path(), &value, &["--tool", "t"]);
    assert_ne!(fresh.trim(), r);
    assert_eq!(resolve(&env, &["read", fresh.trim()]), value);
}

/// The same output boxed by several processes at once is still one box: each
/// looks before any has recorded it, and the ones that lose the race to the
/// build lock hand back the winner's reference and drop their own file.
#[test]
fn the_same_output_boxed_at_once_is_one_box() {
    let env = Env::empty();
    let value = transcript();
    let children: Vec<_> = (0..4)
        .map(|_| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("ctx"));
            cmd.args(["-s", env.path().to_str().unwrap(), "box", "--tool", "t"]);
            spawn_with_input(&mut cmd, value.as_bytes())
        })
        .collect();
    let refs: std::collections::HashSet<String> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().expect("wait for ctx box");
            assert!(out.status.success(), "{out:?}");
            String::from_utf8(out.stdout).unwrap().trim().to_string()
        })
        .collect();
    assert_eq!(refs.len(), 1, "{refs:?}");
    let dir = env.path().join("_ctx/relay/default");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
    let r = refs.into_iter().next().unwrap();
    assert_eq!(resolve(&env, &["read", &r]), value);
}

/// 50 concurrent boxers never clash: every reference resolves to its own value.
#[test]
fn concurrent_boxers() {
    let env = Env::empty();
    let path = env.path().to_path_buf();
    let handles: Vec<_> = (0..50)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                let value = format!("value {i}\n").repeat(6000);
                let reference = boxed(&path, &value, &["--tool", &format!("t{i}")]);
                (reference.trim().to_string(), value)
            })
        })
        .collect();
    let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    let refs: std::collections::HashSet<_> = results.iter().map(|(r, _)| r.clone()).collect();
    assert_eq!(refs.len(), 50);
    for (r, value) in results.iter().step_by(7) {
        let out = env.ctx(&["resolve", "read", r]).output().unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), *value);
    }
}

/// The six relay prompt cases pass on their passing transcripts and fail, with
/// reasons, on their failing ones.
#[test]
fn prompt_cases() {
    let dir = super::util::repo().join("fixtures/relay-cases");
    let glob = format!("{}/*.md", dir.display());
    let out = ctx()
        .args([
            "relay",
            "check",
            "--glob",
            &glob,
            "--suffix",
            ".pass.jsonl",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 6);
    let out = ctx()
        .args([
            "relay",
            "check",
            "--glob",
            &glob,
            "--suffix",
            ".fail.jsonl",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v.as_array().unwrap().iter().all(|c| c["passed"] == false));
    let case = dir.join("slice_not_full_read.md");
    let bad = dir.join("slice_not_full_read.fail.jsonl");
    ctx()
        .args(["relay", "check"])
        .arg(&case)
        .arg("--transcript")
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "failed never call `internal_resource_read` — called 1 time(s)",
        ));
    let env = Env::empty();
    env.write(
        "case.md",
        "---\ntool_calls:\n  - tool_nam: x\n---\nprompt\n",
    );
    env.write("t.jsonl", "");
    ctx()
        .args(["relay", "check"])
        .arg(env.path().join("case.md"))
        .arg("--transcript")
        .arg(env.path().join("t.jsonl"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("case.md: front matter:")
                .and(predicate::str::contains("tool_nam")),
        );
}

/// A fetched HTML page with an inlined image is boxed whole: its chunks
/// hold the page's words and a size marker, not the base64, so a search
/// finds the text and the image costs a hit nothing; `resolve` still
/// returns the exact bytes, and the hit's lines read the image's line.
#[test]
fn an_inlined_image_in_a_boxed_page_is_elided_from_its_chunks_not_its_value() {
    let env = Env::empty();
    env.write("notes.md", "# Notes\n\nNothing here.\n");
    env.ctx(&["build"]).assert().success();
    let payload = "iVBORw0KGgoAAAANSUhEUgAA".repeat(3_000);
    let page = format!(
        "<html><body>\n<h1>Release notes</h1>\n<p>The ingest queue now retries on throttling.</p>\n\
         <img alt=\"chart\" src=\"data:image/png;base64,{payload}\">\n<p>Thanks to all.</p>\n</body></html>\n"
    );
    let r = boxed(env.path(), &page, &["--tool", "fetch"])
        .trim()
        .to_string();
    assert!(r.starts_with("internal://"), "{r}");
    let hits = env.json(&[
        "search",
        "ingest queue retries throttling",
        "--scope",
        "relay",
    ]);
    let hit = &hits["hits"][0];
    assert!(hit["token_est"].as_u64().expect("tokens") < 200, "{hit}");
    let got = env.json(&["get", hit["id"].as_str().expect("id")]);
    let text = got["chunks"][0]["text"].as_str().expect("text");
    assert!(
        text.contains("src=\"data:image/png;base64,…(70KB-elided)\">"),
        "{text}"
    );
    assert!(!text.contains(&payload[..64]), "{text}");
    assert_eq!(resolve(&env, &["read", &r]), page);
    let line = resolve(&env, &["lines", &r, "3", "1"]);
    assert!(line.contains(&payload), "the value keeps the image");
}
