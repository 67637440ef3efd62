//! Code in packs: symbol chunks, code search, skeletons and `ctx symbol`.

use predicates::prelude::*;

use super::util::Env;

mod attached;
mod declarations;
mod go;
mod refs;
mod symbol;

fn code_env() -> Env {
    let env = Env::fixture("code");
    env.ctx(&["build"]).assert().success();
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
    let pack: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(env.path().join("_ctx/context_pack.json")).unwrap(),
    )
    .unwrap();
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

    // Raw within a small budget shows a prefix of the file, not a sample.
    let head = env.json(&["get", "rust/sample.rs", "--budget", "120", "--no-build"]);
    let shown: String = head["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(!shown.is_empty() && source.starts_with(&shown), "{head}");
    assert!(
        head["hint"]
            .as_str()
            .unwrap()
            .contains("use --mode skeleton for a file's outline"),
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

/// The qualified symbol of the best hit for `query` (empty when none).
fn first_symbol(env: &Env, query: &str) -> String {
    let r = env.json(&["search", "-k", "3", query]);
    r["hits"][0]["symbol"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// An identifier a question names is one of its words, not three: its parts
/// (`max`, `depth` of `max_depth`) weigh less than its whole, so two other
/// words of the question outweigh a function that only shares the identifier.
#[test]
fn an_identifier_in_a_question_counts_as_one_word() {
    let env = Env::empty();
    env.write(
        "src/lib.rs",
        r#"//! Listing directories.

/// Clamps a depth to the configured limit.
pub fn clamp(max_depth: usize, depth: usize) -> usize {
    depth.min(max_depth)
}

/// Skips hidden entries while listing a directory.
pub fn skip_hidden(entry: &str) -> bool {
    entry.starts_with('.')
}

/// Sorts the entries of a directory by name.
pub fn sort_entries(entries: &mut [String]) {
    entries.sort();
}
"#,
    );
    let first = |query: &str| first_symbol(&env, query);
    assert_eq!(
        first("are hidden entries listed when max_depth is set"),
        "skip_hidden"
    );
    // The identifier alone, or its parts as words, still find it.
    assert_eq!(first("max_depth"), "clamp");
    assert_eq!(first("max depth limit"), "clamp");
}

/// A query that is a symbol's name finds that symbol first, even a documented
/// setter that ranks below working code for questions about its topic.
#[test]
fn a_query_naming_a_thin_method_finds_it_first() {
    let env = Env::empty();
    env.write(
        "src/walk.rs",
        r#"//! A directory walker.

/// Walks a tree of directories, level by level. A walker with a max depth
/// stops there: its depth never passes the max depth.
pub struct Walker {
    max_depth: Option<usize>,
    depth: usize,
}

impl Walker {
    /// Sets the maximum depth of the walk.
    ///
    /// Directories below the maximum depth are not read at all: the walker
    /// does not descend into them, so their entries are never yielded. By
    /// default there is no maximum depth and every level is read.
    ///
    /// This is useful for shallow searches, for example when only the top
    /// level of a project matters, or when a tree is too large to read in
    /// full and its upper levels give a good enough overview of it.
    pub fn max_depth(&mut self, depth: Option<usize>) -> &mut Walker {
        self.max_depth = depth;
        self
    }

    fn with_max_depth(max_depth: usize) -> Walker {
        Walker { max_depth: Some(max_depth), depth: 0 }
    }

    fn within_max_depth(&self) -> bool {
        self.max_depth.is_none_or(|max_depth| self.depth < max_depth)
    }

    /// Lists a directory, or refuses to list it when the walker's depth is
    /// at its max depth already.
    fn descend(&mut self, dir: &str) -> Vec<String> {
        if self.max_depth.is_some_and(|max| self.depth >= max) {
            return Vec::new();
        }
        self.depth += 1;
        let entries = list(dir);
        self.depth -= 1;
        entries
    }
}

fn list(dir: &str) -> Vec<String> {
    vec![dir.to_string()]
}
"#,
    );
    let first = |query: &str| first_symbol(&env, query);
    assert_eq!(first("Walker max depth"), "Walker::max_depth");
    assert_eq!(first("Walker::max_depth"), "Walker::max_depth");
    // A question naming the setting in passing is about the behaviour: the
    // code that does the work still wins.
    assert_eq!(
        first("when the walker is at max_depth, where does it refuse to list a directory"),
        "Walker::descend"
    );
}

/// A compiled JavaScript class with one documented method; `prefix` is the
/// module plumbing a `cjs` build puts before imported names (`types_js_1.`).
fn compiled_method(prefix: &str) -> String {
    format!(
        r#"export class Transport {{
    /**
     * Checks the protocol version header of an incoming request and answers
     * an unsupported version with a 400 error listing the supported ones.
     */
    validateProtocolVersion(req) {{
        const version = req.headers.get('mcp-protocol-version');
        if (version !== null && !{prefix}SUPPORTED_VERSIONS.includes(version)) {{
            return this.errorResponse(400, `Unsupported protocol version: ${{version}} (supported: ${{{prefix}SUPPORTED_VERSIONS.join(', ')}})`);
        }}
        return undefined;
    }}
}}
"#
    )
}

/// A built project holding [`compiled_method`] in `dist/esm` and `dist/cjs`,
/// and `other` at `path`.
fn compiled_copies(path: &str, other: &str) -> Env {
    let env = Env::empty();
    env.write("dist/esm/transport.js", compiled_method(""));
    env.write("dist/cjs/transport.js", compiled_method("types_js_1."));
    env.write(path, other);
    env.ctx(&["build"]).assert().success();
    env
}

/// A package's `esm` and `cjs` builds hold one method twice: the copy is folded
/// into the better-ranked hit and named there, and the slot goes to the next
/// distinct hit, in search, in the MCP-style text and in evidence.
#[test]
fn compiled_copies_fold_into_one_hit() {
    let env = compiled_copies(
        "dist/esm/client.js",
        "/** Sends the protocol version the client supports in its first request. */\nexport function sendVersion(client) {\n    return client.request({ protocolVersion: LATEST_VERSION });\n}\n",
    );
    let query = "which error answers an unsupported protocol version";
    let r = env.json(&["search", query, "-k", "2"]);
    let hits = r["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{r}");
    assert_eq!(hits[0]["title_path"][2], "validateProtocolVersion", "{r}");
    let copies = hits[0]["duplicates"].as_array().expect("the copy is named");
    assert_eq!(copies.len(), 1, "{r}");
    assert_ne!(copies[0]["doc"], hits[0]["doc"]);
    assert!(
        copies[0]["doc"]
            .as_str()
            .unwrap()
            .ends_with("/transport.js"),
        "{r}"
    );
    assert_eq!(hits[1]["doc"], "dist/esm/client.js", "the freed slot: {r}");
    assert!(hits[1].get("duplicates").is_none(), "{r}");
    // Folding keeps the order: the top hit is the same at any k.
    let one = env.json(&["search", query, "-k", "1"]);
    assert_eq!(one["hits"][0]["id"], hits[0]["id"]);
    assert_eq!(one["hits"][0]["duplicates"], hits[0]["duplicates"]);

    let copy_doc = copies[0]["doc"].as_str().unwrap().to_string();
    env.ctx(&["search", query, "-k", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("   also in {copy_doc}:")));
    // Evidence spends its budget on one copy.
    let ev = env.json(&["evidence", query, "--budget", "2000"]);
    let docs: Vec<&str> = ev["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["doc"].as_str().unwrap_or(""))
        .collect();
    assert!(!docs.contains(&copy_doc.as_str()), "{ev}");
    // `ctx eval` counts a target found as a folded copy.
    let target = serde_json::json!({"qid": "q1", "query": query, "kind": "question",
        "targets": [{"file": copy_doc, "symbol": "Transport::validateProtocolVersion"}]});
    env.write("q.jsonl", format!("{target}\n"));
    let queries = env.path().join("q.jsonl");
    let m = env.json(&["eval", queries.to_str().unwrap()]);
    assert_eq!(m["hit_at_5"], 1.0, "{m}");
}

/// `ctx eval --details` lists each miss with its query and the top hits,
/// a code hit named by its file once, then its containers and symbol.
#[test]
fn eval_details_name_the_misses() {
    let env = Env::code_and_docs();
    let miss = serde_json::json!({"qid": "m1", "query": "consume the builder settings and return the walk", "kind": "question",
        "targets": [{"file": "rust/sample.rs", "symbol": "Nope"}]});
    env.write("q.jsonl", format!("{miss}\n"));
    let queries = env.path().join("q.jsonl");
    env.ctx(&["eval", queries.to_str().unwrap(), "--details"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "MISS m1 [question] cov ",
        ))
        .stdout(predicate::str::contains(
            "\"consume the builder settings and return the walk\"\n  top: rust/sample.rs > WalkBuilder > build | ",
        ));
}

/// A query that is a symbol's name looks that symbol up: it comes before a
/// neighbour that uses the name's words more often, and before a test of the
/// same name; a test's own qualified name still finds the test first.
#[test]
fn a_query_that_is_a_name_finds_that_symbol_first() {
    let env = Env::empty();
    env.write("src/walk.rs", EXACT_NAMES_RS);
    let first = |q: &str| {
        let r = env.json(&["search", q, "-k", "3"]);
        r["hits"][0]["title_path"].clone()
    };
    assert_eq!(
        first("WalkBuilder::build"),
        serde_json::json!(["src/walk.rs", "WalkBuilder", "build"])
    );
    assert_eq!(
        first("max_filesize"),
        serde_json::json!(["src/walk.rs", "WalkBuilder", "max_filesize"])
    );
    assert_eq!(
        first("tests::max_filesize"),
        serde_json::json!(["src/walk.rs", "tests", "max_filesize"])
    );
    // A question about what the words mean is not a lookup.
    assert_eq!(
        first("which matchers does the walk builder build before walking")[2],
        "build_matchers"
    );
}

/// `build_matchers` says "build" and "walk builder" more often than
/// `WalkBuilder::build`, and a test is named like a setter.
const EXACT_NAMES_RS: &str = "\
pub struct WalkBuilder {
    depth: usize,
}

impl WalkBuilder {
    /// Builds the matchers the walk builder needs: build each matcher, build
    /// the globs, build the overrides, then build the walk builder's ignores.
    fn build_matchers(&self) -> Vec<String> {
        let build = vec![\"build\".to_string(), \"walk\".to_string(), \"builder\".to_string()];
        build
    }

    pub fn build(&self) -> usize {
        self.depth
    }

    pub fn max_filesize(&mut self, limit: u64) -> &mut Self {
        let _ = limit;
        self
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn max_filesize() {
        let mut b = super::WalkBuilder { depth: 1 };
        // max filesize: a max filesize of 10, then a max filesize of 20.
        b.max_filesize(10);
        b.max_filesize(20);
        assert_eq!(b.build(), 1);
    }
}
";

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
