//! Query matches: a language's query run over a syntax tree (kept out of
//! definitions' bodies), each match recorded as a candidate definition or as
//! names and docs attached to one, then deduplicated; and the supertype names
//! `@super` captures become.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, QueryCursor, StreamingIterator};

use super::extract::Declared;
use super::languages::{Compiled, LanguageSpec, Role};

/// One query match that names a definition, before deduplication.
pub(super) struct Candidate<'tree> {
    pub(super) pattern: usize,
    /// Borrowed from the query, which outlives the tree.
    pub(super) kind: &'tree str,
    pub(super) container: bool,
    /// Its pattern says it declares what is defined elsewhere.
    pub(super) declaration: bool,
    /// The captured node.
    pub(super) node: Node<'tree>,
    /// `node` widened over wrapper ancestors.
    pub(super) outer: Node<'tree>,
    /// The bytes the definition spans: `outer`'s, or further when the grammar
    /// cut it short (see [`continued_span`]).
    pub(super) span: Range<usize>,
    pub(super) name: Node<'tree>,
    pub(super) scope: Option<Node<'tree>>,
}

pub(super) struct Candidates<'tree> {
    pub(super) list: Vec<Candidate<'tree>>,
    /// Docstring ranges keyed by the id of the definition node they belong to.
    pub(super) docs: HashMap<usize, Range<usize>>,
    /// Supertypes and required methods of definition nodes.
    pub(super) names: NodeNames,
    /// `@doc` captures in matches without a definition.
    pub(super) file_docs: Vec<Range<usize>>,
    /// `@declared.<kind>` matches: members declared in a container's chunk,
    /// by start, one per name and node (the earliest pattern's).
    pub(super) declared: Vec<Declared>,
    /// Whether any pattern made each candidate's node a container, by node id.
    pub(super) owners: HashMap<usize, bool>,
}

pub(super) fn candidates<'tree>(
    text: &str,
    spec: &LanguageSpec,
    compiled: &'tree Compiled,
    root: Node<'tree>,
    prune: bool,
) -> Candidates<'tree> {
    let mut found = Candidates {
        list: Vec::new(),
        docs: HashMap::new(),
        names: NodeNames::default(),
        file_docs: Vec::new(),
        declared: Vec::new(),
        owners: HashMap::new(),
    };
    let mut cursor = QueryCursor::new();
    if prune {
        // A definition inside a definition that is not a container is part
        // of its body and never a symbol (see `extract::build`), so the query need
        // not look there: bodies are most of a file's nodes. Each node is
        // matched by the patterns that start at it, then its children are
        // visited unless it is such a definition.
        cursor.set_max_start_depth(Some(0));
        let mut pending = vec![root];
        let mut children = root.walk();
        while let Some(node) = pending.pop() {
            let mut matches = cursor.matches(&compiled.query, node, text.as_bytes());
            while let Some(one) = matches.next() {
                found.add(text, spec, compiled, one);
            }
            if found.owners.get(&node.id()) == Some(&false) {
                continue;
            }
            let first = pending.len();
            pending.extend(node.children(&mut children));
            pending[first..].reverse();
        }
    } else {
        let mut matches = cursor.matches(&compiled.query, root, text.as_bytes());
        while let Some(one) = matches.next() {
            found.add(text, spec, compiled, one);
        }
    }
    found.finish()
}

