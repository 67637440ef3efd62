//! Symbol extraction: parse, match a language's query ([`super::matches`]) and
//! turn the matches into a tree of [`Definition`]s.
//!
//! Everything language-specific comes from the [`LanguageSpec`] row and its query;
//! this file only knows the capture roles (`@definition.<kind>`, `@name`, `@scope`,
//! `@doc`, `@super`), the `container` property, and generic facts about syntax trees (ranges
//! nest, comments are siblings, bodies are the `body` field).

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::{Node, Parser, Tree};

use super::languages::{Compiled, LanguageSpec};
use super::matches::{Candidate, Candidates, NodeNames, candidates};

/// Longest signature kept, in bytes (cut at a char boundary, then `…`).
const MAX_SIGNATURE: usize = 300;

/// Kinds that are called, and so have a body worth eliding.
pub(crate) const CALLABLE_KINDS: &[&str] = &["function", "method"];

/// How far below a definition node its `body` field is looked for: far enough for
/// `const f = () => {…}` (declaration → declarator → arrow function → body).
const BODY_SEARCH_DEPTH: usize = 4;

/// One symbol found in a file, with its members when it is a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Definition {
    /// Normalized kind from `@definition.<kind>`.
    pub(crate) kind: String,
    pub(crate) name: String,
    /// `@scope`, for members written outside their container (`func (c *Cache) Get`).
    pub(crate) scope: Option<String>,
    pub(crate) container: bool,
    /// The definition node, wrappers (`export`, decorators) included.
    pub(crate) node: Range<usize>,
    /// Where the symbol's chunk starts: the line of its first doc comment or
    /// attribute, or of the node itself.
    pub(crate) start: usize,
    /// The `body` field, when the definition has one.
    pub(crate) body: Option<Range<usize>>,
    /// The `@doc` docstring node, when the query captured one.
    pub(crate) docstring: Option<Range<usize>>,
    pub(crate) signature: String,
    pub(crate) doc: String,
    /// The types it extends or implements, by bare name (`@super`).
    pub(crate) supers: Vec<String>,
    /// The methods it requires, for an interface (`@requires`).
    pub(crate) requires: Vec<String>,
    /// Members it declares without a chunk of their own (`@declared.<kind>`).
    pub(crate) declared: Vec<Declared>,
    /// A declaration of what is defined elsewhere: a callable without a
    /// body (a prototype, a required method) or an `extern` variable.
    pub(crate) decl: bool,
    /// The comment nodes above the definition, in order, and whether each is
    /// documentation by the language's convention.
    pub(crate) comments: Vec<(Range<usize>, bool)>,
    pub(crate) children: Vec<Definition>,
}

/// A member a container declares inside its own chunk: a required method, a
/// prototype, a field, an enum variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    /// Normalized kind from `@declared.<kind>`.
    pub(crate) kind: String,
    pub(crate) name: String,
    /// Its bytes, from its doc comments or attributes to the node's end.
    pub(crate) range: Range<usize>,
    /// The member's node.
    pub(crate) node: Range<usize>,
    /// The query pattern that matched it: where two capture one member, the
    /// earlier decides its kind.
    pub(crate) pattern: usize,
    /// Assigned in a method (`self.items = []`), it belongs to the class
    /// around that method, once: its first assignment, or the class's own
    /// declaration of it, stands for it.
    pub(crate) instance: bool,
}

/// Where a tree has syntax errors and how much of the file they cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxErrors {
    /// 1-based line of the first error.
    pub(crate) first_line: usize,
    /// Number of `ERROR` and `MISSING` nodes.
    pub(crate) count: usize,
    /// Byte ranges of the outermost `ERROR` nodes, in order.
    pub(crate) ranges: Vec<Range<usize>>,
}

