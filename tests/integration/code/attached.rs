//! `ctx symbol Type` names the type's code outside its own node: Rust impl
//! blocks with their methods, Go methods declared on a receiver, and the types
//! that extend or implement it.

use super::super::util::{Env, SHAPE_RS};
use super::{cpp_sample_env, listed, run};

fn rust_env() -> Env {
    let env = Env::empty();
    env.write("src/shape.rs", SHAPE_RS);
    // The type's blocks may live in another file of the crate.
    env.write(
        "src/ops.rs",
        "use crate::shape::Polygon;\n\
         \n\
         impl PartialEq for Polygon {\n\
         \x20   fn eq(&self, other: &Polygon) -> bool {\n\
         \x20       self.sides() == other.sides()\n\
         \x20   }\n\
         }\n",
    );
    env
}

#[test]
fn a_type_window_lists_its_impl_blocks_and_their_methods() {
    let env = rust_env();
    let out = env.json(&["symbol", "Polygon"]);
    assert_eq!(out["kind"], "struct", "{out}");
    let attached = out["attached"].as_array().expect("attached").clone();
    // The type's own file first.
    assert_eq!(
        listed(&out, "doc"),
        ["src/shape.rs", "src/shape.rs", "src/ops.rs"],
        "{out}"
    );
    assert_eq!(
        listed(&out, "symbol"),
        [
            "impl Polygon",
            "impl fmt::Display for Polygon",
            "impl PartialEq for Polygon"
        ],
        "{out}"
    );
    assert_eq!(
        listed(&out, "line"),
        [
            "impl Polygon { triangle, sides }",
            "impl fmt::Display for Polygon { fmt }",
            "impl PartialEq for Polygon { eq }"
        ],
        "{out}"
    );
    assert_eq!(attached[0]["lines"], serde_json::json!([13, 22]), "{out}");

    // The text answer prints them under the window, each with the ID that
    // shows it; that ID is the impl block. An entry in another file names it.
    let (text, _) = run(&env, &["symbol", "Polygon"]);
    assert!(
        text.contains(&format!(
            "}}\nPolygon is also implemented in:\n[{}] 13-22  impl Polygon {{ triangle, sides }}\n[{}] 24-28  impl fmt::Display for Polygon {{ fmt }}\n[{}] src/ops.rs:3-7  impl PartialEq for Polygon {{ eq }}\n",
            attached[0]["id"].as_str().unwrap(),
            attached[1]["id"].as_str().unwrap(),
            attached[2]["id"].as_str().unwrap()
        )),
        "{text}"
    );
    let block = env.json(&["symbol", attached[0]["id"].as_str().unwrap()]);
    assert_eq!(block["symbol"], "impl Polygon", "{block}");
    // Asked for by its ID, the struct lists the same blocks, the other
    // file's included.
    let by_id = env.json(&["symbol", out["id"].as_str().unwrap()]);
    assert_eq!(by_id["attached"], out["attached"], "{by_id}");
    // What is shown under the window's title line, list included, is what
    // the window says it costs.
    let (_, shown) = text.split_once('\n').unwrap();
    assert_eq!(
        out["token_est"].as_u64(),
        Some(ctx::tokens::estimate(shown) as u64),
        "{text}"
    );

    // A method, an impl block and a free function list nothing.
    for name in ["Polygon::sides", "impl Polygon", "triangle"] {
        let out = env.json(&["symbol", name]);
        assert!(out.get("attached").is_none(), "{name}: {out}");
    }
}

