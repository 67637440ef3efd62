//! British spellings brought to their American form before stemming.
//!
//! The English stemmer strips `-ize` but not `-ise`, so "serialised" stems to
//! `serialis` and "serialized" to `serial`; "behaviour" and "behavior" stay
//! apart as they are. A question written in one spelling then misses text
//! written in the other, and code mixes both (`behaviour` and `behavior` occur
//! in the same crates). Indexing and queries both spell through here, so
//! either spelling finds both.
//!
//! `-ise` is rewritten only after a known root: as a rule it would also turn
//! "precise" into `preciz` and part it from "precision".

/// Roots that take `-ise`/`-ize` (`recogn` + `ise`), with the endings below.
const ISE_ROOTS: &[&str] = &[
    "apolog",
    "author",
    "capital",
    "categor",
    "central",
    "character",
    "container",
    "critic",
    "custom",
    "deserial",
    "digit",
    "emphas",
    "final",
    "general",
    "harmon",
    "hypothes",
    "incentiv",
    "initial",
    "internal",
    "international",
    "item",
    "legal",
    "local",
    "material",
    "maxim",
    "memor",
    "minim",
    "mobil",
    "modern",
    "monet",
    "neutral",
    "normal",
    "optim",
    "organ",
    "parallel",
    "parametr",
    "parameter",
    "penal",
    "personal",
    "priorit",
    "random",
    "real",
    "recogn",
    "serial",
    "special",
    "stabil",
    "standard",
    "summar",
    "symbol",
    "synchron",
    "token",
    "util",
    "vector",
    "virtual",
    "visual",
];

/// Endings after `is`/`iz` (`recognis` + `ed`).
const ISE_ENDINGS: &[&str] = &[
    "e", "ed", "es", "ing", "er", "ers", "able", "ation", "ations",
];

/// Roots that take `-our`/`-or` (`behavi` + `our`).
const OUR_ROOTS: &[&str] = &[
    "arm", "behavi", "col", "endeav", "fav", "flav", "harb", "hon", "hum", "lab", "neighb", "od",
    "rig", "rum", "sav", "tum", "vap", "vig",
];

/// Endings after `our`/`or` (`colour` + `ed`).
const OUR_ENDINGS: &[&str] = &[
    "", "s", "ed", "ing", "al", "ally", "able", "ite", "ites", "ful", "less", "hood", "hoods",
];

/// Roots that take `-tre`/`-ter` (`cen` + `tre`).
const TRE_ROOTS: &[&str] = &["cen", "li", "me", "spec", "thea", "lus"];

/// British endings after a [`TRE_ROOTS`] root, and their American spelling.
const TRE_ENDINGS: &[(&str, &str)] = &[
    ("tre", "ter"),
    ("tres", "ters"),
    ("tred", "tered"),
    ("tring", "tering"),
];

/// Roots that take `-ogue`/`-og` (`catal` + `ogue`).
const OGUE_ROOTS: &[&str] = &["catal", "dial", "anal", "prol", "epil", "monol"];

/// British endings after an [`OGUE_ROOTS`] root, and their American spelling.
const OGUE_ENDINGS: &[(&str, &str)] = &[
    ("ogue", "og"),
    ("ogues", "ogs"),
    ("ogued", "oged"),
    ("oguing", "oging"),
];

/// Whole words spelled differently.
const WORDS: &[(&str, &str)] = &[
    ("licence", "license"),
    ("licences", "licenses"),
    ("defence", "defense"),
    ("defences", "defenses"),
    ("offence", "offense"),
    ("offences", "offenses"),
    ("grey", "gray"),
    ("programme", "program"),
    ("programmes", "programs"),
    ("judgement", "judgment"),
    ("judgements", "judgments"),
    ("acknowledgement", "acknowledgment"),
    ("acknowledgements", "acknowledgments"),
    ("artefact", "artifact"),
    ("artefacts", "artifacts"),
    ("analyse", "analyze"),
    ("analysed", "analyzed"),
    ("analysing", "analyzing"),
    ("analyser", "analyzer"),
    ("analysers", "analyzers"),
    ("paralyse", "paralyze"),
    ("paralysed", "paralyzed"),
    ("catalyse", "catalyze"),
    ("catalysed", "catalyzed"),
    ("sceptical", "skeptical"),
    ("fibre", "fiber"),
    ("fibres", "fibers"),
    ("calibre", "caliber"),
    ("enrolment", "enrollment"),
    ("fulfilment", "fulfillment"),
    ("instalment", "installment"),
];

/// The American spelling of lowercase `word`, when it is a British one.
pub fn american(word: &str) -> Option<String> {
    // Every rule's shortest word ("grey") has four letters.
    if word.len() < 4 || !word.is_ascii() {
        return None;
    }
    if let Some(&(_, us)) = WORDS.iter().find(|(uk, _)| *uk == word) {
        return Some(us.to_string());
    }
    for root in ISE_ROOTS {
        if let Some(end) = word.strip_prefix(root).and_then(|r| r.strip_prefix("is"))
            && ISE_ENDINGS.contains(&end)
        {
            return Some(format!("{root}iz{end}"));
        }
    }
    for root in OUR_ROOTS {
        if let Some(end) = word.strip_prefix(root).and_then(|r| r.strip_prefix("our"))
            && OUR_ENDINGS.contains(&end)
        {
            return Some(format!("{root}or{end}"));
        }
    }
    for (roots, endings) in [(TRE_ROOTS, TRE_ENDINGS), (OGUE_ROOTS, OGUE_ENDINGS)] {
        for root in roots {
            if let Some(rest) = word.strip_prefix(root)
                && let Some((_, us)) = endings.iter().find(|(uk, _)| *uk == rest)
            {
                return Some(format!("{root}{us}"));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn british_spellings_become_american() {
        for (uk, us) in [
            ("recognised", "recognized"),
            ("serialisation", "serialization"),
            ("initialise", "initialize"),
            ("tokeniser", "tokenizer"),
            ("behaviour", "behavior"),
            ("behavioural", "behavioral"),
            ("colours", "colors"),
            ("neighbourhood", "neighborhood"),
            ("centre", "center"),
            ("centred", "centered"),
            ("litres", "liters"),
            ("catalogue", "catalog"),
            ("dialogues", "dialogs"),
            ("licence", "license"),
            ("analysed", "analyzed"),
            ("grey", "gray"),
            ("odour", "odor"),
            ("fibre", "fiber"),
        ] {
            assert_eq!(american(uk).as_deref(), Some(us), "{uk}");
        }
    }

    #[test]
    fn other_words_are_left_alone() {
        for w in [
            "precise",
            "promise",
            "otherwise",
            "exercise",
            "raise",
            "serialize",
            "color",
            "hour",
            "four",
            "your",
            "tour",
            "metric",
            "center",
            "analysis",
            "analyses",
            "rogue",
            "league",
            "real",
            "realism",
            "organic",
            "ise",
            "col",
        ] {
            assert_eq!(american(w), None, "{w}");
        }
    }
}
