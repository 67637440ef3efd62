//! Go's packages and implicit interfaces: `ctx symbol Reader` lists the types
//! whose methods cover an interface's, through embedding, and a symbol of
//! another package is named as Go code names it (`io.Reader`).

use super::super::util::Env;
use super::{candidate_list, listed, run};

/// A Go interface lists the types whose methods cover its own, by name, in
/// any package.
#[test]
fn a_go_interface_lists_the_types_that_satisfy_it() {
    let env = Env::empty();
    env.write(
        "io/io.go",
        "package io\n\n// Reader reads.\ntype Reader interface {\n\tRead(p []byte) (int, error)\n}\n\n// ReadCloser reads and closes.\ntype ReadCloser interface {\n\tReader\n\tClose() error\n}\n",
    );
    env.write(
        "files/file.go",
        "package files\n\ntype File struct {\n\tfd int\n}\n\nfunc (f *File) Read(p []byte) (int, error) {\n\treturn 0, nil\n}\n\nfunc (f *File) Close() error {\n\treturn nil\n}\n",
    );
    env.write(
        "other/buf.go",
        "package other\n\ntype Buf struct{ b []byte }\n\nfunc (b Buf) Read(p []byte) (int, error) { return copy(p, b.b), nil }\n",
    );
    // Defined in one file, its method in another.
    env.write("other/bytes.go", "package other\n\ntype Bytes []byte\n");
    env.write(
        "other/bytes_read.go",
        "package other\n\nfunc (b Bytes) Read(p []byte) (int, error) { return copy(p, b), nil }\n",
    );
    env.write(
        "other/half.go",
        "package other\n\ntype Half struct{}\n\nfunc (h Half) Write(p []byte) (int, error) { return len(p), nil }\n",
    );
    let out = env.json(&["symbol", "Reader"]);
    assert_eq!(
        listed(&out, "symbol"),
        ["ReadCloser", "File", "Buf", "Bytes"],
        "{out}"
    );
    assert_eq!(
        listed(&out, "line"),
        [
            "type ReadCloser interface",
            "type File struct { Read }",
            "type Buf struct { Read }",
            "type Bytes []byte { Read }"
        ],
        "{out}"
    );
    assert_eq!(
        listed(&out, "relation"),
        ["subtype", "subtype", "subtype", "subtype"],
        "{out}"
    );
    let (text, _) = run(&env, &["symbol", "Reader"]);
    assert!(
        text.contains("Reader is extended or implemented by:\n"),
        "{text}"
    );
    // ReadCloser requires Reader's Read too: only File has both.
    let out = env.json(&["symbol", "ReadCloser"]);
    assert_eq!(
        listed(&out, "line"),
        ["type File struct { Close, Read }"],
        "{out}"
    );
}