/// The definitions of one file plus what the chunker and skeleton need besides.
#[derive(Debug)]
pub(crate) struct Extraction {
    /// Top-level definitions in document order.
    pub(crate) definitions: Vec<Definition>,
    /// Comments that are direct children of the root (module docs, banners),
    /// and `@doc` captures outside any definition (a Python module docstring).
    pub(crate) file_docs: Vec<Range<usize>>,
    /// The root's children that are not comments (imports, statements,
    /// definitions, blocks holding them), in order: what a skeleton of the
    /// text between top-level symbols elides one by one.
    pub(crate) statements: Vec<Range<usize>>,
    pub(crate) errors: Option<SyntaxErrors>,
}

impl Extraction {
    /// Bytes inside `ERROR` nodes but outside every top-level definition (doc
    /// comments included): the part of the file the symbols do not explain. A C header whose
    /// `extern "C" {` opens under one `#ifdef` and closes under another parses
    /// as one big `ERROR` full of well-formed functions; those are worth keeping.
    /// Whether this parse of `text` is better than `other`, a parse of the
    /// same text as another language. One that would be split by lines
    /// ([`Extraction::too_broken`]) loses to one that would not: C read GoogleMock's
    /// `gmock-actions.h` as one error over its include guard, C++ as five
    /// small ones. Otherwise fewer errors win, then fewer bytes in them
    /// (jemalloc's `hpdata.h` has 5 as C and 7 as C++, with fewer bytes but
    /// 8 symbols fewer).
    pub(crate) fn better_than(&self, other: &Extraction, text: &str) -> bool {
        let usable = |x: &Extraction| !x.too_broken(text);
        let errors = |x: &Extraction| {
            x.errors
                .as_ref()
                .map_or((0, 0), |e| (e.count, x.unexplained_error_bytes()))
        };
        match (usable(self), usable(other)) {
            (true, false) => true,
            (false, true) => false,
            _ => errors(self) < errors(other),
        }
    }

    /// Whether errors cover over [`super::MAX_ERROR_PERCENT`] of `text`
    /// outside any symbol, so the file is split by lines instead.
    pub(crate) fn too_broken(&self, text: &str) -> bool {
        self.unexplained_error_bytes() * 100 > text.len() * super::MAX_ERROR_PERCENT
    }

    pub(crate) fn unexplained_error_bytes(&self) -> usize {
        let Some(errors) = &self.errors else {
            return 0;
        };
        let definitions = &self.definitions;
        let mut first = 0;
        let mut unexplained = 0;
        for error in &errors.ranges {
            while first < definitions.len() && definitions[first].node.end <= error.start {
                first += 1;
            }
            let covered: usize = definitions[first..]
                .iter()
                .take_while(|definition| definition.start < error.end)
                .map(|definition| {
                    definition.node.end.min(error.end) - definition.start.max(error.start)
                })
                .sum();
            unexplained += error.len() - covered;
        }
        unexplained
    }
}

/// Parses `text` and extracts its definitions; `Err` says why nothing could be
/// parsed (invalid query, grammar rejected by the runtime, parser gave up).
pub(crate) fn extract(text: &str, spec: &LanguageSpec) -> Result<Extraction, String> {
    extract_walking(text, spec, true)
}

/// [`extract`], with the query kept out of definitions' bodies when `prune`
/// (without, it matches everywhere: what pruning must agree with).
pub(crate) fn extract_walking(
    text: &str,
    spec: &LanguageSpec,
    prune: bool,
) -> Result<Extraction, String> {
    let compiled = spec.compiled()?;
    let tree = parse(text, spec, compiled)?;
    let root = tree.root_node();
    let Candidates {
        list,
        docs,
        names,
        file_docs,
        declared,
        ..
    } = candidates(text, spec, compiled, root, prune);
    let mut definitions = build(text, spec, list, &docs, &names);
    for member in declared {
        claim(&mut definitions, member);
    }
    let mut cursor = root.walk();
    let mut file_docs: Vec<Range<usize>> = root
        .children(&mut cursor)
        .filter(|child| spec.is_comment(child.kind()))
        .map(|child| child.byte_range())
        .chain(file_docs)
        .collect();
    file_docs.sort_by_key(|range| range.start);
    let statements = root
        .children(&mut cursor)
        .filter(|child| !spec.is_comment(child.kind()))
        .map(|child| child.byte_range())
        .collect();
    Ok(Extraction {
        definitions,
        file_docs,
        statements,
        errors: syntax_errors(root),
    })
}

