//! Unit tests of the Markdown chunker (the edge-case fixtures are covered by
//! the integration tests).

use super::*;

fn chunk(text: &str) -> Vec<Chunk> {
    chunk_markdown("docs/t.md", text, &ChunkOptions::default()).chunks
}

fn assert_tiles(text: &str, chunks: &[Chunk]) {
    if text.trim().is_empty() {
        return;
    }
    assert_eq!(chunks[0].bytes[0], 0);
    for w in chunks.windows(2) {
        assert_eq!(w[0].bytes[1], w[1].bytes[0]);
    }
    assert_eq!(chunks.last().map(|c| c.bytes[1]), Some(text.len()));
}

#[test]
fn headings_give_title_paths() {
    let text = "# A\n\nintro\n\n## B\n\nb text\n\n### C\n\nc text\n\n## D\n\nd\n";
    let c = chunk(text);
    let paths: Vec<Vec<String>> = c.iter().map(|c| c.title_path.clone()).collect();
    assert_eq!(
        paths,
        vec![
            vec!["A".to_string()],
            vec!["A".into(), "B".into()],
            vec!["A".into(), "B".into(), "C".into()],
            vec!["A".into(), "D".into()],
        ]
    );
    assert_tiles(text, &c);
    assert_eq!(c[1].lines, [5, 8]);
}

#[test]
fn hash_in_fence_is_not_a_heading() {
    let text = "# A\n\n```sh\n# comment\n```\n\n~~~\n# x\n~~~\n";
    let c = chunk(text);
    assert_eq!(c.len(), 1);
    assert_tiles(text, &c);
}

#[test]
fn empty_parent_merges_into_child() {
    let text = "# Title\n\n## Design\n\n### Test Plan\n\nplan\n";
    let c = chunk(text);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].title_path, vec!["Title", "Design", "Test Plan"]);
    assert!(c[0].text.starts_with("# Title"));
}

#[test]
fn front_matter_is_metadata() {
    let text = "\u{feff}---\ntitle: \"Hello\"\n---\nintro text\n\n# H1\n\nbody\n";
    let out = chunk_markdown("x.md", text, &ChunkOptions::default());
    assert_eq!(out.title.as_deref(), Some("Hello"));
    assert_eq!(out.chunks[0].title_path, vec!["Hello"]);
    assert!(out.chunks[0].text.starts_with("intro"));
    assert_tiles(text, &out.chunks);
}

#[test]
fn oversized_fence_is_reopened() {
    let mut text = String::from("# Code\n\n```python\n");
    for i in 0..800 {
        text.push_str(&format!("value_{i} = compute({i}) + offset\n"));
    }
    text.push_str("```\n\nafter\n");
    let c = chunk(&text);
    assert!(c.len() > 3);
    assert_tiles(&text, &c);
    for ch in &c {
        let fences = ch.text.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences % 2, 0, "unbalanced fence in {:?}", ch.part);
        assert!(ch.token_est <= 600 + 20, "too big: {}", ch.token_est);
    }
    assert_eq!(c[0].part, Some([1, c.len()]));
}

#[test]
fn whitespace_only_document_has_no_chunks() {
    assert!(chunk("").is_empty());
    assert!(chunk("\n\n  \n").is_empty());
    assert!(chunk("---\ntitle: x\n---\n\n").is_empty());
}

#[test]
fn crlf_ranges_are_exact() {
    let text = "# A\r\n\r\ntext\r\n\r\n## B\r\n\r\nmore\r\n";
    let c = chunk(text);
    assert_eq!(c.len(), 2);
    assert_tiles(text, &c);
    assert_eq!(&text[c[1].bytes[0]..c[1].bytes[1]], c[1].text);
}

#[test]
fn crlf_fence_split_balanced() {
    let mut text = String::from("# A\r\n```a\r\n");
    for i in 0..20 {
        text.push_str(&format!("line {i} {}\r\n", "x=1; ".repeat(10)));
    }
    text.push_str("```\r\n\r\n");
    let c = chunk_markdown(
        "d.md",
        &text,
        &ChunkOptions {
            max_chunk_tokens: 76,
        },
    )
    .chunks;
    for ch in &c {
        let fences = ch
            .text
            .lines()
            .filter(|l| l.trim_start().starts_with("```"))
            .count();
        assert_eq!(fences % 2, 0, "part {:?}: {:?}", ch.part, ch.text);
    }
}

