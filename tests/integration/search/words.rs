//! How a query's words meet the text: abbreviations, synonyms, operators,
//! contractions, irregular forms, spellings and words no text holds.

use predicates::prelude::*;

use super::super::util::Env;

/// A question's word finds code that only uses its abbreviation ("directory"
/// → `dir`), ahead of code that shares the question's other words.
#[test]
fn abbreviations_match_their_words() {
    let env = Env::empty();
    env.write(
        "src/fs.rs",
        r#"fn read_dir_entries(dir: &Path) -> Vec<Entry> {
    fs::read_dir(dir).into_iter().flatten().collect()
}

fn log_entries(entries: &[Entry]) {
    for entry in entries {
        println!("entry {entry:?} of {} entries", entries.len());
    }
}
"#,
    );
    env.ctx(&["build"]).assert().success();
    let r = env.json(&["search", "--no-build", "entries of a directory"]);
    let hits = r["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{r}");
    assert_eq!(hits[0]["symbol"], "read_dir_entries", "{r}");
}

/// A question's everyday words find the docs' synonyms ("upgrade" finds
/// "update", "remove" finds "uninstall"), but a synonym alone is not evidence:
/// a query none of whose words the docs use still abstains.
#[test]
fn synonyms_rank_but_do_not_answer() {
    let env = Env::empty();
    env.write(
        "install.md",
        "# Installation\n\nInstall the toolchain with the installer script.\n\n\
         ## Updating and uninstalling\n\nTo update, run `tool update`. To uninstall, run `tool self uninstall`.\n\n\
         ## Troubleshooting\n\nIf the toolchain does not work, check that the toolchain directory is on your PATH and the toolchain version matches.\n",
    );
    env.ctx(&["build"]).assert().success();
    let r = env.json(&[
        "search",
        "--no-build",
        "upgrade or remove the toolchain",
        "-k",
        "3",
    ]);
    assert_eq!(
        r["hits"][0]["title_path"].to_string(),
        r#"["Installation","Updating and uninstalling"]"#,
        "{r}"
    );
    let r = env.json(&["search", "--no-build", "erase modify"]);
    assert_eq!(r["no_evidence"], true, "{r}");
}