#[test]
fn the_list_keeps_to_the_budget_and_names_the_budget_for_the_rest() {
    let env = rust_env();
    let whole = env.json(&["symbol", "Polygon"]);
    let all = whole["token_est"].as_u64().unwrap();
    // One token short of everything: the last entry is left out.
    let short = (all - 1).to_string();
    let out = env.json(&["symbol", "Polygon", "--budget", &short]);
    assert_eq!(out["attached"].as_array().map(Vec::len), Some(2), "{out}");
    assert!(out["token_est"].as_u64().unwrap() < all, "{out}");
    assert_eq!(out["more_attached"]["count"], 1, "{out}");
    assert_eq!(out["more_attached"]["budget_needed"], all, "{out}");
    let (_, stderr) = run(&env, &["symbol", "Polygon", "--budget", &short]);
    assert!(
        stderr.contains(&format!(
            "1 more impl block, method or subtype of Polygon needs --budget {all}"
        )),
        "{stderr}"
    );
    // Room for the struct alone: no list, not even its heading.
    let text_only = ctx::tokens::estimate(whole["text"].as_str().unwrap()).to_string();
    let out = env.json(&["symbol", "Polygon", "--budget", &text_only]);
    assert!(out.get("attached").is_none(), "{out}");
    assert_eq!(out["more_attached"]["count"], 3, "{out}");
    let (text, stderr) = run(&env, &["symbol", "Polygon", "--budget", &text_only]);
    assert!(!text.contains("also implemented"), "{text}");
    assert!(
        stderr.contains(&format!(
            "3 more impl blocks, methods or subtypes of Polygon need --budget {all}"
        )),
        "{stderr}"
    );
    let again = env.json(&["symbol", "Polygon", "--budget", &all.to_string()]);
    assert_eq!(
        again["attached"].as_array().map_or(0, Vec::len),
        3,
        "{again}"
    );
    assert!(again.get("more_attached").is_none(), "{again}");
}

/// Another file's same-named type is not this one: its impl blocks are not
/// listed when the name is defined twice. A block in a third file is the
/// one its `use` leads to, and neither's when the file names no path.
#[test]
fn a_same_named_type_elsewhere_keeps_its_impl_blocks() {
    let env = rust_env();
    env.write(
        "src/other.rs",
        "pub struct Polygon;\n\nimpl Polygon {\n    pub fn other() {}\n}\n",
    );
    env.write(
        "src/unsure.rs",
        "impl Default for Polygon {\n    fn default() -> Self {\n        todo!()\n    }\n}\n",
    );
    let out = env.json(&["symbol", "Polygon", "--file", "src/shape.rs"]);
    let docs = listed(&out, "doc");
    // `src/ops.rs` says `use crate::shape::Polygon;`.
    assert_eq!(
        docs,
        ["src/shape.rs", "src/shape.rs", "src/ops.rs"],
        "{out}"
    );
    let out = env.json(&["symbol", "Polygon", "--file", "src/other.rs"]);
    assert_eq!(listed(&out, "symbol"), ["impl Polygon"], "{out}");
}

/// Go declares methods outside the type, on a receiver.
#[test]
fn a_go_type_lists_its_methods() {
    let env = Env::empty();
    env.write(
        "cache.go",
        "package cache\n\
         \n\
         // Cache keeps recent values.\n\
         type Cache struct {\n\
         \titems map[string][]byte\n\
         }\n\
         \n\
         // Get returns a value.\n\
         func (c *Cache) Get(key string) []byte {\n\
         \treturn c.items[key]\n\
         }\n\
         \n\
         func (c Cache) Len() int { return len(c.items) }\n\
         \n\
         func helper() {}\n\
         \n\
         // Locked embeds a Cache, and so has its methods.\n\
         type Locked struct {\n\
         \t*Cache\n\
         \tmu sync.Mutex\n\
         }\n",
    );
    let out = env.json(&["symbol", "Cache"]);
    let lines = listed(&out, "line");
    assert_eq!(
        lines,
        [
            "func (c *Cache) Get(key string) []byte",
            "func (c Cache) Len() int",
            "type Locked struct"
        ],
        "{out}"
    );
    assert_eq!(
        listed(&out, "relation"),
        ["method", "method", "subtype"],
        "{out}"
    );
}

/// C++ defines methods outside the class body as `Class::method`, also when
/// they return a reference (`const Limit &TokenBucket::limit() const`).
#[test]
fn a_cpp_class_lists_its_methods_defined_outside_it() {
    let env = cpp_sample_env();
    let out = env.json(&["symbol", "TokenBucket"]);
    assert_eq!(
        listed(&out, "symbol"),
        [
            "limits::TokenBucket::try_take",
            "limits::TokenBucket::refill",
            "limits::TokenBucket::limit"
        ],
        "{out}"
    );
    assert_eq!(
        listed(&out, "line"),
        [
            "bool TokenBucket::try_take(std::int64_t n)",
            "void TokenBucket::refill()",
            "const Limit &TokenBucket::limit() const"
        ],
        "{out}"
    );
}