/// White space alone is never a part of its own (each case found by the
/// chunk property test): a blank line before an oversized paragraph, and the
/// line break after a long line cut into parts.
#[test]
fn white_space_alone_is_not_a_part() {
    for (text, max_chunk_tokens) in [
        (
            "\na .aA0,0AA a0A0.a.0AAA0, aA A0,a0,.a  ,A,a0AAA,a0 a0a,0 a,0a.AA,AA,AAA 0aAAA,,,A,.A.A  aA,,aAaAA,..A\n.\n",
            40,
        ),
        (
            "#  \n```\nA#=a0a;a=0A= =a# aAaA#0aA  A\n```\n0aA0a  0, .aA. A0A0aAaA. A0A  a.0.a.a..AA0a0a0..A,aA,a0a0A0AA aA.a..aA. ,0a0A,a,..0a..AAA.A0A..aAA.a0A0 0,A,a.0A0,aA, AA, a,.,a0A, a 0a0, ,aA 0. \n```\n\n```\n",
            110,
        ),
    ] {
        let out = chunk_markdown("gen/doc.md", text, &ChunkOptions { max_chunk_tokens });
        assert_tiles(text, &out.chunks);
        for c in &out.chunks {
            assert!(!c.text.trim().is_empty(), "empty chunk {c:?}");
        }
    }
}

#[test]
fn a_line_over_the_budget_is_cut() {
    // A generated one-line paragraph, then a minified blob inside a fence, each
    // far over 600 tokens: every chunk fits, the chunks still tile the text,
    // the paragraph is cut at spaces and the fence is reopened in every part.
    let words: Vec<String> = (0..5000).map(|i| format!("word{i}")).collect();
    let blob = "{\"k\":[1,2,3]},".repeat(2000);
    let text = format!(
        "# Big\n\n{}\n\n## Blob\n\n```json\n{blob}\n```\n\ntail\n",
        words.join(" ")
    );
    let c = chunk(&text);
    assert_tiles(&text, &c);
    for ch in &c {
        assert!(
            ch.token_est <= 600 + 20,
            "too big: {} in {:?}",
            ch.token_est,
            ch.title_path
        );
    }
    // A heading opens its oversized block's first part, never a part alone.
    let big: Vec<&Chunk> = c.iter().filter(|ch| ch.title_path == ["Big"]).collect();
    assert!(
        big[0].text.starts_with("# Big\n\nword0 word1 "),
        "{}",
        big[0].text
    );
    assert!(big.len() > 5, "{}", big.len());
    for ch in &big[..big.len() - 1] {
        assert!(ch.text.ends_with(' '), "cut inside a word: {:?}", ch.text);
    }
    // The section's last part is the paragraph after the fence.
    let blob_parts: Vec<&Chunk> = c
        .iter()
        .filter(|ch| ch.title_path == ["Big", "Blob"] && ch.text != "tail\n")
        .collect();
    assert!(
        blob_parts[0].text.starts_with("## Blob\n\n```json\n{\"k\""),
        "{}",
        blob_parts[0].text
    );
    assert!(blob_parts.len() > 5, "{}", blob_parts.len());
    for ch in &blob_parts {
        let fences = ch.text.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences, 2, "unbalanced fence in {:?}: {}", ch.part, ch.text);
        assert_eq!(ch.lang.as_deref(), Some("json"));
        assert!(
            ch.text.contains("{\"k\""),
            "a part without the blob: {}",
            ch.text
        );
    }
}

