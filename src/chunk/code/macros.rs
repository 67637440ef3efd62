//! Export and annotation macros that C and C++ code puts around declarations
//! (`class GTEST_API_ Test`, `Q_CORE_EXPORT QString`, `GTEST_API_ bool
//! ShouldShard(…)`, `void Run() GTEST_LOCK_EXCLUDED_(mu);`). Without a
//! preprocessor the grammar takes such a macro for the type or the class
//! name, and the declaration after it for something else: GoogleTest's
//! classes parsed as functions whose bodies held their members. A line that
//! is a macro's invocation alone (`GMOCK_DEFINE_DEFAULT_ACTION_(unsigned
//! char, '\0');`, `GTEST_DISALLOW_ASSIGN_(Foo);`) is blanked too: its
//! arguments are often types or empty, which no expression parses, and the
//! errors had swallowed the namespace around it. The parser is
//! given a copy of the text with these macros blanked to spaces, so every byte
//! offset, and every chunk cut from the text, stays as it was.

use std::ops::Range;
use std::sync::OnceLock;

use regex::Regex;

/// An identifier that is a macro by convention: upper case, digits and
/// underscores, at least two characters.
const MACRO: &str = r"[A-Z][A-Z0-9_]*[A-Z0-9_]";

/// A call of such a macro on one line, its arguments without `;` or braces.
const CALL: &str = r"[A-Z][A-Z0-9_]*[A-Z0-9_][ \t]*\([^;{}\n]*\)";

/// The text to parse: `text` with the macros blanked, and the conditionals
/// that hold half a linkage block ([`super::guards`]), or `None` when it has
/// neither.
pub(super) fn blanked(text: &str) -> Option<String> {
    let mut spans = macro_spans(text);
    spans.extend(super::guards::linkage_guard_spans(text));
    if spans.is_empty() {
        return None;
    }
    spans.sort_by_key(|span| span.start);
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        // Only ASCII and whole lines are blanked (the patterns match ASCII
        // only), so the copy stays valid UTF-8 with the same offsets; line
        // breaks stay, and so does every line number.
        bytes[span]
            .iter_mut()
            .filter(|byte| !matches!(byte, b'\n' | b'\r'))
            .for_each(|byte| *byte = b' ');
    }
    String::from_utf8(bytes).ok()
}

fn macro_spans(text: &str) -> Vec<Range<usize>> {
    static PATTERNS: OnceLock<[Regex; 5]> = OnceLock::new();
    let patterns = PATTERNS.get_or_init(|| {
        let compile = |pattern: String| Regex::new(&pattern).expect("a valid pattern");
        [
            // Between `class` and the class name, when a body or a base
            // list follows the name (`struct FOO bar;` declares a variable).
            compile(format!(
                r"\b(?:class|struct|union)[ \t]+(?P<m>{MACRO})[ \t]+[A-Za-z_]\w*[ \t]*(?:\{{|:[^:]|final\b)"
            )),
            // Before a declaration's type and name, at the start of a line
            // or after its storage keywords: `GTEST_API_ bool ShouldShard(`.
            // A macro followed by one name only (`DWORD GetVersion(`) may be
            // the type itself and stays.
            compile(format!(
                r"(?m)^[ \t]*(?:(?:static|inline|extern|virtual|explicit|constexpr|friend)[ \t]+)*(?P<m>{MACRO})[ \t]+(?:const[ \t]+)?[A-Za-z_][\w:<>,]*[ \t*&]+[*&]?[A-Za-z_~][\w:]*[ \t]*\("
            )),
            // After a signature, on its line or the next ones:
            // `void Run() const GTEST_LOCK_EXCLUDED_(mutex_);`.
            compile(format!(
                r"\)\s*(?:(?:const|override|final|noexcept)\s*)*(?P<m>{MACRO}\s*\([\x20-\x27\x2a-\x7e\t\r\n]*\))\s*(?:;|\{{|=)"
            )),
            // A line that is one invocation and its `;` (a comment may
            // follow): a statement in a body, a declaration or a definition
            // at file or class level, and no symbol either way. The `;`
            // stays: an empty statement or declaration parses anywhere, and
            // the line may end a declaration above it (`void Run()\n
            // LOCKS_EXCLUDED(mu);`).
            compile(format!(
                r"(?m)^[ \t]*(?P<call>{MACRO}[ \t]*\([\x20-\x3a\x3c-\x7e\t]*\))[ \t]*;[ \t]*(?://[^\n]*)?\r?$"
            )),
            // Lines of calls alone, without a `;`, before a blank line or
            // one that starts a name, a declarator, a directive or a comment
            // (not a body's `{`, not an operator going on with an
            // expression): attributes between a declaration's type and its
            // name (`void *\nJEMALLOC_ATTR(malloc) JEMALLOC_ALLOC_SIZE(1)\n
            // je_malloc(size_t size) {`), which the grammar took for the
            // function's name. `TEST(Suite, Name)\n{` keeps its call.
            compile(format!(
                r"(?m)^[ \t]*(?P<calls>{CALL}(?:[ \t]*{CALL})*(?:[ \t]*\r?\n[ \t]*{CALL}(?:[ \t]*{CALL})*)*)[ \t]*\r?\n[ \t]*(?:[A-Za-z_*&~#/]|\r?\n)"
            )),
        ]
    });
    patterns
        .iter()
        .flat_map(|pattern| pattern.captures_iter(text))
        .filter_map(|captures| {
            captures.name("m").or_else(|| {
                // A line a `#define` goes on to is the macro's body.
                let alone = |c: &regex::Match<'_>| !continued(&text[..c.start()]);
                captures
                    .name("call")
                    .filter(|c| alone(c) && one_call(c.as_str()))
                    .or_else(|| {
                        captures
                            .name("calls")
                            .filter(|c| alone(c) && calls_alone(c.as_str()))
                    })
            })
        })
        .map(|m| m.range())
        .collect()
}