/// A trait's list is the impl blocks that implement it, generic or not.
#[test]
fn a_trait_lists_the_impl_blocks_that_implement_it() {
    let env = Env::empty();
    env.write(
        "src/visit.rs",
        "pub trait Visitor<'s> {\n    fn visit(&mut self, name: &'s str);\n}\n\n\
         pub struct Count(usize);\n\n\
         impl<'s> Visitor<'s> for Count {\n    fn visit(&mut self, _: &'s str) {\n        self.0 += 1;\n    }\n}\n\n\
         impl Count {\n    pub fn total(&self) -> usize {\n        self.0\n    }\n}\n",
    );
    env.write(
        "src/log.rs",
        "pub struct Log;\n\nimpl<'s> crate::visit::Visitor<'s> for Log {\n    fn visit(&mut self, name: &'s str) {\n        println!(\"{name}\");\n    }\n}\n",
    );
    let out = env.json(&["symbol", "Visitor"]);
    let headers = listed(&out, "symbol");
    assert_eq!(
        headers,
        [
            "impl<'s> Visitor<'s> for Count",
            "impl<'s> crate::visit::Visitor<'s> for Log"
        ],
        "{out}"
    );
    // Each with its methods, though they do not name the trait.
    assert_eq!(
        listed(&out, "line"),
        [
            "impl<'s> Visitor<'s> for Count { visit }",
            "impl<'s> crate::visit::Visitor<'s> for Log { visit }"
        ],
        "{out}"
    );
    assert_eq!(listed(&out, "relation"), ["impl", "impl"], "{out}");
    // The lookup by header names the trait as the list does, generics aside.
    let block = env.json(&["symbol", "impl Visitor for Count"]);
    assert_eq!(block["symbol"], "impl<'s> Visitor<'s> for Count", "{block}");
    let (text, _) = run(&env, &["symbol", "impl Visitor for Count"]);
    assert!(
        text.contains("] impl<'s> Visitor<'s> for Count (src/visit.rs:"),
        "{text}"
    );
    // The type's own list has both of its blocks.
    let count = env.json(&["symbol", "Count"]);
    let lines = listed(&count, "line");
    assert_eq!(
        lines,
        [
            "impl<'s> Visitor<'s> for Count { visit }",
            "impl Count { total }"
        ],
        "{out}"
    );
}

/// A Java interface lists the classes implementing it and the interfaces
/// extending it, in any file, each with its methods.
#[test]
fn a_java_interface_lists_what_implements_or_extends_it() {
    let env = Env::empty();
    env.write(
        "src/Listener.java",
        "package app;\n\n/** Hears about closed ledgers. */\npublic interface Listener<T> {\n    void onClose(T ledger);\n}\n",
    );
    env.write(
        "src/Audit.java",
        "package app;\n\npublic final class Audit extends Base implements Closeable, app.Listener<Ledger> {\n    public void onClose(Ledger l) {\n        check(l);\n    }\n\n    void check(Ledger l) {}\n}\n",
    );
    env.write(
        "src/Loud.java",
        "package app;\n\ninterface Loud extends Listener<Ledger> {\n    void shout();\n}\n",
    );
    // Naming the interface in a body or a field is not implementing it.
    env.write(
        "src/Bus.java",
        "package app;\n\nclass Bus {\n    Listener<Ledger> listener;\n    void add(Listener<Ledger> l) { listener = l; }\n}\n",
    );
    let out = env.json(&["symbol", "Listener"]);
    assert_eq!(listed(&out, "symbol"), ["Audit", "Loud"], "{out}");
    assert_eq!(listed(&out, "relation"), ["subtype", "subtype"], "{out}");
    assert_eq!(
        listed(&out, "line"),
        [
            "public final class Audit extends Base implements Closeable, app.Listener<Ledger> { onClose, check }",
            "interface Loud extends Listener<Ledger>"
        ],
        "{out}"
    );
    let (text, _) = run(&env, &["symbol", "Listener"]);
    let audit = out["attached"][0]["id"].as_str().unwrap();
    assert!(
        text.contains(&format!(
            "Listener is extended or implemented by:\n[{audit}] src/Audit.java:3-9  public final class Audit"
        )),
        "{text}"
    );
    let (_, shown) = text.split_once('\n').unwrap();
    assert_eq!(
        out["token_est"].as_u64(),
        Some(ctx::tokens::estimate(shown) as u64),
        "{text}"
    );
    // The entry's ID shows the class.
    let class = env.json(&["symbol", audit]);
    assert_eq!(class["symbol"], "Audit", "{class}");
}