fn parse(text: &str, spec: &LanguageSpec, compiled: &Compiled) -> Result<Tree, String> {
    let mut parser = Parser::new();
    parser
        .set_language(&compiled.language)
        .map_err(|error| format!("grammar for `{}` cannot be loaded: {error}", spec.name))?;
    let blanked = spec
        .preprocessor
        .then(|| super::macros::blanked(text))
        .flatten();
    parser
        .parse(blanked.as_deref().unwrap_or(text), None)
        .ok_or_else(|| format!("the `{}` parser gave up", spec.name))
}

/// Nests the candidates by range: a definition inside a container becomes its
/// member; one inside any other definition is part of that definition's body.
fn build(
    text: &str,
    spec: &LanguageSpec,
    candidates: Vec<Candidate<'_>>,
    docs: &HashMap<usize, Range<usize>>,
    names: &NodeNames,
) -> Vec<Definition> {
    // Candidates are sorted by start, widest first, so a stack of open ranges
    // gives each one its nearest enclosing definition.
    let mut parents: Vec<Option<usize>> = Vec::with_capacity(candidates.len());
    let mut kept = vec![false; candidates.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (index, candidate) in candidates.iter().enumerate() {
        while stack
            .last()
            .is_some_and(|&open| candidates[open].span.end <= candidate.span.start)
        {
            stack.pop();
        }
        let parent = stack.last().copied();
        let keep = match parent {
            None => true,
            Some(open) => kept[open] && candidates[open].container,
        };
        parents.push(parent);
        kept[index] = keep;
        stack.push(index);
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); candidates.len()];
    let mut top = Vec::new();
    for (index, parent) in parents.into_iter().enumerate() {
        if kept[index] {
            match parent {
                Some(parent) => members[parent].push(index),
                None => top.push(index),
            }
        }
    }
    let context = Context {
        text,
        spec,
        candidates: &candidates,
        docs,
        names,
        members: &members,
    };
    top.into_iter()
        .map(|index| context.assemble(index))
        .collect()
}

/// What [`Context::assemble`] needs to turn candidate indices into a tree.
struct Context<'a, 'tree> {
    text: &'a str,
    spec: &'a LanguageSpec,
    candidates: &'a [Candidate<'tree>],
    docs: &'a HashMap<usize, Range<usize>>,
    /// Supertypes and required methods, keyed by definition node.
    names: &'a NodeNames,
    /// Indices of each candidate's members, in document order.
    members: &'a [Vec<usize>],
}

impl Context<'_, '_> {
    fn assemble(&self, index: usize) -> Definition {
        let candidate = &self.candidates[index];
        let mut found = definition(self.text, self.spec, candidate, self.docs);
        let ids = [candidate.node.id(), candidate.outer.id()];
        found.supers = attached(&self.names.supers, ids);
        found.requires = attached(&self.names.requires, ids);
        found.children = self.members[index]
            .iter()
            .map(|&member| self.assemble(member))
            .collect();
        found
    }
}

