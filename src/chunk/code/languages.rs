//! The supported languages, as data: one [`LanguageSpec`] row per language.
//!
//! A row names the grammar, the file extensions, the symbol query (an `.scm` file
//! under `queries/`, included at compile time) and the few lexical facts the
//! chunker cannot get from the query: which node kinds are comments, which of
//! those are documentation, which are attributes (both stick to the definition
//! below them), which wrap a definition (`export`, decorators), how qualified
//! names are joined, how a body is elided in a skeleton, and whether the C
//! preprocessor applies (macros blanked, backslash continuations). Adding a
//! language is one row, one query file and one fixture directory; no code
//! outside this table changes. The queries compile once per process, on first
//! use.

use std::sync::OnceLock;

use tree_sitter::{Language, Query};

/// How a skeleton elides a function body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyStyle {
    /// The body is a `{ … }` block (C family, Rust, Go, Java, JavaScript).
    Braces,
    /// The body is an indented block after a colon (Python): replaced by `...`.
    Indented,
}

/// One supported language: grammar, extensions, symbol query and lexical facts.
#[derive(Debug)]
pub struct LanguageSpec {
    /// Short lowercase name stored in `Chunk::lang` (`rust`, `python`, `tsx`, …).
    pub name: &'static str,
    /// File extensions without the dot, lowercase.
    pub extensions: &'static [&'static str],
    /// Joins containers and names in `Symbol::qualified` (`::` or `.`).
    pub separator: &'static str,
    /// Node kinds that are comments.
    pub comment_kinds: &'static [&'static str],
    /// How a doc comment starts (`///`, `/**`); empty when any comment above a
    /// definition documents it (Go, C, Python's `#` before a docstring-less def).
    pub doc_prefixes: &'static [&'static str],
    /// Node kinds that annotate the definition after them (`#[derive]`, …).
    pub attribute_kinds: &'static [&'static str],
    /// Node kinds that wrap one definition and belong to it (`export`, decorators).
    pub wrapper_kinds: &'static [&'static str],
    /// How [`super::skeleton`] elides bodies.
    pub body_style: BodyStyle,
    /// Whether the C preprocessor applies (C, C++): export and annotation
    /// macros around declarations are blanked before parsing (`macros.rs`),
    /// and a definition runs on over lines a backslash continues.
    pub preprocessor: bool,
    grammar: fn() -> Language,
    query_source: &'static str,
    compiled: OnceLock<Result<Compiled, String>>,
}

/// What a query capture means to the extractor (see `queries/rust.scm`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Role {
    /// `@definition.<kind>`: the node a symbol spans, of this kind.
    Definition(Box<str>),
    /// `@name`: the symbol's name.
    Name,
    /// `@scope`: a qualifier written outside any container.
    Scope,
    /// `@declarator`: a C-style declarator that holds the name (see
    /// [`super::matches::declared_name`]).
    Declarator,
    /// `@doc`: a docstring inside the definition.
    Doc,
    /// `@super`: a type the definition extends or implements.
    Super,
    /// `@requires`: a method an interface requires (Go, where nothing names
    /// the interface a type satisfies).
    Requires,
    /// `@declared.<kind>`: a member its container declares without a chunk
    /// of its own (a required method, a prototype, a field, a variant).
    Declared(Box<str>),
    /// `@declared_name`: that member's name.
    DeclaredName,
    /// `@declared_declarator`: a C-style declarator holding that name.
    DeclaredDeclarator,
    /// Anything else (helper captures used by predicates).
    Other,
}

/// A grammar with its compiled symbol query, built once per process.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) language: Language,
    pub(crate) query: Query,
    /// Role of each capture, by capture index.
    pub(crate) roles: Vec<Role>,
    /// Whether each pattern carries `(#set! container)`, by pattern index.
    pub(crate) containers: Vec<bool>,
    /// Whether each pattern carries `(#set! qualified)`: its `@super`
    /// captures keep their last qualifier (see [`super::matches::type_name`]).
    pub(crate) qualified: Vec<bool>,
    /// Whether each pattern carries `(#set! declaration)`: its definition
    /// declares what is defined elsewhere.
    pub(crate) declarations: Vec<bool>,
    /// Whether each pattern carries `(#set! instance)`: its `@declared`
    /// member is assigned in a method (`self.items = []` in `__init__`) and
    /// belongs to the class around it.
    pub(crate) instance: Vec<bool>,
    /// The kind each pattern's `(#set! scoped <kind>)` gives a definition whose
    /// `@declarator` holds a qualified name (C++'s `void Foo::bar() {…}`).
    pub(crate) scoped: Vec<Option<Box<str>>>,
}

