//! How `get` shows a whole file in skeleton mode: its outline, one heading
//! or signature per line (indented by the containers holding it), each
//! with the ID that fetches its text and its lines, under a line naming
//! the file; and the skeletons of single chunks.

use super::Fetched;
use super::excerpt;
use crate::chunk::Chunk;
use crate::tokens;

impl Fetched {
    /// How a text answer shows an outline entry (`self.outline`), after
    /// `previous`: the file's path once, then each entry with its ID and
    /// lines, a one-line entry on one line.
    pub fn outline_text(&self, previous: Option<&Fetched>) -> String {
        let mut out = String::new();
        if previous.is_none_or(|p| !p.outline || p.doc != self.doc) {
            out.push_str(&outline_header(&self.doc));
        }
        out.push_str(&outline_entry(&self.id, self.lines, &self.text));
        out
    }
}

/// The line that names a file above its outline entries.
fn outline_header(doc: &str) -> String {
    format!("{doc} (outline; get an ID for its text)\n")
}

/// What the line naming `doc` above its outline costs.
pub(super) fn header_cost(doc: &str) -> usize {
    tokens::estimate(&outline_header(doc))
}

/// An outline entry as a text answer shows it: ID, lines, then the text,
/// on the same line when it is one line.
fn outline_entry(id: &str, lines: [usize; 2], text: &str) -> String {
    let text = text.trim_end();
    let sep = if text.contains('\n') { "\n" } else { "  " };
    format!("[{id}] {}-{}{sep}{text}\n", lines[0], lines[1])
}

/// What showing `text` as an outline entry costs, its ID and lines included.
pub(super) fn entry_cost(id: &str, lines: [usize; 2], text: &str) -> usize {
    tokens::estimate(&outline_entry(id, lines, text))
}

/// The skeleton of `c`: for code, signatures and doc comments with bodies
/// elided; for Markdown, the heading path and first lines.
pub(super) fn skeleton(c: &Chunk) -> String {
    let lang = c
        .lang
        .as_deref()
        .and_then(crate::chunk::code::language_by_name);
    let s = match (c.kind, lang) {
        (crate::chunk::ChunkKind::Code, Some(lang)) => {
            crate::chunk::code::skeleton_of_chunk(&c.text, lang)
        }
        _ => excerpt::skeleton(&c.title_path, &super::readable(c), 12),
    };
    without_blank_start(&s).to_string()
}

/// One line of a file's outline: a symbol's signature, indented by its
/// containers, or a Markdown heading; empty for the text between symbols and
/// for later parts of a split section or symbol.
pub(super) fn outline_line(c: &Chunk) -> String {
    outline_line_at(c, c.title_path.len().saturating_sub(2))
}

/// [`outline_line`] with a symbol indented `depth` levels.
pub(super) fn outline_line_at(c: &Chunk, depth: usize) -> String {
    if c.is_later_part() {
        return String::new();
    }
    match (c.kind, &c.symbol) {
        (crate::chunk::ChunkKind::Code, Some(sym)) => {
            let signature = sym
                .signature
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let shown = if signature.is_empty() {
                format!("{} {}", sym.kind, sym.name)
            } else {
                shortened(&sym.kind, signature)
            };
            format!("{}{shown}", "    ".repeat(depth))
        }
        (crate::chunk::ChunkKind::Markdown, _) => match c.title_path.last() {
            Some(title) => format!("{} {title}", "#".repeat(c.title_path.len().min(6))),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// A long signature cut to its shape: a constant's or variable's
/// declaration without its value (a table of a hundred entries is not its
/// shape; functions keep theirs, whose ` = ` are default arguments), and a
/// type whose signature holds its body (a Go struct's fields, with their
/// comments, which on one line would read as commenting out the rest)
/// without the body.
fn shortened(kind: &str, signature: String) -> String {
    const LONG: usize = 80;
    if signature.len() <= LONG {
        return signature;
    }
    let cut = if matches!(kind, "const" | "static" | "var") {
        signature
            .split_once(" = ")
            .map(|(declaration, _)| format!("{declaration} = …"))
    } else if crate::chunk::code::CALLABLE_KINDS.contains(&kind) {
        None
    } else {
        signature
            .split_once('{')
            .map(|(declaration, _)| format!("{} {{ … }}", declaration.trim_end()))
    };
    cut.unwrap_or(signature)
}

/// How deep each entry of a file's outline sits: under the containers
/// listed before it whose lines enclose it. A Go method, written after its
/// type and after other types, is in neither; its title path alone would
/// indent it under whatever came last.
#[derive(Default)]
pub(super) struct Nesting {
    /// The file of the entries so far.
    doc: String,
    /// Containers still open: qualified name (`.`-joined) and last line.
    open: Vec<(String, usize)>,
}

impl Nesting {
    /// How deep `c` sits, taken as the next entry.
    pub(super) fn depth(&mut self, c: &Chunk) -> usize {
        if c.doc != self.doc {
            self.doc.clone_from(&c.doc);
            self.open.clear();
        }
        let Some(sym) = c.symbol.as_ref().filter(|_| !c.is_later_part()) else {
            return 0;
        };
        let [first, last] = sym.lines.unwrap_or(c.lines);
        self.open.retain(|(_, end)| *end >= first);
        let name = super::candidates::canon(&sym.qualified);
        let depth = self
            .open
            .iter()
            .filter(|(open, _)| name.starts_with(&format!("{open}.")))
            .count();
        self.open.push((name, last));
        depth
    }
}

/// `text` from its first non-blank line: a chunk starts with the blank lines
/// before its symbol (chunks tile the file), which an outline does not need.
pub(super) fn without_blank_start(text: &str) -> &str {
    let mut rest = text;
    while let Some((line, after)) = rest.split_once('\n') {
        if !line.trim().is_empty() {
            break;
        }
        rest = after;
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::shortened;

    #[test]
    fn a_long_signature_is_outlined_to_its_shape() {
        let table = format!(
            "pub const TYPES: &[(&str, &str)] = &[{}];",
            r#"("rust", "*.rs"), "#.repeat(10)
        );
        assert_eq!(
            shortened("const", table.clone()),
            "pub const TYPES: &[(&str, &str)] = …"
        );
        assert!(shortened("var", table).ends_with("&str)] = …"));
        // Short values stay; so do a function's default arguments.
        let short = "pub const MAX: usize = 64;".to_string();
        assert_eq!(shortened("const", short.clone()), short);
        let function = format!(
            "def drain(self, timeout: float = 1.0, {})",
            "x, ".repeat(30)
        );
        assert_eq!(shortened("function", function.clone()), function);
        // A type whose signature holds its body is cut at the body; a
        // function's `{` (a Go parameter's struct type) is its signature.
        let go = format!(
            "type Conn struct {{ {} }}",
            "mu sync.Mutex // guards ".repeat(5)
        );
        assert_eq!(shortened("struct", go.clone()), "type Conn struct { … }");
        let func = format!("func run(opts struct{{ {} }}) error", "a int; ".repeat(12));
        assert_eq!(shortened("function", func.clone()), func);
    }
}
