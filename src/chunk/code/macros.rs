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

/// The text to parse: `text` with the macros blanked, or `None` when it has
/// none.
pub(super) fn blanked(text: &str) -> Option<String> {
    let mut spans = macro_spans(text);
    if spans.is_empty() {
        return None;
    }
    spans.sort_by_key(|span| span.start);
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        // Only ASCII is blanked (the patterns match ASCII only), so the copy
        // stays valid UTF-8 with the same offsets; line breaks stay, and so
        // does every line number.
        bytes[span]
            .iter_mut()
            .filter(|byte| !matches!(byte, b'\n' | b'\r'))
            .for_each(|byte| *byte = b' ');
    }
    String::from_utf8(bytes).ok()
}

fn macro_spans(text: &str) -> Vec<Range<usize>> {
    static PATTERNS: OnceLock<[Regex; 4]> = OnceLock::new();
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
        ]
    });
    patterns
        .iter()
        .flat_map(|pattern| pattern.captures_iter(text))
        .filter_map(|captures| {
            captures
                .name("m")
                .or_else(|| captures.name("call").filter(|c| one_call(c.as_str())))
        })
        .map(|m| m.range())
        .collect()
}

/// Whether `call` (`NAME(…)`) is one call whose first `(` closes at its last
/// `)`, string and character literals aside: the last line of a call that
/// began on an earlier one (`    GMOCK_PP_REPEAT(F, X, 10));`) is not, and
/// blanking it would leave the call unclosed.
fn one_call(call: &str) -> bool {
    let Some(open) = call.find('(') else {
        return false;
    };
    let Some(close) = call.rfind(')') else {
        return false;
    };
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut escaped = false;
    for (i, &b) in call
        .as_bytes()
        .iter()
        .enumerate()
        .take(close + 1)
        .skip(open)
    {
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
                    if depth == 0 && i != close {
                        return false;
                    }
                }
                _ => {}
            },
        }
    }
    depth == 0 && quote.is_none()
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
    fn what_may_be_a_type_or_a_declaration_stays() {
        for text in [
            "struct FOO bar;\n",
            "DWORD GetVersion(void);\n",
            "UINT32 count = 0;\n",
            "TEST_F(FooTest, Bar) {\n}\n",
            "EXPECT_EQ(a, b)\n",
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
