//! Code in packs: symbol chunks, code search, skeletons and `ctx symbol`.

use predicates::prelude::*;

use super::util::Env;

mod attached;
mod declarations;
mod declared;
mod go;
mod packages;
mod paths;
mod ranking;
mod refs;
mod skeleton;
mod symbol;

fn code_env() -> Env {
    let env = Env::fixture("code");
    env.ctx(&["build"]).assert().success();
    env
}

/// A project holding only the C++ fixture, `sample.cpp`.
fn cpp_sample_env() -> Env {
    let env = Env::empty();
    let sample = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/code/cpp/sample.cpp"),
    )
    .expect("fixture");
    env.write("sample.cpp", sample);
    env
}

/// Standard output and error of `ctx args…`, which must succeed.
fn run(env: &Env, args: &[&str]) -> (String, String) {
    let out = env.ctx(args).output().expect("run ctx");
    assert!(out.status.success(), "ctx {args:?}: {out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `key` of each entry of a window's `attached` list.
fn listed<'a>(out: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    out["attached"]
        .as_array()
        .unwrap_or_else(|| panic!("no attached list: {out}"))
        .iter()
        .map(|a| a[key].as_str().unwrap())
        .collect()
}

/// What `ctx symbol` prints for a name with several candidates (exit 1).
fn candidate_list(env: &Env, args: &[&str]) -> String {
    let out = env.ctx(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Code files of every supported language are indexed by default as symbols.
#[test]
fn code_files_become_symbol_chunks() {
    let env = code_env();
    let pack = env.pack();
    let chunks = pack["chunks"].as_array().unwrap();
    for lang in [
        "rust",
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "java",
        "c",
        "cpp",
    ] {
        assert!(
            chunks
                .iter()
                .any(|c| c["lang"] == lang && c["symbol"].is_object()),
            "no symbol chunks for {lang}"
        );
    }
    env.ctx(&["validate"]).assert().success();
}

/// `--kind code` finds functions by what they do and by split identifiers.
#[test]
fn code_search_and_symbol() {
    let env = code_env();
    let r = env.json(&[
        "search",
        "--kind",
        "code",
        "-k",
        "3",
        "--no-build",
        "walk",
        "builder",
        "build",
    ]);
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    assert!(hits.iter().all(|h| h["kind"] == "code"), "{r}");
    let first = &hits[0];
    assert!(first["symbol"].is_string(), "{first}");
    let docs = env.json(&["search", "--kind", "docs", "--no-build", "walk builder"]);
    assert!(
        docs["hits"]
            .as_array()
            .is_none_or(|h| h.iter().all(|x| x["kind"] != "code"))
    );
    let id = first["id"].as_str().unwrap();
    let sk = env.json(&["get", "--mode", "skeleton", "--no-build", id]);
    assert!(sk["chunks"][0]["token_est"].as_u64().unwrap() <= first["token_est"].as_u64().unwrap());
}

/// A file's path (or the end of it) in place of IDs stands for all its
/// chunks in order: raw gives the file back, skeleton its outline.
#[test]
fn get_a_whole_file_by_path() {
    let env = Env::code_and_docs();
    let source = std::fs::read_to_string(env.path().join("rust/sample.rs")).unwrap();
    let raw = env.json(&["get", "rust/sample.rs", "--budget", "20000", "--no-build"]);
    let chunks = raw["chunks"].as_array().unwrap();
    assert!(chunks.len() > 10, "{raw}");
    let text: String = chunks.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert_eq!(text, source, "the chunks of a file tile it");
    assert!(raw["omitted"].as_array().unwrap().is_empty(), "{raw}");

    // So is the absolute path search hits carry as `source_path`.
    let hit = env.json(&[
        "search",
        "walk builder build",
        "--kind",
        "code",
        "--no-build",
    ]);
    let absolute = hit["hits"][0]["source_path"].as_str().unwrap().to_string();
    let by_absolute = env.json(&["get", &absolute, "--mode", "skeleton", "--no-build"]);
    assert_eq!(
        by_absolute["chunks"][0]["doc"], hit["hits"][0]["doc"],
        "{by_absolute}"
    );

    // The end of the path is enough when it names one file.
    let outline = env.json(&["get", "sample.rs", "--mode", "skeleton", "--no-build"]);
    let parts = outline["chunks"].as_array().unwrap();
    assert_eq!(parts.len(), chunks.len(), "{outline}");
    for (part, whole) in parts.iter().zip(chunks) {
        assert_eq!(part["id"], whole["id"]);
        let t = part["text"].as_str().unwrap();
        assert!(
            !t.starts_with('\n'),
            "an outline entry starts at its text: {t:?}"
        );
    }
    let shape: String = parts.iter().map(|c| c["text"].as_str().unwrap()).collect();
    assert!(
        shape.contains("pub fn build(&self) -> Walk { … }"),
        "{shape}"
    );
    // Each entry's cost counts the ID and lines it is shown with; even so,
    // the outline of this small file of small items costs less than its text.
    let costs: u64 = parts.iter().map(|p| p["token_est"].as_u64().unwrap()).sum();
    assert_eq!(outline["used"].as_u64(), Some(costs), "{outline}");
    assert!(
        costs < raw["used"].as_u64().unwrap(),
        "an outline costs less than the file: {costs} of {}",
        raw["used"]
    );
    assert!(parts.iter().all(|p| p["outline"] == true), "{outline}");

    // Too small a budget for the skeleton: signatures only, in file order,
    // and what is left is one line, not an ID per chunk.
    let small_outline = [
        "get",
        "sample.rs",
        "--mode",
        "skeleton",
        "--budget",
        "170",
        "--no-build",
    ];
    let small = env.json(&small_outline);
    let lines: Vec<&str> = small["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(lines.len() >= 3, "{small}");
    assert!(lines.iter().all(|l| !l.contains('\n')), "{lines:?}");
    assert!(lines.contains(&"pub struct WalkBuilder"), "{lines:?}");
    assert!(
        lines.contains(&"    pub fn new<P: AsRef<Path>>(root: P) -> WalkBuilder"),
        "{lines:?}"
    );
    let hint = small["hint"].as_str().unwrap();
    assert!(
        hint.contains("the outline shows headings and signatures only"),
        "{hint}"
    );
    assert!(
        hint.contains("more outline entries need --budget"),
        "{hint}"
    );
    let out = env.ctx(&small_outline).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.starts_with("rust/sample.rs (outline; get an ID for its text)\n[sample:"),
        "{text}"
    );
    assert!(text.contains("  pub struct WalkBuilder\n"), "{text}");
    // What is shown, the line naming the file included, fits the budget.
    let (shown, _) = text.split_once("\nomitted ").unwrap();
    let shown_cost = ctx::tokens::estimate(&format!("{shown}\n"));
    assert!(shown_cost <= 170, "{shown_cost} tokens shown: {text}");
    assert_eq!(small["used"].as_u64(), Some(shown_cost as u64), "{text}");
    let omitted = small["omitted"].as_array().unwrap().len();
    assert!(
        text.contains(&format!(
            "omitted {omitted} chunks of rust/sample.rs (lines "
        )),
        "{text}"
    );

    // Raw within a small budget shows a prefix of the file, not a sample:
    // the chunk that stops fitting is cut after a line, and says so.
    let head = env.json(&["get", "rust/sample.rs", "--budget", "120", "--no-build"]);
    let shown: String = head["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    let shown = shown.strip_suffix("[…]\n").expect("marked as cut");
    assert!(!shown.is_empty() && source.starts_with(shown), "{head}");
    let hint = head["hint"].as_str().unwrap();
    assert!(
        hint.starts_with("`rust/sample.rs` is cut after line ")
            && hint.contains("or --mode skeleton for its outline"),
        "{head}"
    );
}

/// `ctx evidence --kind` keeps to code or to docs, like `ctx search --kind`,
/// and a misspelt kind is refused with the values it takes.
#[test]
fn evidence_by_kind() {
    let env = Env::code_and_docs();
    let docs_of = |kind: &str| -> Vec<String> {
        let r = env.json(&[
            "evidence",
            "--kind",
            kind,
            "--no-build",
            "--budget",
            "600",
            "walk builder build",
        ]);
        let chunks = r["chunks"].as_array().unwrap();
        assert!(!chunks.is_empty(), "{kind}: {r}");
        chunks
            .iter()
            .map(|c| c["doc"].as_str().unwrap().to_string())
            .collect()
    };
    let code = docs_of("code");
    assert!(code.iter().all(|d| !d.ends_with(".md")), "{code:?}");
    assert_eq!(docs_of("docs"), ["GUIDE.md"]);
    let all = docs_of("all");
    assert!(
        all.iter().any(|d| d == "GUIDE.md") && all.iter().any(|d| !d.ends_with(".md")),
        "{all:?}"
    );
    env.ctx(&["evidence", "--kind", "cod", "--no-build", "walk"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'cod' for '--kind <KIND>'",
        ))
        .stderr(predicate::str::contains(
            "[possible values: code, docs, all]",
        ));
}

/// A Go file's outline: a struct whose signature holds its commented fields
/// is cut to `{ … }` (on one line, the first comment would swallow the
/// rest), and methods written after other types are not indented under them.
#[test]
fn go_outline_cuts_bodies_and_nests_by_lines() {
    let env = Env::empty();
    env.write(
        "srv/conn.go",
        "package srv\n\n// Conn is one client connection.\ntype Conn struct {\n\tmu sync.Mutex // guards the fields below\n\tclosed bool // set once by Close, never reset\n\tbuf []byte // pending output, flushed by Flush\n}\n\ntype state int\n\n// Close closes the connection.\nfunc (c *Conn) Close() error {\n\treturn nil\n}\n",
    );
    env.ctx(&["build"]).assert().success();
    let outline = |budget: &str| {
        run(
            &env,
            &[
                "get",
                "srv/conn.go",
                "--mode",
                "skeleton",
                "--budget",
                budget,
            ],
        )
    };
    let (_, hint) = outline("60");
    assert!(
        hint.contains("; 1 more outline entry needs --budget 81"),
        "{hint}"
    );
    let (text, _) = outline("100");
    let entries: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once("  ").map(|(_, rest)| rest))
        .collect();
    assert_eq!(
        entries,
        [
            "type Conn struct { … }",
            "type state int",
            "func (c *Conn) Close() error"
        ],
        "{text}"
    );
}