impl Compiled {
    fn new(language: Language, query: Query) -> Compiled {
        let roles = query
            .capture_names()
            .iter()
            .map(|name| match *name {
                "name" => Role::Name,
                "scope" => Role::Scope,
                "declarator" => Role::Declarator,
                "doc" => Role::Doc,
                "super" => Role::Super,
                "requires" => Role::Requires,
                "declared_name" => Role::DeclaredName,
                "declared_declarator" => Role::DeclaredDeclarator,
                other => match (
                    other.strip_prefix("definition."),
                    other.strip_prefix("declared."),
                ) {
                    (Some(kind), _) => Role::Definition(kind.into()),
                    (_, Some(kind)) => Role::Declared(kind.into()),
                    _ => Role::Other,
                },
            })
            .collect();
        let flagged = |key: &str| -> Vec<bool> {
            (0..query.pattern_count())
                .map(|pattern| {
                    query
                        .property_settings(pattern)
                        .iter()
                        .any(|property| &*property.key == key)
                })
                .collect()
        };
        let containers = flagged("container");
        let qualified = flagged("qualified");
        let declarations = flagged("declaration");
        let instance = flagged("instance");
        let scoped = (0..query.pattern_count())
            .map(|pattern| {
                query
                    .property_settings(pattern)
                    .iter()
                    .find(|property| &*property.key == "scoped")
                    .and_then(|property| property.value.clone())
            })
            .collect();
        Compiled {
            language,
            query,
            roles,
            containers,
            qualified,
            declarations,
            instance,
            scoped,
        }
    }
}

impl LanguageSpec {
    /// The tree-sitter grammar.
    pub fn grammar(&self) -> Language {
        (self.grammar)()
    }

    /// The symbol query source (`queries/<name>.scm`).
    pub fn query_source(&self) -> &'static str {
        self.query_source
    }

    /// The compiled grammar and query; the error names the language and the
    /// query's complaint (a bug in our `.scm`, caught by the unit tests).
    pub(crate) fn compiled(&self) -> Result<&Compiled, &str> {
        self.compiled
            .get_or_init(|| {
                let language = (self.grammar)();
                Query::new(&language, self.query_source)
                    .map(|query| Compiled::new(language, query))
                    .map_err(|error| {
                        format!("symbol query for `{}` is invalid: {error}", self.name)
                    })
            })
            .as_ref()
            .map_err(String::as_str)
    }

    pub(crate) fn is_comment(&self, kind: &str) -> bool {
        self.comment_kinds.contains(&kind)
    }

    /// True when comment `text` is documentation by this language's convention.
    pub(crate) fn is_doc_comment(&self, text: &str) -> bool {
        self.doc_prefixes.is_empty()
            || self
                .doc_prefixes
                .iter()
                .any(|prefix| text.starts_with(prefix))
    }

    pub(crate) fn is_attribute(&self, kind: &str) -> bool {
        self.attribute_kinds.contains(&kind)
    }

    pub(crate) fn is_wrapper(&self, kind: &str) -> bool {
        self.wrapper_kinds.contains(&kind)
    }
}