/// Gives `member` to the innermost definition around it, unless that is a
/// callable (a local type's field is no member of the function) or the
/// member itself (a field holding a function is a method with its own chunk).
/// An instance attribute skips the methods it is assigned in, and goes to
/// the class around them.
fn claim(definitions: &mut [Definition], member: Declared) {
    // Siblings are in document order and do not overlap: the one around the
    // member is the last that starts at or before it, if it reaches over it.
    let around = |level: &[Definition]| {
        let at = level.partition_point(|d| d.node.start <= member.node.start);
        at.checked_sub(1)
            .filter(|&i| member.node.end <= level[i].node.end)
    };
    let callable = |d: &Definition| CALLABLE_KINDS.contains(&d.kind.as_str());
    // The path of indices from the top level to the innermost definition; an
    // instance attribute stops above the method it is assigned in (a
    // callable has no members, so it is always the path's end).
    let mut path = Vec::new();
    let mut level: &[Definition] = definitions;
    while let Some(index) = around(level) {
        if member.instance && callable(&level[index]) && !path.is_empty() {
            break;
        }
        path.push(index);
        level = &level[index].children;
    }
    let Some((first, rest)) = path.split_first() else {
        return;
    };
    let mut owner = &mut definitions[*first];
    for &index in rest {
        owner = &mut owner.children[index];
    }
    let taken = member.instance && owner.declared.iter().any(|d| d.name == member.name);
    if owner.node != member.node && !callable(owner) && !taken {
        owner.declared.push(member);
    }
}

/// What a query attached to a definition, by its node or its wrapper.
fn attached<T: Clone>(map: &HashMap<usize, Vec<T>>, ids: [usize; 2]) -> Vec<T> {
    ids.iter()
        .find_map(|id| map.get(id))
        .cloned()
        .unwrap_or_default()
}

fn definition(
    text: &str,
    spec: &LanguageSpec,
    candidate: &Candidate<'_>,
    docs: &HashMap<usize, Range<usize>>,
) -> Definition {
    let (start, prefix) = prefix(text, spec, candidate.outer);
    let docstring = docs
        .get(&candidate.node.id())
        .or_else(|| docs.get(&candidate.outer.id()))
        .or_else(|| {
            candidate
                .name
                .parent()
                .and_then(|parent| docs.get(&parent.id()))
        })
        .cloned();
    let comments: Vec<(Range<usize>, bool)> = prefix
        .iter()
        .filter(|node| spec.is_comment(node.kind()))
        .map(|node| {
            (
                node.byte_range(),
                spec.is_doc_comment(&text[node.byte_range()]),
            )
        })
        .collect();
    let doc = match &docstring {
        Some(range) => text[range.clone()].to_string(),
        None => comments
            .iter()
            .filter(|(_, is_doc)| *is_doc)
            .map(|(range, _)| text[range.clone()].trim_end())
            .collect::<Vec<_>>()
            .join("\n"),
    };
    // Only callables look below their own node for a body (`const f = () => {…}`);
    // a constant's value may hold functions whose bodies are not its own.
    let body = match candidate.node.child_by_field_name("body") {
        Some(body) => Some(body),
        None if CALLABLE_KINDS.contains(&candidate.kind) => {
            nested_body(candidate.node, candidate.name)
        }
        None => None,
    };
    let signature_end = match body {
        Some(body) => signature_end(spec, body),
        None => candidate.span.end,
    };
    let signature = signature(
        &text[candidate.outer.start_byte()..signature_end],
        body.is_none(),
    );
    Definition {
        kind: candidate.kind.to_string(),
        name: collapse(&text[candidate.name.byte_range()]),
        scope: candidate
            .scope
            .map(|scope| collapse(&text[scope.byte_range()])),
        container: candidate.container,
        node: candidate.span.clone(),
        start,
        body: body.map(|body| body.byte_range()),
        docstring,
        signature,
        doc,
        supers: Vec::new(),
        requires: Vec::new(),
        declared: Vec::new(),
        decl: candidate.declaration || (body.is_none() && CALLABLE_KINDS.contains(&candidate.kind)),
        comments,
        children: Vec::new(),
    }
}