impl<'tree> Candidates<'tree> {
    /// Records one query match.
    fn add(
        &mut self,
        text: &str,
        spec: &LanguageSpec,
        compiled: &'tree Compiled,
        found: &tree_sitter::QueryMatch<'_, 'tree>,
    ) {
        let (mut definition, mut name, mut scope, mut doc) = (None, None, None, None);
        let mut declared = false;
        let (mut bases, mut required) = (Vec::new(), Vec::new());
        let (mut member, mut member_name) = (None, None);
        for capture in found.captures() {
            match &compiled.roles[capture.index as usize] {
                Role::Definition(kind) => definition = Some((&**kind, capture.node)),
                Role::Name => name = Some(capture.node),
                Role::Scope => scope = Some(capture.node),
                Role::Declarator => {
                    let Some((qualifier, named)) = declared_name(capture.node) else {
                        return;
                    };
                    declared |= qualifier.is_some();
                    scope = qualifier.or(scope);
                    name = Some(named);
                }
                Role::Doc => doc = Some(capture.node),
                Role::Super => bases.push(capture.node),
                Role::Requires => required.push(capture.node),
                Role::Declared(kind) => member = Some((&**kind, capture.node)),
                Role::DeclaredName => member_name = Some(capture.node),
                Role::DeclaredDeclarator => {
                    member_name = declared_name(capture.node).map(|(_, named)| named);
                }
                Role::Other => {}
            }
        }
        if let (Some((kind, member)), Some(named)) = (member, member_name) {
            let (start, _) = super::extract::prefix(text, spec, member);
            self.declared.push(Declared {
                kind: kind.to_string(),
                name: super::extract::collapse(&text[named.byte_range()]),
                range: start..member.end_byte(),
                node: member.byte_range(),
                pattern: found.pattern_index,
                instance: compiled.instance[found.pattern_index],
            });
            return;
        }
        let Some((mut kind, node)) = definition else {
            self.file_docs.extend(doc.map(|doc| doc.byte_range()));
            return;
        };
        if let Some(doc) = doc {
            self.docs
                .entry(node.id())
                .or_insert_with(|| doc.byte_range());
        }
        let qualified = compiled.qualified[found.pattern_index];
        for base in bases {
            let written = &text[base.byte_range()];
            let name = if qualified {
                qualified_type_name(written)
            } else {
                type_name(written)
            };
            add_name(&mut self.names.supers, node.id(), name);
        }
        for method in required {
            add_name(
                &mut self.names.requires,
                node.id(),
                text[method.byte_range()].to_string(),
            );
        }
        let Some(name) = name else {
            return;
        };
        if declared && let Some(scoped) = &compiled.scoped[found.pattern_index] {
            kind = scoped;
        }
        let mut outer = node;
        while let Some(parent) = outer
            .parent()
            .filter(|parent| spec.is_wrapper(parent.kind()))
        {
            outer = parent;
        }
        let container = compiled.containers[found.pattern_index];
        let declaration = compiled.declarations[found.pattern_index];
        *self.owners.entry(node.id()).or_insert(container) |= container;
        self.list.push(Candidate {
            pattern: found.pattern_index,
            kind,
            container,
            declaration,
            node,
            outer,
            // Elsewhere a backslash ending a line is no continuation
            // (`fn f() {} // C:\`).
            span: if spec.preprocessor {
                continued_span(text, outer)
            } else {
                outer.byte_range()
            },
            name,
            scope,
        });
    }

    /// Deduplicates and orders the candidates.
    fn finish(mut self) -> Candidates<'tree> {
        let list = &mut self.list;
        // A name captured by several patterns belongs to the widest definition (so a
        // wrapper joins its symbol); a node captured by several patterns takes the
        // earliest pattern (so specific patterns can precede general ones).
        list.sort_by_key(|c| (c.name.id(), Reverse(c.span.len()), c.pattern));
        list.dedup_by_key(|c| c.name.id());
        list.sort_by_key(|c| {
            (
                c.span.start,
                Reverse(c.span.end),
                c.pattern,
                c.name.start_byte(),
            )
        });
        list.dedup_by_key(|c| c.span.clone());
        let declared = &mut self.declared;
        declared.sort_by(|a, b| {
            (a.node.start, a.node.end, &a.name, a.pattern).cmp(&(
                b.node.start,
                b.node.end,
                &b.name,
                b.pattern,
            ))
        });
        declared.dedup_by(|b, a| a.node == b.node && a.name == b.name);
        self
    }
}