/// An interface's method set takes in the interfaces it embeds, through
/// chains; a struct has the methods of the types it embeds, through chains;
/// an embedded interface the pack does not define leaves the set unknown,
/// and nothing is listed rather than a guess; the interface's own file
/// comes first and tests after sources.
#[test]
fn go_embedding_counts_for_interfaces_and_structs() {
    let env = Env::empty();
    env.write(
        "store/store.go",
        "package store\n\ntype Getter interface {\n\tGet(k string) string\n}\n\ntype Store interface {\n\tGetter\n\tPut(k, v string)\n}\n\ntype Closing interface {\n\tStore\n\tClose() error\n}\n\ntype Printable interface {\n\tfmt.Stringer\n\tGet(k string) string\n}\n",
    );
    env.write(
        "store/mem.go",
        "package store\n\ntype Mem struct{ m map[string]string }\n\nfunc (s *Mem) Get(k string) string { return s.m[k] }\n\nfunc (s *Mem) Put(k, v string) { s.m[k] = v }\n",
    );
    env.write(
        "store/locked.go",
        "package store\n\n// Locked is a Mem behind a lock.\ntype Locked struct {\n\t*Mem\n\tmu sync.Mutex\n}\n\n// Audited closes what it audits.\ntype Audited struct {\n\tLocked\n}\n\nfunc (a Audited) Close() error { return nil }\n\n// OnlyGet has Get alone.\ntype OnlyGet struct{}\n\nfunc (OnlyGet) Get(k string) string { return k }\n",
    );
    // A test double comes after the sources, though its file sorts first.
    env.write(
        "store/fake_test.go",
        "package store\n\ntype fake struct{}\n\nfunc (fake) Get(k string) string { return k }\n\nfunc (fake) Put(k, v string) {}\n",
    );
    let subtypes = |name: &str| {
        let out = env.json(&["symbol", name]);
        out["attached"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|e| e["relation"] == "subtype")
                    .map(|e| e["line"].as_str().unwrap_or("?").to_string())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        subtypes("Store"),
        [
            "type Closing interface",
            "type Locked struct { Get, Put }",
            "type Audited struct { Get, Put }",
            "type Mem struct { Get, Put }",
            "type fake struct { Get, Put }",
        ]
        .map(String::from),
    );
    assert_eq!(
        subtypes("Closing"),
        ["type Audited struct { Close, Get, Put }"].map(String::from),
    );
    assert_eq!(
        subtypes("Getter"),
        [
            "type Store interface",
            "type Locked struct { Get }",
            "type Audited struct { Get }",
            "type OnlyGet struct { Get }",
            "type Mem struct { Get }",
            "type fake struct { Get }",
        ]
        .map(String::from),
    );
    // A struct embedding an interface has its methods; a type defined in
    // two build-tagged files is the definition beside its methods.
    env.write(
        "store/wrap.go",
        "package store\n\ntype Wrapped struct {\n\tStore\n\tname string\n}\n",
    );
    env.write(
        "store/a_mem_plan9.go",
        "package store\n\ntype Mem struct{ fd int }\n",
    );
    let out = env.json(&["symbol", "Getter"]);
    let docs: Vec<(&str, &str)> = listed(&out, "symbol")
        .into_iter()
        .zip(listed(&out, "doc"))
        .collect();
    assert!(docs.contains(&("Mem", "store/mem.go")), "{out}");
    assert!(
        !docs.iter().any(|(_, d)| *d == "store/a_mem_plan9.go"),
        "{out}"
    );
    assert_eq!(
        subtypes("Getter").last().map(String::as_str),
        Some("type fake struct { Get }")
    );
    assert!(
        subtypes("Getter").contains(&"type Wrapped struct { Get }".to_string()),
        "{:?}",
        subtypes("Getter")
    );
    // fmt.Stringer is not in the pack: its methods are unknown.
    assert_eq!(subtypes("Printable"), Vec::<String>::new());
    // `error` is the language's: its method is known.
    env.write(
        "store/errors.go",
        "package store\n\ntype Failure interface {\n\terror\n\tTemporary() bool\n}\n\ntype busy struct{}\n\nfunc (busy) Error() string { return \"busy\" }\n\nfunc (busy) Temporary() bool { return true }\n",
    );
    assert_eq!(
        subtypes("Failure"),
        ["type busy struct { Error, Temporary }"].map(String::from),
    );
}