/// Whether `call` (`NAME(…)`) is one call whose first `(` closes at its last
/// `)`, string and character literals aside: the last line of a call that
/// began on an earlier one (`    GMOCK_PP_REPEAT(F, X, 10));`) is not, and
/// blanking it would leave the call unclosed.
fn one_call(call: &str) -> bool {
    call.find('(')
        .and_then(|open| closing(call, open))
        .is_some_and(|close| call.rfind(')') == Some(close))
}

/// Whether the line before the one `before` ends in goes on to it: its
/// last character before the line break is a backslash.
fn continued(before: &str) -> bool {
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[..line_start]
        .trim_end_matches(['\n', '\r'])
        .ends_with('\\')
}

/// Whether `text` is only macro calls (`NAME(…)`, each balanced) and the
/// white space between them.
fn calls_alone(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if at == bytes.len() {
            return true;
        }
        let name = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || **b == b'_')
            .count();
        if name < 2 || !bytes[at].is_ascii_uppercase() {
            return false;
        }
        at += name;
        while at < bytes.len() && matches!(bytes[at], b' ' | b'\t') {
            at += 1;
        }
        if bytes.get(at) != Some(&b'(') {
            return false;
        }
        match closing(text, at) {
            Some(close) => at = close + 1,
            None => return false,
        }
    }
}

/// The index of the `)` that closes the `(` at `open`, string and character
/// literals aside.
fn closing(text: &str, open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in text.as_bytes().iter().enumerate().skip(open) {
        match quote {
            Some(_) if escaped => escaped = false,
            Some(_) if b == b'\\' => escaped = true,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'"' | b'\'' => quote = Some(b),
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            },
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_macros_are_blanked_in_place() {
        let text = "class GTEST_API_ Test : public Base {\n\
                    GTEST_API_ std::string Format(int x);\n\
                    static GTEST_API_ bool ShouldShard(int a) {}\n\
                    void Run() const GTEST_LOCK_EXCLUDED_(mutex_);\n\
                    struct Q_EXPORT Point final {};\n\
                    bool Verify()\n    GTEST_LOCK_REQUIRED_(\n        mu);\n\
                    DEFINE_DEFAULT_(unsigned char, '\\0');  // NOLINT\n\
                    \x20 EXPECT_EQ(a, b);\n";
        let parsed = blanked(text).expect("macros to blank");
        assert_eq!(parsed.len(), text.len());
        assert_eq!(
            parsed,
            "class            Test : public Base {\n\
             \x20          std::string Format(int x);\n\
             static            bool ShouldShard(int a) {}\n\
             void Run() const                             ;\n\
             struct          Point final {};\n\
             bool Verify()\n                         \n           ;\n\
             \x20                                   ;  // NOLINT\n\
             \x20                ;\n"
        );
    }

    #[test]
    fn a_call_alone_on_its_line_is_blanked_when_its_parentheses_balance() {
        for line in [
            "  EXPECT_EXPANSION(\"(\", GMOCK_PP_CAT(1, 4));",
            "GTEST_DISALLOW_ASSIGN_(Foo);",
            "DEFINE_('\\'', \")\\\"\");",
        ] {
            let text = format!("{line}\n");
            assert_eq!(
                blanked(&text),
                Some(format!("{};\n", " ".repeat(line.len() - 1))),
                "{line}"
            );
        }
    }

    #[test]
    fn attribute_calls_between_a_type_and_a_name_are_blanked() {
        let attrs = "JEMALLOC_ATTR(malloc) JEMALLOC_ALLOC_SIZE(1)";
        let text = format!("void JEMALLOC_NOTHROW *\n{attrs}\nje_malloc(size_t size) {{\n}}\n");
        assert_eq!(
            blanked(&text),
            Some(text.replace(attrs, &" ".repeat(attrs.len())))
        );
        let text = "TYPED_LIST(a_list, a_t, link)\nTYPED_LIST(b_list, b_t, link)\n\nint x;\n";
        assert_eq!(
            blanked(text).as_deref(),
            Some("                             \n                             \n\nint x;\n")
        );
    }

    #[test]
    fn what_may_be_a_type_or_a_declaration_stays() {
        for text in [
            "struct FOO bar;\n",
            "DWORD GetVersion(void);\n",
            "UINT32 count = 0;\n",
            "TEST_F(FooTest, Bar) {\n}\n",
            "TEST(Suite, Name)\n{\n}\n",
            "START_TEST(name)\n  {\n}\n",
            "x = 1 +\n    FOO(a)\n    + b;\n",
            "FOO(a) + BAR(b)\nint y;\n",
            "#define ACTION_P2(name, ...) \\\n  GMOCK_INTERNAL_ACTION(name, P2)\n\nint y;\n",
            "#define CHECK(x) \\\n  DO_CHECK(x);\n",
            "  FOO(\n    BAR(x, 10));\n",
            "FOO(a) + BAR(b);\n",
            "FOO(a; b);\n",
            "return MAX(a, b);\n",
            "class Foo::Bar {};\n",
            "int x = MAX(a, b);\n",
        ] {
            assert_eq!(blanked(text), None, "{text}");
        }
    }
}
