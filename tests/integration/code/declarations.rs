//! Headers and declarations: a C prototype in a header, a `.d.ts` or
//! `.pyi` stub are not a second answer to a name whose definition is
//! indexed; they are named with it. A C++ header is parsed as C++.

use predicates::prelude::*;

use super::super::util::Env;
use super::{candidate_list, listed, run};

const RING_H: &str = "#ifndef RING_H\n#define RING_H\n\nstruct ring;\n\n/* Appends v; returns 0 when the ring is full. */\nint ring_push(struct ring *r, int v);\n\n#endif\n";

const RING_C: &str = "#include \"ring.h\"\n\nstruct ring { int len; int cap; int *items; };\n\nint ring_push(struct ring *r, int v) {\n    if (r->len == r->cap) return 0;\n    r->items[r->len++] = v;\n    return 1;\n}\n";

/// A C function declared in a header and defined in a source file is one
/// answer: the definition, with the prototype named in text and JSON.
#[test]
fn a_prototype_folds_into_its_definition() {
    let env = Env::empty();
    env.write("include/ring.h", RING_H);
    env.write("src/ring.c", RING_C);
    env.ctx(&["build"]).assert().success();

    env.ctx(&["symbol", "ring_push"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "function ring_push (src/ring.c:5-9)",
        ))
        .stdout(predicate::str::contains("r->items[r->len++] = v;"))
        .stderr(predicate::str::contains(
            "declared in include/ring.h:6-7 (ring:",
        ));
    let out = env.json(&["symbol", "ring_push"]);
    assert_eq!(out["doc"], "src/ring.c", "{out}");
    let decls = out["declarations"].as_array().expect("declarations");
    assert_eq!(decls.len(), 1, "{out}");
    assert_eq!(decls[0]["doc"], "include/ring.h");
    assert_eq!(decls[0]["lines"], serde_json::json!([6, 7]));

    // Asked for in the header, the prototype is the answer, and it has no
    // declarations of its own.
    let header = env.json(&["symbol", "ring_push", "--file", "ring.h"]);
    assert_eq!(header["doc"], "include/ring.h", "{header}");
    assert!(header.get("declarations").is_none(), "{header}");
    assert!(
        header["text"]
            .as_str()
            .unwrap()
            .contains("int ring_push(struct ring *r, int v);"),
        "{header}"
    );

    // An `extern` variable in the header is declared there and defined in
    // the source file.
    env.write(
        "include/debug.h",
        "#ifndef DEBUG_H\n#define DEBUG_H\n/* Nonzero to trace pushes. */\nextern int debug;\n#endif\n",
    );
    env.write("src/debug.c", "#include \"debug.h\"\n\nint debug = 0;\n");
    let var = env.json(&["symbol", "debug"]);
    assert_eq!(var["doc"], "src/debug.c", "{var}");
    assert_eq!(var["kind"], "var", "{var}");
    assert_eq!(var["declarations"][0]["doc"], "include/debug.h", "{var}");
    assert_eq!(var["declarations"][0]["lines"], serde_json::json!([3, 4]));

    // Without the definition, the prototype alone answers.
    std::fs::remove_file(env.path().join("src/ring.c")).unwrap();
    let alone = env.json(&["symbol", "ring_push"]);
    assert_eq!(alone["doc"], "include/ring.h", "{alone}");
    assert!(alone.get("declarations").is_none(), "{alone}");
}

/// With two definitions of a name, a prototype goes to the one in the file
/// of the same stem, and the other stays a choice; a prototype that matches
/// no stem stays a choice of its own.
#[test]
fn a_prototype_goes_to_the_definition_of_its_stem() {
    let env = Env::empty();
    env.write("ring.h", RING_H);
    env.write("ring.c", RING_C);
    env.write(
        "queue.c",
        "int ring_push(int *q, int v) {\n    q[0] = v;\n    return 1;\n}\n",
    );
    env.ctx(&["build"]).assert().success();
    let s = candidate_list(&env, &["symbol", "ring_push"]);
    assert!(
        s.starts_with("2 symbols match `ring_push`; pick one"),
        "{s}"
    );
    assert!(s.contains("  ring.c:5-9  ring:"), "{s}");
    assert!(s.contains("declared in ring.h:6-7 (ring:"), "{s}");
    assert_eq!(s.matches("declared in").count(), 1, "{s}");
    let json = env.json(&["symbol", "ring_push"]);
    let candidates = json["candidates"].as_array().unwrap();
    let by_doc = |doc: &str| {
        candidates
            .iter()
            .find(|c| c["doc"] == doc)
            .unwrap_or_else(|| panic!("no candidate in {doc}: {json}"))
    };
    assert_eq!(by_doc("ring.c")["declarations"][0]["doc"], "ring.h");
    assert!(by_doc("queue.c").get("declarations").is_none(), "{json}");

    // A header named after neither: three choices, the prototype among them.
    std::fs::rename(env.path().join("ring.h"), env.path().join("api.h")).unwrap();
    let s = candidate_list(&env, &["symbol", "ring_push"]);
    assert!(
        s.starts_with("3 symbols match `ring_push`; pick one"),
        "{s}"
    );
    assert!(s.contains("  api.h:6-7  api:"), "{s}");
    assert!(!s.contains("declared in"), "{s}");
}