#[test]
fn a_short_lead_in_opens_an_oversized_block() {
    // A heading and one sentence before a long table and a long listing: each
    // opens the first part of its block (no heading-only part), the table's
    // later parts repeat its header, the listing's reopen its fence.
    let mut text = String::from(
        "# API\n\n## Options\n\nEvery option, by name:\n\n| name | meaning |\n|---|---|\n",
    );
    for i in 0..300 {
        text.push_str(&format!(
            "| opt{i} | sets the frobnication level {i} of the widget |\n"
        ));
    }
    text.push_str("\n## Listing\n\n```rust\n");
    for i in 0..400 {
        text.push_str(&format!("let value_{i} = compute({i});\n"));
    }
    text.push_str("```\n");
    let c = chunk(&text);
    assert_tiles(&text, &c);
    for ch in &c {
        assert!(
            ch.text.lines().count() > 2,
            "a part with almost nothing: {:?}",
            ch.text
        );
        assert!(
            ch.token_est <= 600 + 20,
            "too big: {} {:?}",
            ch.token_est,
            ch.text
        );
    }
    let options: Vec<&Chunk> = c
        .iter()
        .filter(|ch| ch.title_path == ["API", "Options"])
        .collect();
    assert!(options.len() > 2);
    assert!(
        options[0].text.starts_with(
            "# API\n\n## Options\n\nEvery option, by name:\n\n| name | meaning |\n|---|---|\n| opt0 "
        ),
        "{}",
        options[0].text
    );
    for ch in &options[1..] {
        assert!(
            ch.text.starts_with("| name | meaning |\n|---|---|\n| opt"),
            "{}",
            ch.text
        );
    }
    let listing: Vec<&Chunk> = c
        .iter()
        .filter(|ch| ch.title_path == ["API", "Listing"])
        .collect();
    assert!(listing.len() > 2);
    assert!(
        listing[0]
            .text
            .starts_with("## Listing\n\n```rust\nlet value_0"),
        "{}",
        listing[0].text
    );
    for ch in &listing {
        let fences = ch.text.lines().filter(|l| l.starts_with("```")).count();
        assert_eq!(fences, 2, "unbalanced fence in {:?}", ch.part);
    }
}

#[test]
fn an_embedded_image_is_one_line_of_its_section_not_hundreds_of_parts() {
    let payload = "iVBORw0KGgo".repeat(30_000);
    let text = format!(
        "---\ntitle: Guide\n---\n# Guide\n\n## Diagram\n\nThe queue feeds the workers:\n\n![arch](data:image/png;base64,{payload})\n\n## Tuning\n\nSet `--workers`.\n"
    );
    let opts = ChunkOptions::default();
    let c =
        crate::chunk::chunk_document("docs/t.md", &text, crate::chunk::DocFormat::Markdown, &opts)
            .chunks;
    assert_tiles(&text, &c);
    assert_eq!(c.len(), 2, "{c:#?}");
    assert_eq!(
        c[0].text,
        "# Guide\n\n## Diagram\n\nThe queue feeds the workers:\n\n![arch](data:image/png;base64,…(322KB-elided))\n\n"
    );
    assert_eq!(c[0].lines, [1, 11]);
    assert_eq!(c[0].token_est, tokens::estimate(&c[0].text));
    assert_eq!(c[1].lines, [12, 14]);
    assert_eq!(c[1].text, "## Tuning\n\nSet `--workers`.\n");
    assert_eq!(text[c[1].bytes[0]..c[1].bytes[1]], c[1].text);
}

#[test]
fn an_indented_heading_starts_its_chunk_at_its_line() {
    let text = "## A\n\ntext.\n\n ### Indented\n\nfinal.\n\n   ## Three\n\nend.\n";
    let chunks = chunk(text);
    assert_tiles(text, &chunks);
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    for pair in chunks.windows(2) {
        assert!(pair[0].lines[1] < pair[1].lines[0], "{chunks:?}");
        assert_eq!(text.as_bytes()[pair[1].bytes[0] - 1], b'\n');
    }
    assert!(chunks[1].text.starts_with(" ### Indented"));
    assert_eq!(chunks[2].lines, [9, 11]);
}

#[test]
fn an_unclosed_fence_ending_on_content_keeps_its_last_part_within_the_budget() {
    let words = [
        "lock", "stale", "timeout", "retry", "server", "client", "cache",
    ];
    let line = |n: usize, o: usize| {
        (0..n)
            .map(|i| words[(i * 3 + o) % words.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let opts = ChunkOptions::default();
    for closed in [false, true] {
        let text = format!(
            "```\n{}\n{}\n{}",
            line(2_420, 0),
            line(150, 1),
            if closed { "```\n" } else { "" }
        );
        let chunks = chunk_markdown("docs/f.md", &text, &opts).chunks;
        assert_tiles(&text, &chunks);
        for c in &chunks {
            assert!(
                c.token_est <= opts.max_chunk_tokens + 20,
                "closed {closed}: part {:?} has {} tokens",
                c.part,
                c.token_est
            );
        }
    }
}