/// Embedding across packages: a struct embedding `*files.File` has the
/// methods of `File` in the package `files`, not those of another package's
/// `File`; an interface embedding `rd.Reader` extends that one, wherever it is
/// written; and `ctx symbol rd.Reader` is the interface of the package `rd`.
#[test]
fn go_embedding_across_packages_and_package_qualified_names() {
    let env = Env::empty();
    env.write(
        "rd/rd.go",
        "package rd\n\n// Reader reads.\ntype Reader interface {\n\tRead(p []byte) (int, error)\n}\n",
    );
    env.write(
        "files/file.go",
        "package files\n\ntype File struct{ fd int }\n\nfunc (f *File) Read(p []byte) (int, error) { return 0, nil }\n",
    );
    // Another package's File, without the method.
    env.write(
        "other/file.go",
        "package other\n\ntype File struct{}\n\ntype Reader struct{}\n",
    );
    env.write(
        "logged/logged.go",
        "package logged\n\nimport \"example.com/m/files\"\n\n// Logged logs what its file reads.\ntype Logged struct {\n\t*files.File\n\tlines int\n}\n\n// Lost embeds the other File.\ntype Lost struct {\n\tother.File\n}\n\n// Quiet embeds a struct named Reader, which is not rd's interface.\ntype Quiet struct {\n\tother.Reader\n}\n",
    );
    env.write(
        "wrap/wrap.go",
        "package wrap\n\nimport \"example.com/m/rd\"\n\n// ReadCloser reads and closes.\ntype ReadCloser interface {\n\trd.Reader\n\tClose() error\n}\n",
    );
    let out = env.json(&["symbol", "rd.Reader"]);
    assert_eq!(out["symbol"], "Reader", "{out}");
    assert_eq!(out["doc"], "rd/rd.go", "{out}");
    assert_eq!(
        listed(&out, "line"),
        [
            "type File struct { Read }",
            "type Logged struct { Read }",
            "type ReadCloser interface"
        ],
        "{out}"
    );
    assert_eq!(
        listed(&out, "doc"),
        ["files/file.go", "logged/logged.go", "wrap/wrap.go"],
        "{out}"
    );
    // The bare name is still a choice between the packages' types.
    let text = candidate_list(&env, &["symbol", "Reader"]);
    assert!(text.contains("2 symbols match `Reader`"), "{text}");
    let out = env.json(&["symbol", "other.File"]);
    assert_eq!(out["doc"], "other/file.go", "{out}");
    env.ctx(&["symbol", "nowhere.File"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "no symbol `nowhere.File` in this pack",
        ));
    // ReadCloser's set is rd.Reader's Read and its own Close: nothing has both.
    let out = env.json(&["symbol", "wrap.ReadCloser"]);
    assert!(out.get("attached").is_none(), "{out}");
    env.write(
        "files/close.go",
        "package files\n\nfunc (f *File) Close() error { return nil }\n",
    );
    let out = env.json(&["symbol", "ReadCloser"]);
    assert_eq!(
        listed(&out, "line"),
        [
            "type File struct { Close, Read }",
            "type Logged struct { Close, Read }"
        ],
        "{out}"
    );
    // A package in a directory of another name (`yaml` in `go-yaml`) is not
    // found by name; its interface is still the only one of that name.
    env.write(
        "go-yaml/yaml.go",
        "package yaml\n\ntype Marshaler interface {\n\tMarshalYAML() (any, error)\n}\n",
    );
    env.write(
        "conf/conf.go",
        "package conf\n\ntype Strict interface {\n\tyaml.Marshaler\n\tCheck() error\n}\n\ntype cfg struct{}\n\nfunc (cfg) MarshalYAML() (any, error) { return nil, nil }\n\nfunc (cfg) Check() error { return nil }\n",
    );
    let out = env.json(&["symbol", "Strict"]);
    assert_eq!(
        listed(&out, "line"),
        ["type cfg struct { Check, MarshalYAML }"],
        "{out}"
    );
}

/// A type named like types of other Go packages lists the methods and
/// implementors its own package (directory) defines in other files, and
/// none of the other package's.
#[test]
fn a_go_type_defined_in_several_packages_lists_its_own_packages_methods() {
    let env = Env::empty();
    env.write(
        "tar/reader.go",
        "package tar\n\ntype Reader struct {\n\tr int\n}\n",
    );
    env.write(
        "tar/next.go",
        "package tar\n\nfunc (tr *Reader) Next() error {\n\treturn nil\n}\n",
    );
    env.write(
        "zip/reader.go",
        "package zip\n\ntype Reader struct {\n\tfiles []string\n}\n",
    );
    env.write(
        "zip/open.go",
        "package zip\n\nfunc (z *Reader) Open(name string) error {\n\treturn nil\n}\n",
    );
    let tar = env.json(&["symbol", "Reader", "--file", "tar/reader.go"]);
    assert_eq!(listed(&tar, "symbol"), ["Reader.Next"], "{tar}");
    assert_eq!(listed(&tar, "doc"), ["tar/next.go"], "{tar}");
    let zip = env.json(&["symbol", "Reader", "--file", "zip/reader.go"]);
    assert_eq!(listed(&zip, "symbol"), ["Reader.Open"], "{zip}");
}