/// A Python base class lists its subclasses (a keyword argument such as
/// `metaclass=` is not a base); when two files define the base's name, a
/// subclass elsewhere could mean either and is not listed.
#[test]
fn a_python_base_class_lists_its_subclasses() {
    let env = Env::empty();
    env.write(
        "pkg/base.py",
        "import abc\n\n\nclass Resource(abc.ABC):\n    \"\"\"A readable thing.\"\"\"\n\n    @abc.abstractmethod\n    def read(self): ...\n",
    );
    env.write(
        "pkg/kinds.py",
        "from pkg import base\n\n\nclass Text(base.Resource):\n    def read(self):\n        return self.text\n\n\nclass Meta(metaclass=Resource):\n    pass\n",
    );
    let out = env.json(&["symbol", "Resource"]);
    assert_eq!(listed(&out, "symbol"), ["Text"], "{out}");
    assert_eq!(
        listed(&out, "line"),
        ["class Text(base.Resource) { read }"],
        "{out}"
    );

    env.write(
        "other/model.py",
        "class Resource:\n    pass\n\n\nclass Local(Resource):\n    pass\n",
    );
    // Which `Resource` a subclass means is what its file imports: through
    // a module (`base.Resource`) or by name (relative or absolute, also
    // under `TYPE_CHECKING`); a file importing neither means neither.
    env.write(
        "other/views.py",
        "from .model import Resource\n\n\nclass View(Resource):\n    pass\n",
    );
    env.write(
        "app/main.py",
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.base import Resource\n\n\nclass Page(Resource):\n    pass\n",
    );
    env.write("app/bare.py", "class Stray(Resource):\n    pass\n");
    let out = env.json(&["symbol", "Resource", "--file", "pkg/base.py"]);
    assert_eq!(listed(&out, "symbol"), ["Page", "Text"], "{out}");
    let out = env.json(&["symbol", "Resource", "--file", "other/model.py"]);
    assert_eq!(listed(&out, "symbol"), ["Local", "View"], "{out}");
}

/// A C++ class with a method defined outside it and a derived class gets
/// both, under a heading that says so; TypeScript `implements` and interface
/// `extends` count as TypeScript writes them.
#[test]
fn cpp_and_typescript_subtypes() {
    let env = Env::empty();
    env.write(
        "shape.cpp",
        "class Shape {\n public:\n  double area() const;\n};\n\ndouble Shape::area() const { return 0; }\n\nclass Square : public Shape {\n  double side;\n};\n",
    );
    let out = env.json(&["symbol", "Shape"]);
    assert_eq!(listed(&out, "relation"), ["method", "subtype"], "{out}");
    let (text, _) = run(&env, &["symbol", "Shape"]);
    assert!(
        text.contains("Shape is also implemented in, and extended by:\n"),
        "{text}"
    );
    assert!(text.contains("  class Square : public Shape\n"), "{text}");

    env.write(
        "store.ts",
        "export interface Readable {\n  read(): string;\n}\n\nexport class Store implements Readable {\n  read(): string {\n    return '';\n  }\n}\n\ninterface Seekable extends Readable {\n  seek(at: number): void;\n}\n",
    );
    let out = env.json(&["symbol", "Readable"]);
    assert_eq!(listed(&out, "symbol"), ["Store", "Seekable"], "{out}");
}

