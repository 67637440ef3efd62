//! Property tests over generated Markdown: exact tiling, balanced fences,
//! determinism, and valid IDs.

use ctx::chunk::{ChunkOptions, DocFormat, chunk_document};
use proptest::prelude::*;
use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// Whether Markdown `text` ends outside any code block: a paragraph written
/// after it is a paragraph. Counting fence lines would take a line such as
/// "```rust" inside a code block (content, not a fence) for one.
fn ends_outside_code(text: &str) -> bool {
    const PROBE: &str = "zzprobezz";
    let mut in_code = false;
    let mut outside = false;
    for event in Parser::new(&format!("{text}\n\n{PROBE}\n")) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(t) if t.contains(PROBE) => outside = !in_code,
            _ => {}
        }
    }
    outside
}

fn block() -> impl Strategy<Value = String> {
    prop_oneof![
        (1usize..7, "[A-Za-z ]{1,20}").prop_map(|(l, t)| format!("{} {t}\n", "#".repeat(l))),
        "[A-Za-z0-9 ,.]{0,200}".prop_map(|t| format!("{t}\n")),
        (
            "[a-z]{0,6}",
            prop::collection::vec("[#A-Za-z0-9 =;]{0,60}", 0..40)
        )
            .prop_map(|(lang, lines)| format!("```{lang}\n{}\n```\n", lines.join("\n"))),
        prop::collection::vec("[A-Za-z ]{1,30}", 1..20)
            .prop_map(|items| items.iter().map(|i| format!("- {i}\n")).collect::<String>()),
        prop::collection::vec("[a-z ]{1,10}", 1..30).prop_map(|rows| format!(
            "| a | b |\n|---|---|\n{}",
            rows.iter()
                .map(|r| format!("| {r} | x |\n"))
                .collect::<String>()
        )),
        Just("\n".to_string()),
        Just("---\n".to_string()),
        Just("<!--\n# not a heading\n-->\n".to_string()),
        "[A-Za-z ]{1,20}".prop_map(|t| format!("> {t}\n> # quoted\n")),
        "[A-Za-z]{1,12}".prop_map(|t| format!("{t}\n===\n")),
        Just("```\nunclosed\n# inside\n".to_string()),
        (100usize..2_000, "[a-z]{0,8}").prop_map(|(n, alt)| format!(
            "![{alt}](data:image/png;base64,{}) and text\n",
            "QUJD".repeat(n / 4)
        )),
        // Base64 wrapped over lines (a PEM block, MIME), fenced or not.
        (
            prop::bool::ANY,
            prop::collection::vec("[A-Za-z0-9+/]{64}", 2..30),
            "[A-Za-z0-9+/]{1,60}={0,2}"
        )
            .prop_map(|(fenced, lines, last)| {
                let blob = format!("{}\n{last}\n", lines.join("\n"));
                if fenced {
                    format!("```\n{blob}```\n")
                } else {
                    blob
                }
            }),
    ]
}

fn document() -> impl Strategy<Value = String> {
    (
        prop::bool::ANY,
        prop::bool::ANY,
        prop::collection::vec(block(), 0..40),
    )
        .prop_map(|(crlf, fm, blocks)| {
            let mut s = String::new();
            if fm {
                s.push_str("---\ntitle: Generated\n---\n");
            }
            s.push_str(&blocks.concat());
            if crlf { s.replace('\n', "\r\n") } else { s }
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::util::prop_cases(300), .. ProptestConfig::default() })]

    #[test]
    fn chunks_tile_exactly_and_fences_balance(doc in document(), max in 40usize..400) {
        let opts = ChunkOptions { max_chunk_tokens: max };
        // As a build chunks it: data URI payloads elided first.
        let out = chunk_document("gen/doc.md", &doc, DocFormat::Markdown, &opts);
        if doc.trim().is_empty() || out.chunks.is_empty() {
            prop_assert!(doc.trim().is_empty() || doc.trim_start().starts_with("---") , "no chunks for non-empty doc");
            return Ok(());
        }
        prop_assert_eq!(out.chunks[0].bytes[0], 0);
        for w in out.chunks.windows(2) {
            prop_assert_eq!(w[0].bytes[1], w[1].bytes[0]);
        }
        prop_assert_eq!(out.chunks.last().unwrap().bytes[1], doc.len());
        let body_start = ctx::chunk::markdown::front_matter(&doc).body_start;
        for c in &out.chunks {
            prop_assert!(!c.text.trim().is_empty(), "empty chunk");
            let src = &doc[c.bytes[0].max(body_start)..c.bytes[1]];
            let src = ctx::chunk::encoded::elided(src);
            prop_assert!(c.text.contains(&*src), "text does not contain its source range");
            prop_assert_eq!(c.lines, ctx::chunk::line_range(&doc, c.bytes[0], c.bytes[1]));
            prop_assert!(!c.text.contains(&"QUJD".repeat(64)), "a long data URI payload was kept");
            prop_assert!(ctx::chunk::id::parse(&c.id).is_some());
            if c.part.is_some() && c.lang.is_some() {
                prop_assert!(ends_outside_code(&c.text), "unbalanced fence in a split code block: {:?}", c.text);
            }
        }
        let again = chunk_document("gen/doc.md", &doc, DocFormat::Markdown, &opts);
        prop_assert_eq!(out, again);
    }
}

/// The fence check itself: an open fence fails it, a closed one and a fence
/// line inside a code block (content) pass.
#[test]
fn the_fence_check_tells_open_from_closed() {
    assert!(!ends_outside_code("```rust\nfn main() {}\n"));
    assert!(ends_outside_code("```rust\nfn main() {}\n```\n"));
    assert!(ends_outside_code(
        "```\nunclosed\n```gtit\n\n```\n```w\nx\n```\n"
    ));
    assert!(!ends_outside_code(
        "```\nunclosed\n```gtit\n\n```\n```w\nx\n"
    ));
}