/// An operator named in a query (alone, or in backticks) finds the section
/// that writes it as inline code, though no other word of the query is rarer
/// there than elsewhere; a question mark ending a query is not one.
#[test]
fn operators_are_searchable() {
    let env = Env::empty();
    env.write(
        "errors.md",
        "# Errors\n\n## Matching on results\n\nA function that can fail returns a result; match on it in main and return early.\n\n\
         ## Early return\n\nUse the `?` operator to return early from main with the error.\n\n\
         ## Never\n\nA function that never returns has the type `!`, and main can return it.\n",
    );
    env.ctx(&["build"]).assert().success();
    let top = |q: &str| {
        let r = env.json(&["search", "--no-build", q, "-k", "3"]);
        r["hits"][0]["title_path"].to_string()
    };
    assert_eq!(top("can I use ? in main"), r#"["Errors","Early return"]"#);
    assert_eq!(top("return type `!` in main"), r#"["Errors","Never"]"#);
    // A question mark ending a question is punctuation: were it the
    // operator, "Early return" would win on it.
    assert_eq!(top("what type can main return?"), r#"["Errors","Never"]"#);
    assert_eq!(top("what type can main return ?"), r#"["Errors","Never"]"#);
}

/// Contractions are words of the question's grammar, not of its subject: a
/// negated auxiliary (`doesn't`) and a possessive ending (`client's`) are not
/// searched for, so they cannot leave a question uncovered.
#[test]
fn contractions_are_not_searched_for() {
    let env = Env::empty();
    env.write(
        "client.md",
        "# Client\n\n## Retries\n\nThe client retries a failed request three times, then reports the error.\n\n\
         ## Timeouts\n\nEach request times out after ten seconds.\n",
    );
    env.ctx(&["build"]).assert().success();
    for q in [
        "why doesn't the client retry a failed request?",
        "the client’s retries of a failed request",
    ] {
        let r = env.json(&["search", "--no-build", q]);
        assert_eq!(r["coverage"], 1.0, "{q}: {r}");
        assert_eq!(r["hits"][0]["title_path"][1], "Retries", "{q}: {r}");
    }
}

/// An irregular form is its base word: "broken" and "built" find text that
/// says only "break" and "build", count as answered, and are not named absent;
/// the stemmer alone keeps them apart.
#[test]
fn irregular_forms_find_their_base_word() {
    let env = Env::empty();
    env.write(
        "locks.md",
        "# Locks\n\n## Stale locks\n\nAn operator can break a stale lock with `unlock --force` once \
         its holder has exited.\n\n## Lock files\n\nThe lock file holds the pid of its holder.\n\n\
         ## Packaging\n\nRelease archives build on every tag.\n",
    );
    env.ctx(&["build"]).assert().success();
    answered_in_full(&env, "how is a stale lock broken", "Stale locks");
    answered_in_full(&env, "when are release archives built", "Packaging");
}

/// `q`'s best hit is the section `section`, with every query word found.
fn answered_in_full(env: &Env, q: &str, section: &str) {
    let r = env.json(&["search", "--no-build", q]);
    assert_eq!(r["hits"][0]["title_path"][1], section, "{q}: {r}");
    assert_eq!(r["coverage"], 1.0, "{q}: {r}");
    assert!(r.get("absent").is_none(), "{q}: {r}");
}

/// British and American spellings find each other, both ways: text that says
/// "serialized" and "behavior" answers "serialised" and "behaviour", and text
/// that says "colour" answers "color".
#[test]
fn british_and_american_spellings_find_each_other() {
    let env = Env::empty();
    env.write(
        "format.md",
        "# Format\n\n## Encoding\n\nEvery record is serialized as one JSON line; the default \
         behavior is to skip empty records.\n\n## Terminal output\n\nWarnings are printed in a \
         yellow colour when standard error is a terminal.\n\n## Exit codes\n\nThe process exits \
         with 2 on a usage error.\n",
    );
    env.ctx(&["build"]).assert().success();
    answered_in_full(
        &env,
        "how is a record serialised, and what is the default behaviour",
        "Encoding",
    );
    answered_in_full(&env, "which color are warnings", "Terminal output");
}

/// A query word no indexed text holds is named (JSON `absent`, a CLI note, a
/// note in the evidence block) and raises the coverage a prose answer needs:
/// a question about `jemalloc` whose other words cover more than the usual
/// threshold still gets "No evidence", while a question that only paraphrases
/// with an absent word ("replaced") is answered.
#[test]
fn absent_words_are_named_and_raise_the_bar() {
    let env = Env::empty();
    env.write(
        "runtime.md",
        "# Runtime\n\n## Memory allocation\n\nThe global allocator hands out heap memory for every Box and Vec, \
         and takes it back when they are dropped.\n\n## Threads\n\nEach worker thread has its own stack; the \
         stack size is set when the thread is spawned.\n\n## Logging\n\nLog lines go to standard error, one line \
         per event, with a timestamp.\n",
    );
    env.ctx(&["build"]).assert().success();
    let q = "replace the global memory allocator with jemalloc";
    let r = env.json(&["search", "--no-build", q]);
    assert_eq!(
        r["absent"],
        serde_json::json!(["replace", "jemalloc"]),
        "{r}"
    );
    let coverage = r["coverage"].as_f64().unwrap();
    assert!(coverage > 0.325, "above the usual bar: {r}");
    assert_eq!(r["no_evidence"], true, "{r}");
    env.ctx(&["search", "--no-build", q])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("No evidence in indexed context."))
        .stderr(predicate::str::contains(
            r#"note: no searched text contains "replace" or "jemalloc""#,
        ));

    let q = "how is the global allocator replaced";
    let r = env.json(&["search", "--no-build", q]);
    assert_eq!(r["absent"], serde_json::json!(["replaced"]), "{r}");
    assert_eq!(r["hits"][0]["title_path"][1], "Memory allocation", "{r}");
    env.ctx(&["evidence", "--no-build", q])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "EVIDENCE (read-only)\nNote: no searched text contains \"replaced\".\n",
        ));
    // Every word found: no note, no key.
    let r = env.json(&["search", "--no-build", "global allocator memory"]);
    assert!(r.get("absent").is_none(), "{r}");
    env.ctx(&["search", "--no-build", "global allocator memory"])
        .assert()
        .success()
        .stderr(predicate::str::contains("no indexed text").not());
}

/// An absent word that is everyday English ("silence") is taken for a
/// paraphrase and keeps the usual bar, while jargon no text holds
/// (`journald`), or an everyday word written as a name, raises it: the
/// questions cover the same share of their words, and only the first is
/// answered.
#[test]
fn an_everyday_absent_word_does_not_raise_the_bar() {
    let env = Env::empty();
    let sections = [
        (
            "Memory allocation",
            "The global allocator hands out heap memory.",
        ),
        ("Threads", "Each worker thread has its own stack."),
        (
            "Logging",
            "Log lines go to standard error, each with a timestamp.",
        ),
        (
            "Signals",
            "An interrupt stops the scheduler after the task yields.",
        ),
        (
            "Configuration",
            "Settings are read from a TOML file beside the binary.",
        ),
        (
            "Networking",
            "Sockets are opened lazily and reused across requests.",
        ),
        (
            "Storage",
            "Records are appended to a journal and compacted nightly.",
        ),
        ("Metrics", "Counters and gauges are exported over HTTP."),
        (
            "Shutdown",
            "Pending work is drained before the process exits.",
        ),
        (
            "Updates",
            "New releases are fetched from the mirror and verified.",
        ),
    ];
    let mut text = String::from("# Runtime\n");
    for (heading, body) in sections {
        text.push_str(&format!("\n## {heading}\n\n{body}\n"));
    }
    env.write("runtime.md", &text);
    env.ctx(&["build"]).assert().success();

    let everyday = env.json(&["search", "--no-build", "silence the timestamp"]);
    let jargon = env.json(&["search", "--no-build", "journald the timestamp"]);
    assert_eq!(
        everyday["absent"],
        serde_json::json!(["silence"]),
        "{everyday}"
    );
    assert_eq!(
        jargon["absent"],
        serde_json::json!(["journald"]),
        "{jargon}"
    );
    let coverage = everyday["coverage"].as_f64().unwrap();
    assert_eq!(jargon["coverage"].as_f64(), Some(coverage), "{jargon}");
    assert!(
        coverage > 0.325 && coverage < 0.325 * 1.4,
        "between the bars: {everyday}"
    );
    assert_eq!(
        everyday["hits"][0]["title_path"][1], "Logging",
        "{everyday}"
    );
    assert_eq!(jargon["no_evidence"], true, "{jargon}");
    // Capitalized where no sentence starts, an everyday word names a thing.
    let starts = env.json(&["search", "--no-build", "Silence the timestamp"]);
    let named = env.json(&["search", "--no-build", "the Silence timestamp"]);
    assert_eq!(starts["hits"][0]["title_path"][1], "Logging", "{starts}");
    assert_eq!(named["coverage"].as_f64(), Some(coverage), "{named}");
    assert_eq!(named["no_evidence"], true, "{named}");
}

/// A preview window that starts just before a no-break space (two bytes in
/// UTF-8, as KEPs write it) is cut after it: search answers instead of
/// panicking.
#[test]
fn a_no_break_space_before_a_hit_does_not_break_its_preview() {
    let env = Env::empty();
    env.write(
        "ordinals.md",
        format!(
            "# StatefulSet\n\n## Ordinals\n\nA struct is added to the spec, rather than a \
             field, to leave room for later changes. See {}\u{a0}ordinals begin at any number \
             the user picks.\n",
            "x".repeat(60)
        ),
    );
    env.ctx(&["build"]).assert().success();
    env.ctx(&["search", "--no-build", "ordinals begin"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Ordinals"));
}

/// An identifier the query writes (`TrafficPolicy`, `rate_limit`) is absent
/// when no text holds it whole, though every one of its parts is there: it
/// names another tool's object, and raises the bar. One the docs write
/// whole is found, in either form.
#[test]
fn an_identifier_is_absent_unless_some_text_holds_it_whole() {
    let env = Env::empty();
    env.write(
        "gateway.md",
        "# Gateway\n\n## Traffic\n\nThe gateway applies a rate limit to each client and a policy \
         to its traffic.\n\n## Routes\n\nA `RouteTable` maps each path to a backend.\n",
    );
    env.ctx(&["build"]).assert().success();
    let r = env.json(&[
        "search",
        "--no-build",
        "set a TrafficPolicy with a rate_limit",
    ]);
    assert_eq!(
        r["absent"],
        serde_json::json!(["set", "TrafficPolicy", "rate_limit"]),
        "{r}"
    );
    assert!(
        r["coverage"].as_f64().unwrap() > 0.325,
        "its parts cover it: {r}"
    );
    assert_eq!(r["no_evidence"], true, "{r}");
    let r = env.json(&[
        "search",
        "--no-build",
        "which backend does a RouteTable map a path to",
    ]);
    assert!(r.get("absent").is_none(), "{r}");
    assert_eq!(r["hits"][0]["title_path"][1], "Routes", "{r}");
    let r = env.json(&["search", "--no-build", "route table backend"]);
    assert_eq!(r["hits"][0]["title_path"][1], "Routes", "{r}");
}

/// A question phrased in everyday words no doc uses ("silence", "nagging",
/// "gotten around to") is answered by the section about its subject: those
/// words weigh half in coverage. The same words as keywords are the
/// subject, keep their weight, and the search abstains.
#[test]
fn phrasing_the_docs_never_use_does_not_sink_a_question() {
    let env = Env::empty();
    env.write(
        "vars.md",
        "# Variables\n\n## Unused Variables\n\nThe compiler warns about a variable you create \
         but never use. To tell it the variable is intentionally unused, start its name with \
         an underscore, as in `_count`.\n\n## Shadowing\n\nYou can declare a new variable \
         with the same name as a previous one.\n",
    );
    env.write(
        "loops.md",
        "# Loops\n\n## Counting with for\n\nA `for` loop over a range counts down without \
         a manual counter.\n\n## While loops\n\nA `while` loop runs as long as its condition \
         holds.\n",
    );
    env.ctx(&["build"]).assert().success();
    let question = "how do I silence the nagging warning about a variable I haven't gotten \
                    around to using yet?";
    let r = env.json(&["search", "--no-build", question]);
    assert_eq!(
        r["absent"],
        serde_json::json!(["silence", "nagging", "gotten", "around", "yet"]),
        "{r}"
    );
    assert_eq!(r["hits"][0]["title_path"][1], "Unused Variables", "{r}");
    let keywords = "silence nagging warning variable gotten around yet";
    let r = env.json(&["search", "--no-build", keywords]);
    assert_eq!(r["no_evidence"], true, "{r}");
}