// `::` where the language itself writes paths that way (Rust, C++), `.` elsewhere.
static LANGUAGES: [LanguageSpec; 9] = [
    LanguageSpec {
        name: "rust",
        extensions: &["rs"],
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        query_source: include_str!("queries/rust.scm"),
        separator: "::",
        comment_kinds: &["line_comment", "block_comment"],
        doc_prefixes: &["///", "/**"],
        attribute_kinds: &["attribute_item"],
        wrapper_kinds: &[],
        body_style: BodyStyle::Braces,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "python",
        extensions: &["py", "pyi"],
        grammar: || tree_sitter_python::LANGUAGE.into(),
        query_source: include_str!("queries/python.scm"),
        separator: ".",
        comment_kinds: &["comment"],
        doc_prefixes: &[],
        attribute_kinds: &[],
        wrapper_kinds: &["decorated_definition"],
        body_style: BodyStyle::Indented,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "javascript",
        extensions: &["js", "mjs", "cjs", "jsx"],
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        query_source: include_str!("queries/javascript.scm"),
        separator: ".",
        comment_kinds: &["comment"],
        doc_prefixes: &["/**"],
        attribute_kinds: &["decorator"],
        wrapper_kinds: &["export_statement"],
        body_style: BodyStyle::Braces,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "typescript",
        extensions: &["ts", "mts", "cts"],
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        query_source: include_str!("queries/typescript.scm"),
        separator: ".",
        comment_kinds: &["comment"],
        doc_prefixes: &["/**"],
        attribute_kinds: &["decorator"],
        wrapper_kinds: &["export_statement", "ambient_declaration"],
        body_style: BodyStyle::Braces,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "tsx",
        extensions: &["tsx"],
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        query_source: include_str!("queries/typescript.scm"),
        separator: ".",
        comment_kinds: &["comment"],
        doc_prefixes: &["/**"],
        attribute_kinds: &["decorator"],
        wrapper_kinds: &["export_statement", "ambient_declaration"],
        body_style: BodyStyle::Braces,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "go",
        extensions: &["go"],
        grammar: || tree_sitter_go::LANGUAGE.into(),
        query_source: include_str!("queries/go.scm"),
        separator: ".",
        comment_kinds: &["comment"],
        doc_prefixes: &[],
        attribute_kinds: &[],
        wrapper_kinds: &[],
        body_style: BodyStyle::Braces,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "java",
        extensions: &["java"],
        grammar: || tree_sitter_java::LANGUAGE.into(),
        query_source: include_str!("queries/java.scm"),
        separator: ".",
        comment_kinds: &["line_comment", "block_comment"],
        doc_prefixes: &["/**"],
        attribute_kinds: &[],
        wrapper_kinds: &[],
        body_style: BodyStyle::Braces,
        preprocessor: false,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "c",
        extensions: &["c", "h"],
        grammar: || tree_sitter_c::LANGUAGE.into(),
        query_source: include_str!("queries/c.scm"),
        separator: ".",
        comment_kinds: &["comment"],
        doc_prefixes: &[],
        attribute_kinds: &[],
        wrapper_kinds: &[],
        body_style: BodyStyle::Braces,
        preprocessor: true,
        compiled: OnceLock::new(),
    },
    LanguageSpec {
        name: "cpp",
        extensions: &["cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        grammar: || tree_sitter_cpp::LANGUAGE.into(),
        query_source: include_str!("queries/cpp.scm"),
        separator: "::",
        comment_kinds: &["comment"],
        doc_prefixes: &[],
        attribute_kinds: &[],
        wrapper_kinds: &["template_declaration"],
        body_style: BodyStyle::Braces,
        preprocessor: true,
        compiled: OnceLock::new(),
    },
];

/// Every supported language, in table order.
pub fn all_languages() -> &'static [LanguageSpec] {
    &LANGUAGES
}

/// The language named `name` (as in [`LanguageSpec::name`]).
pub fn language_by_name(name: &str) -> Option<&'static LanguageSpec> {
    LANGUAGES
        .iter()
        .find(|spec| spec.name.eq_ignore_ascii_case(name))
}

/// The language of `path`, by its extension (case-insensitive).
pub fn language_for_path(path: &str) -> Option<&'static LanguageSpec> {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (stem, extension) = file.rsplit_once('.')?;
    if stem.is_empty() {
        return None;
    }
    LANGUAGES.iter().find(|spec| {
        spec.extensions
            .iter()
            .any(|known| known.eq_ignore_ascii_case(extension))
    })
}
