//! Section roles: what a question asks for, read from its wording, as words
//! the headings of the answering section use.
//!
//! Design documents (RFCs, PEPs, KEPs, ADRs) and much project documentation
//! share a small set of section roles: the alternatives that were rejected,
//! the risks, how to upgrade or roll back, when a feature is stable. A question names the role in its own words ("why wasn't a flag
//! used?", "what breaks if…", "if I roll back…"), and those words are neither
//! in the heading nor, often, in the section. Where hundreds of documents share
//! one heading skeleton, the topic words find the document and the role finds
//! the section within it. A role only adds heading terms to the query: it never
//! counts toward coverage and never scores document text.

use super::query_words::straight_apostrophes;

/// One role: the cue phrases that ask for it (lowercase word sequences; a
/// question's apostrophes are straightened first) and the heading words of
/// the sections that serve it.
struct Role {
    cues: &'static [&'static str],
    headings: &'static [&'static str],
}

/// General vocabulary of section roles. A cue must ask for the role by itself:
/// "why can't" or "why does" often asks about an error, and "instead of" often
/// describes the feature itself (a stream "instead of paging"), so they stay
/// out. "rather than" is in: in the eval sets it always sets a choice against
/// another ("copied rather than moved", "insert rather than skip"), and it found a KEP's
/// *Alternatives* for "recorded as an annotation rather than a label" (third
/// blind KEP set 0.722 → 0.750) with no other figure moving. So does troubleshooting: "debug" and "troubleshoot" name a topic as
/// often as a section (a KEP *about* debugging), and that role lost a KEP dev
/// query and Rust Book MRR while gaining none. "break" and "broken" are left
/// out for their literal senses (break a stale lock, a loop, a line).
const ROLES: &[Role] = &[
    Role {
        cues: &[
            "why not",
            "why wasn't",
            "why weren't",
            "why didn't",
            "why couldn't",
            "why shouldn't",
            "alternative",
            "alternatives",
            "rejected",
            "other options",
            "other approaches",
            "rather than",
        ],
        headings: &["alternatives", "rejected", "rationale"],
    },
    Role {
        cues: &[
            "breaks",
            "breaking",
            "risk",
            "risks",
            "risky",
            "danger",
            "dangerous",
            "downside",
            "downsides",
            "drawback",
            "drawbacks",
            "abuse",
            "malicious",
            "attacker",
            "exploit",
            "go wrong",
            "goes wrong",
            "mitigate",
            "caveat",
            "caveats",
            "pitfall",
            "pitfalls",
        ],
        headings: &[
            "risks",
            "mitigations",
            "drawbacks",
            "caveats",
            "limitations",
        ],
    },
    Role {
        cues: &[
            "roll back",
            "rolled back",
            "rolling back",
            "rollback",
            "downgrade",
            "downgraded",
            "downgrading",
            "upgrade",
            "upgraded",
            "upgrading",
            "older version",
            "older versions",
            "older release",
            "newer version",
            "mixed versions",
            "skew",
            "backward compatible",
            "backwards compatible",
            "compatibility",
        ],
        headings: &["upgrade", "downgrade", "rollback", "skew", "compatibility"],
    },
    Role {
        cues: &[
            "stable",
            "stabilize",
            "stabilized",
            "generally available",
            "ga",
            "graduate",
            "graduates",
            "graduated",
            "graduation",
            "production ready",
        ],
        headings: &["graduation", "ga", "stable", "stability"],
    },
];

/// The heading words of every role `query` asks for, each once, in table order.
pub fn heading_words(query: &str) -> Vec<&'static str> {
    let words = words(query);
    let mut out: Vec<&'static str> = Vec::new();
    for role in ROLES {
        if role.cues.iter().any(|cue| contains(&words, cue)) {
            for h in role.headings {
                if !out.contains(h) {
                    out.push(h);
                }
            }
        }
    }
    out
}

/// Lowercase words of `query`, apostrophes inside words kept (`wasn't`).
fn words(query: &str) -> Vec<String> {
    straight_apostrophes(query)
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Whether the word sequence `cue` occurs in `words`.
fn contains(words: &[String], cue: &str) -> bool {
    let cue: Vec<&str> = cue.split(' ').collect();
    words
        .windows(cue.len())
        .any(|w| w.iter().zip(&cue).all(|(a, b)| a == b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_design_question_asks_for_its_section_role() {
        assert_eq!(
            heading_words("Why wasn’t a simple boolean used?"),
            ["alternatives", "rejected", "rationale"]
        );
        assert!(heading_words("what happens if I roll the controller back?").is_empty());
        assert!(heading_words("if I roll back the controller").contains(&"rollback"));
        assert!(heading_words("when is it considered stable").contains(&"graduation"));
        assert!(heading_words("why an annotation rather than a label?").contains(&"alternatives"));
    }

    #[test]
    fn cues_are_whole_words() {
        // "breakpoint" and "gas" hold a cue's letters, not the cue.
        assert!(heading_words("set a breakpoint").is_empty());
        assert!(heading_words("gas prices").is_empty());
        assert!(heading_words("what breaks if the key rotates?").contains(&"risks"));
        assert!(heading_words("how is a stale lock detected and broken").is_empty());
    }

    #[test]
    fn roles_combine_without_repeats() {
        let h = heading_words("upgrade risks and why not a flag; rollback");
        assert_eq!(h.iter().filter(|w| **w == "rollback").count(), 1);
        assert!(h.contains(&"alternatives") && h.contains(&"risks") && h.contains(&"skew"));
    }
}