/// The bytes `node` spans, running on over the lines a backslash continues
/// when its last line goes on with one: tree-sitter-c ends a multi-line
/// `#define` at a `/* … */` comment inside it, and the macro's other lines
/// then parse as stray code. A node that ends its line cannot be continued
/// (the next line may be a macro of its own).
fn continued_span(text: &str, node: Node<'_>) -> Range<usize> {
    let (start, end) = (node.start_byte(), node.end_byte());
    let line_end = |from: usize| text[from..].find('\n').map_or(text.len(), |i| from + i);
    let continued = |from: usize, to: usize| text[from..to].trim_end().ends_with('\\');
    let mut last = line_end(end);
    if end == 0 || text.as_bytes()[end - 1] == b'\n' || !continued(end, last) {
        return start..end;
    }
    while last < text.len() {
        let next = last + 1;
        last = line_end(next);
        if !continued(next, last) {
            break;
        }
    }
    start..last
}

/// The name a C-style declarator declares, and its qualifier when the name is
/// qualified: the innermost node reached through the `declarator` fields of
/// `*_declarator` nodes (a reference or parenthesized declarator holds its
/// declarator unnamed), so `*(*handler)(int)`, `&Foo::get() const` and
/// `x = 1` all lead to their name. A query that spelled each nesting out was
/// slow to compile: tree-sitter analyzes every alternative against the grammar
/// (C++'s symbol query took ~100 ms per process, half of it for these shapes).
/// `None` for what only a macro the parser could not expand produces: a
/// function declarator directly inside another (`EXPORT void (*hook)()` read
/// as a function `void`), or a name holding a syntax error.
pub(super) fn declared_name(declarator: Node<'_>) -> Option<(Option<Node<'_>>, Node<'_>)> {
    let mut node = declarator;
    while node.kind().ends_with("_declarator") {
        let Some(inner) = node
            .child_by_field_name("declarator")
            .or_else(|| node.named_child(0))
        else {
            break;
        };
        if inner.kind() == node.kind() && node.child_by_field_name("parameters").is_some() {
            return None;
        }
        node = inner;
    }
    let (scope, name) = match (
        node.child_by_field_name("scope"),
        node.child_by_field_name("name"),
    ) {
        (Some(scope), Some(name)) => (Some(scope), name),
        _ => (None, node),
    };
    if name.has_error() || scope.is_some_and(|scope| scope.has_error()) {
        return None;
    }
    Some((scope, name))
}

/// Names a query attaches to definition nodes, keyed by node id, each list
/// in order and without repeats.
#[derive(Default)]
pub(super) struct NodeNames {
    /// `@super`: the types a definition extends or implements, by bare name.
    pub(super) supers: HashMap<usize, Vec<String>>,
    /// `@requires`: the methods an interface requires.
    pub(super) requires: HashMap<usize, Vec<String>>,
}

fn add_name(map: &mut HashMap<usize, Vec<String>>, node: usize, name: String) {
    let found = map.entry(node).or_default();
    if !name.is_empty() && !found.contains(&name) {
        found.push(name);
    }
}

/// A type as written in a supertype list, reduced to its bare name:
/// `Component` of `React.Component<Props>`, `Generic` of `typing.Generic[T]`,
/// `Base` of `ns::Base<T>`, `Reader` of `*bufio.Reader`.
pub(crate) fn type_name(written: &str) -> String {
    super_name(&qualified_type_name(written)).to_string()
}

/// [`type_name`] with its last qualifier kept: `io.Reader` of `*io.Reader`.
fn qualified_type_name(written: &str) -> String {
    // A Go embedded field may be a pointer (`*Reader`).
    let path = written
        .split(['<', '[', '('])
        .next()
        .unwrap_or_default()
        .trim()
        .trim_start_matches(['*', '&']);
    let mut parts = path.rsplit(['.', ':']).map(str::trim);
    let name = parts.next().unwrap_or_default();
    // Lifetimes and `?Sized` in a trait's bounds are not types it extends.
    if !name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
        return String::new();
    }
    match parts.find(|part| !part.is_empty()) {
        Some(qualifier) if path.contains('.') => format!("{qualifier}.{name}"),
        _ => name.to_string(),
    }
}

/// The bare name of a supertype as [`crate::chunk::Symbol::supers`] keeps
/// it: `Reader` of `io.Reader`.
pub fn super_name(kept: &str) -> &str {
    kept.rsplit(['.', ':']).next().unwrap_or(kept)
}
