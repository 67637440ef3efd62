//! Which code ranks first: a question naming an identifier, a thin method, a
//! symbol's own name, and copies of one file compiled into two places.

use predicates::prelude::*;

use super::super::util::Env;

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
pub(super) fn compiled_copies(path: &str, other: &str) -> Env {
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