/// A type named like types of other crates lists the impl blocks of its own
/// crate, in any of its files, and none of another crate's; a name its own
/// crate defines twice keeps to the owner's file.
#[test]
fn a_type_defined_in_several_crates_lists_its_own_crates_blocks() {
    let env = Env::empty();
    env.cargo_workspace(&["json", "toml"]);
    env.write(
        "crates/json/src/value.rs",
        "pub enum Value {\n    Null,\n    Bool(bool),\n}\n\nimpl Value {\n    pub fn is_null(&self) -> bool {\n        matches!(self, Value::Null)\n    }\n}\n",
    );
    env.write(
        "crates/json/src/from.rs",
        "use crate::value::Value;\n\nimpl From<bool> for Value {\n    fn from(b: bool) -> Value {\n        Value::Bool(b)\n    }\n}\n",
    );
    env.write(
        "crates/toml/src/value.rs",
        "pub enum Value {\n    Integer(i64),\n}\n",
    );
    env.write(
        "crates/toml/src/convert.rs",
        "use crate::value::Value;\n\nimpl From<i64> for Value {\n    fn from(i: i64) -> Value {\n        Value::Integer(i)\n    }\n}\n",
    );
    let json = env.json(&["symbol", "Value", "--file", "crates/json/src/value.rs"]);
    assert_eq!(
        listed(&json, "line"),
        [
            "impl Value { is_null }",
            "impl From<bool> for Value { from }"
        ],
        "{json}"
    );
    let (text, _) = run(
        &env,
        &["symbol", "Value", "--file", "crates/json/src/value.rs"],
    );
    assert!(
        text.contains("  impl From<bool> for Value { from }\n")
            && text.contains("] crates/json/src/from.rs:3-7  impl From<bool>"),
        "{text}"
    );
    let toml = env.json(&["symbol", "Value", "--file", "crates/toml/src/value.rs"]);
    assert_eq!(
        listed(&toml, "line"),
        ["impl From<i64> for Value { from }"],
        "{toml}"
    );

    // A second `Value` in the json crate: `from.rs` still means the first,
    // as its `use` says; a block in a file naming no path means neither.
    env.write("crates/json/src/raw.rs", "pub struct Value(String);\n");
    env.write(
        "crates/json/src/unsure.rs",
        "impl Default for Value {\n    fn default() -> Self {\n        todo!()\n    }\n}\n",
    );
    let json = env.json(&["symbol", "Value", "--file", "crates/json/src/value.rs"]);
    assert_eq!(
        listed(&json, "line"),
        [
            "impl Value { is_null }",
            "impl From<bool> for Value { from }"
        ],
        "{json}"
    );
}