/// A compiled package's `.d.ts` beside its `.js`, and a `.pyi` stub beside
/// its module: the implementation answers and the stub is named, in the CLI
/// and in the MCP tool's text.
#[test]
fn stub_files_fold_into_the_implementation() {
    let env = Env::empty();
    env.write(
        "dist/errors.d.ts",
        "/** Base class for all OAuth errors. */\nexport declare class OAuthError extends Error {\n    readonly errorUri?: string;\n    constructor(message: string, errorUri?: string);\n    toResponseObject(): object;\n}\n",
    );
    env.write(
        "dist/errors.js",
        "/** Base class for all OAuth errors. */\nexport class OAuthError extends Error {\n    constructor(message, errorUri) {\n        super(message);\n        this.errorUri = errorUri;\n    }\n    toResponseObject() {\n        return { error: this.message };\n    }\n}\n",
    );
    env.write("pkg/wire.pyi", "def encode(value: object) -> bytes: ...\n");
    env.write(
        "pkg/wire.py",
        "def encode(value):\n    \"\"\"Encodes a value as JSON bytes.\"\"\"\n    return json.dumps(value).encode()\n",
    );
    env.ctx(&["build"]).assert().success();

    let ts = env.json(&["symbol", "OAuthError"]);
    assert_eq!(ts["doc"], "dist/errors.js", "{ts}");
    assert_eq!(ts["declarations"][0]["doc"], "dist/errors.d.ts", "{ts}");
    assert_eq!(ts["declarations"][0]["lines"], serde_json::json!([1, 6]));
    env.ctx(&["symbol", "OAuthError"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "declared in dist/errors.d.ts:1-6 (errors.d:",
        ));

    let py = env.json(&["symbol", "encode"]);
    assert_eq!(py["doc"], "pkg/wire.py", "{py}");
    assert_eq!(py["declarations"][0]["doc"], "pkg/wire.pyi", "{py}");

    // The stub alone, asked for by file.
    let stub = env.json(&["symbol", "OAuthError", "--file", "errors.d.ts"]);
    assert_eq!(stub["doc"], "dist/errors.d.ts", "{stub}");
}

/// A C++ class in a `.h` is a class (the header is parsed as C++ when C
/// cannot parse it), with the methods its `.cpp` defines listed under it.
#[test]
fn a_cpp_header_is_parsed_as_cpp() {
    let env = Env::empty();
    env.write(
        "include/ring.h",
        "#pragma once\nnamespace buf {\n/// A fixed-size ring of ints.\nclass Ring {\n public:\n  explicit Ring(int cap);\n  /// Appends v; false when full.\n  bool push(int v);\n  int size() const { return len_; }\n private:\n  int len_ = 0;\n};\n}  // namespace buf\n",
    );
    env.write(
        "src/ring.cpp",
        "#include \"ring.h\"\nnamespace buf {\nRing::Ring(int cap) : len_(0) {}\n\nbool Ring::push(int v) {\n  if (len_ >= 8) return false;\n  ++len_;\n  return true;\n}\n}  // namespace buf\n",
    );
    env.ctx(&["build"])
        .assert()
        .success()
        .stderr(predicate::str::contains("syntax error").not());
    let out = env.json(&["symbol", "Ring"]);
    assert_eq!(out["symbol"], "buf::Ring", "{out}");
    assert_eq!(out["kind"], "class", "{out}");
    assert_eq!(out["doc"], "include/ring.h", "{out}");
    assert_eq!(
        listed(&out, "line"),
        ["Ring::Ring(int cap) : len_(0)", "bool Ring::push(int v)"],
        "{out}"
    );
    let push = env.json(&["symbol", "push"]);
    assert_eq!(push["symbol"], "buf::Ring::push", "{push}");
    assert_eq!(push["doc"], "src/ring.cpp", "{push}");
}

/// Search folds a prototype and its definition into one hit, whichever
/// ranks first, and names the other half under it; the slot goes to the
/// next hit.
#[test]
fn search_folds_a_declaration_and_its_definition() {
    let env = Env::empty();
    env.write("include/ring.h", RING_H);
    env.write("src/ring.c", RING_C);
    env.write(
        "src/queue.c",
        "/* Appends v to the queue when it is not full. */\nint queue_push(int *q, int v) {\n    q[0] = v;\n    return 1;\n}\n",
    );
    env.ctx(&["build"]).assert().success();
    let query = "ring push";
    let r = env.json(&["search", query, "-k", "2"]);
    let hits = r["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{r}");
    let top = &hits[0];
    // The prototype, with its comment, ranks first; its body is named.
    assert_eq!(top["doc"], "include/ring.h", "{r}");
    assert_eq!(top["definitions"][0]["doc"], "src/ring.c", "{r}");
    assert_eq!(top["definitions"][0]["lines"], serde_json::json!([4, 9]));
    assert!(top.get("declarations").is_none(), "{r}");
    assert_eq!(hits[1]["symbol"], "queue_push", "the freed slot: {r}");
    let (text, _) = run(&env, &["search", query, "-k", "2"]);
    assert!(
        text.contains("   defined in src/ring.c:4-9 (ring:"),
        "{text}"
    );
    // Asked about the body's words, the definition ranks first and names
    // its prototype.
    let body = env.json(&["search", "ring push full returns zero items", "-k", "2"]);
    assert_eq!(body["hits"][0]["doc"], "src/ring.c", "{body}");
    assert_eq!(
        body["hits"][0]["declarations"][0]["doc"], "include/ring.h",
        "{body}"
    );
    // The top hit is the same at any k.
    let one = env.json(&["search", query, "-k", "1"]);
    assert_eq!(one["hits"][0]["id"], top["id"], "{one}");
}