/// The comments and attributes directly above `node` (no blank line between,
/// each on its own line), and the chunk start they give: the start of the line
/// of the first of them, or of `node` itself when it begins its line.
pub(super) fn prefix<'tree>(
    text: &str,
    spec: &LanguageSpec,
    node: Node<'tree>,
) -> (usize, Vec<Node<'tree>>) {
    let mut first = node;
    let mut prefix = Vec::new();
    while let Some(previous) = first.prev_sibling() {
        let kind = previous.kind();
        if !(spec.is_comment(kind) || spec.is_attribute(kind)) {
            break;
        }
        // Some grammars end a line comment after its newline (Rust), others before.
        let last_row = match previous.end_position() {
            end if end.column == 0 && end.row > previous.start_position().row => end.row - 1,
            end => end.row,
        };
        if first.start_position().row > last_row + 1 || !starts_line(text, previous.start_byte()) {
            break;
        }
        prefix.push(previous);
        first = previous;
    }
    prefix.reverse();
    let start = first.start_byte();
    let line_start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    let start = if starts_line(text, start) {
        line_start
    } else {
        start
    };
    (start, prefix)
}

/// True when only spaces and tabs (or the byte-order mark) precede `at` on its line.
fn starts_line(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    text[line_start..at]
        .trim_start_matches('\u{feff}')
        .bytes()
        .all(|byte| byte == b' ' || byte == b'\t')
}

/// The first `body` field below `node` that starts after the name.
fn nested_body<'tree>(node: Node<'tree>, name: Node<'tree>) -> Option<Node<'tree>> {
    let mut cursor = node.walk();
    let mut depth = 0;
    if !cursor.goto_first_child() {
        return None;
    }
    loop {
        let current = cursor.node();
        if current.start_byte() >= name.end_byte() && cursor.field_name() == Some("body") {
            return Some(current);
        }
        let descend = depth < BODY_SEARCH_DEPTH
            && current.end_byte() > name.end_byte()
            && cursor.goto_first_child();
        if descend {
            depth += 1;
            continue;
        }
        while !cursor.goto_next_sibling() {
            if depth == 0 || !cursor.goto_parent() {
                return None;
            }
            depth -= 1;
        }
    }
}

/// Where the declaration before `body` ends: comments between the header and
/// the body (Python allows them) are not part of the signature.
fn signature_end(spec: &LanguageSpec, body: Node<'_>) -> usize {
    let mut previous = body.prev_sibling();
    while let Some(node) = previous.filter(|node| spec.is_comment(node.kind())) {
        previous = node.prev_sibling();
    }
    previous.map_or(body.start_byte(), |node| node.end_byte())
}

fn signature(declaration: &str, whole_node: bool) -> String {
    let declaration = declaration.trim_end();
    // A definition without a body (a `const`, a Go `type … struct`) is its own
    // signature, minus an opening brace left dangling by the cut.
    let declaration = if whole_node {
        declaration
    } else {
        declaration.trim_end_matches('{').trim_end()
    };
    let collapsed = collapse(declaration);
    if collapsed.len() <= MAX_SIGNATURE {
        return collapsed;
    }
    let mut cut = MAX_SIGNATURE;
    while !collapsed.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", collapsed[..cut].trim_end())
}

/// Every run of whitespace becomes one space.
pub(crate) fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn syntax_errors(root: Node<'_>) -> Option<SyntaxErrors> {
    if !root.has_error() {
        return None;
    }
    let mut errors = SyntaxErrors {
        first_line: usize::MAX,
        count: 0,
        ranges: Vec::new(),
    };
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        if node.is_error() || node.is_missing() {
            errors.count += 1;
            errors.first_line = errors.first_line.min(node.start_position().row + 1);
            if node.is_error() {
                errors.ranges.push(node.byte_range());
            }
            continue;
        }
        let mut cursor = node.walk();
        pending.extend(node.children(&mut cursor).filter(|child| child.has_error()));
    }
    errors.ranges.sort_by_key(|range| range.start);
    if errors.count == 0 {
        // `has_error` with no ERROR or MISSING node below: report the root itself.
        errors.count = 1;
        errors.first_line = 1;
    }
    Some(errors)
}