/// A trait named like traits of other crates lists the impl blocks of any
/// crate whose file leads its name to it: by a `use` (in a list, through a
/// module bound by `self`, renamed) or by the path the header writes; a
/// crate's two traits of one name are told apart the same way.
#[test]
fn a_trait_lists_the_impl_blocks_whose_uses_lead_to_it() {
    let env = Env::empty();
    env.cargo_workspace(&["ser", "other", "app"]);
    env.write(
        "crates/ser/src/lib.rs",
        "pub mod encode;\n\npub trait Encode {\n    fn encode(&self) -> String;\n}\n",
    );
    env.write(
        "crates/ser/src/encode.rs",
        "pub trait Encode {\n    fn encode_to(&self, out: &mut String);\n}\n",
    );
    env.write(
        "crates/other/src/lib.rs",
        "pub trait Encode {\n    fn bytes(&self) -> Vec<u8>;\n}\n",
    );
    env.write(
        "crates/app/src/listed.rs",
        "use ser::{self as codec, Encode};\n\npub struct A;\n\nimpl Encode for A {\n    fn encode(&self) -> String {\n        String::new()\n    }\n}\n",
    );
    env.write(
        "crates/app/src/pathed.rs",
        "pub struct B;\n\nimpl ser::encode::Encode for B {\n    fn encode_to(&self, _: &mut String) {}\n}\n",
    );
    env.write(
        "crates/app/src/moduled.rs",
        "use ser::encode;\n\npub struct C;\n\nimpl encode::Encode for C {\n    fn encode_to(&self, _: &mut String) {}\n}\n",
    );
    env.write(
        "crates/app/src/theirs.rs",
        "use other::Encode as Bytes;\n\npub struct D;\n\nimpl Bytes for D {\n    fn bytes(&self) -> Vec<u8> {\n        Vec::new()\n    }\n}\n\nimpl other::Encode for D {}\n",
    );
    let of = |file: &str| {
        let out = env.json(&["symbol", "Encode", "--file", file]);
        listed(&out, "symbol")
            .into_iter()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(of("crates/ser/src/lib.rs"), ["impl Encode for A"]);
    assert_eq!(
        of("crates/ser/src/encode.rs"),
        [
            "impl encode::Encode for C",
            "impl ser::encode::Encode for B"
        ]
    );
    // Renamed on import, the trait is still found by its own name's impl
    // blocks only when they write that name: `impl Bytes for D` is not.
    assert_eq!(of("crates/other/src/lib.rs"), ["impl other::Encode for D"]);
}

/// Java and TypeScript subtypes of a name two places define are listed
/// under the one their file's imports lead to: a Java `import`, or the
/// file's own package without one; an ES `import` or a CommonJS `require`
/// by relative path, from JavaScript too.
#[test]
fn java_and_script_subtypes_follow_their_imports() {
    let env = Env::empty();
    let java = "src/main/java/com/acme";
    env.write(
        &format!("{java}/core/Base.java"),
        "package com.acme.core;\n\npublic abstract class Base {\n    public abstract void run();\n}\n",
    );
    env.write(
        &format!("{java}/legacy/Base.java"),
        "package com.acme.legacy;\n\npublic class Base {\n}\n",
    );
    env.write(
        &format!("{java}/audit/Audit.java"),
        "package com.acme.audit;\n\nimport com.acme.core.Base;\n\npublic class Audit extends Base {\n    public void run() {}\n}\n",
    );
    env.write(
        &format!("{java}/legacy/Old.java"),
        "package com.acme.legacy;\n\npublic class Old extends Base {\n}\n",
    );
    let core = env.json(&["symbol", "Base", "--file", &format!("{java}/core")]);
    assert_eq!(
        listed(&core, "line"),
        ["public class Audit extends Base { run }"],
        "{core}"
    );
    let legacy = env.json(&[
        "symbol",
        "Base",
        "--file",
        &format!("{java}/legacy/Base.java"),
    ]);
    assert_eq!(listed(&legacy, "symbol"), ["Old"], "{legacy}");

    env.write(
        "web/a/base.ts",
        "export class Store {\n  get(): string {\n    return '';\n  }\n}\n",
    );
    env.write("web/b/base.ts", "export class Store {}\n");
    env.write(
        "web/c/cache.ts",
        "import { Store } from '../a/base';\n\nexport class Cache extends Store {}\n",
    );
    env.write(
        "web/c/legacy.js",
        "const { Store } = require('../b/base.js');\n\nclass Legacy extends Store {}\n",
    );
    env.write("web/c/bare.ts", "class Stray extends Store {}\n");
    let a = env.json(&["symbol", "Store", "--file", "web/a/base.ts"]);
    assert_eq!(listed(&a, "symbol"), ["Cache"], "{a}");
    let b = env.json(&["symbol", "Store", "--file", "web/b/base.ts"]);
    assert_eq!(listed(&b, "symbol"), ["Legacy"], "{b}");
}

/// A class over the budget is shown as its outline, and its subclasses keep
/// a share of the budget beside it: more budget never lists fewer of them,
/// and the budget named for the members left out shows every member and
/// every subclass.
#[test]
fn an_outline_leaves_room_for_what_is_attached() {
    let env = Env::empty();
    let methods: String = (0..40)
        .map(|i| {
            let body: String = (0..12)
                .map(|k| format!("        value = value * {k} + {i}\n"))
                .collect();
            format!("    def method_{i}(self, value):\n        \"\"\"Handle value {i}.\"\"\"\n{body}        return value\n\n")
        })
        .collect();
    env.write(
        "pkg/base.py",
        format!("class Handler:\n    \"\"\"Handles values.\"\"\"\n\n{methods}"),
    );
    let subs: String = (0..6)
        .map(|i| format!("class Sub{i}(Handler):\n    def method_{i}(self, value):\n        return value\n\n\n"))
        .collect();
    env.write(
        "pkg/subs.py",
        format!("from pkg.base import Handler\n\n\n{subs}"),
    );
    let mut listed_before = 0;
    for budget in [300, 400, 500, 700, 900] {
        let out = env.json(&["symbol", "Handler", "--budget", &budget.to_string()]);
        assert!(out["members"].is_array(), "an outline at {budget}: {out}");
        let listed = out["attached"].as_array().map_or(0, Vec::len);
        assert!(
            listed >= listed_before,
            "{budget}: {listed} < {listed_before}: {out}"
        );
        assert!(listed > 0, "{budget}: {out}");
        assert!(out["token_est"].as_u64().unwrap() <= budget, "{out}");
        listed_before = listed;
    }
    let out = env.json(&["symbol", "Handler", "--budget", "300"]);
    let needed = out["more_members"]["budget_needed"]
        .as_u64()
        .expect("members left out");
    let all = env.json(&["symbol", "Handler", "--budget", &needed.to_string()]);
    assert!(all.get("more_members").is_none(), "{all}");
    assert!(all.get("more_attached").is_none(), "{all}");
    assert_eq!(listed(&all, "symbol").len(), 6, "{all}");
}
