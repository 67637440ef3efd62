use super::*;
use crate::chunk::{ChunkOptions, DocFormat, chunk_document, code, line_range};

fn b64(n: usize) -> String {
    "QUJD".repeat(n / 4)
}

/// `n` characters of base64 as an encoder writes them: both cases, digits,
/// `+` and `/` (a fixed pseudo-random sequence).
fn blob(n: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut x: u32 = 12345;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            ALPHABET[(x >> 16) as usize % 64] as char
        })
        .collect()
}

/// `blob(n)` wrapped at `width` with `joint` between lines.
fn wrapped(n: usize, width: usize, joint: &str) -> String {
    let b = blob(n);
    b.as_bytes()
        .chunks(width)
        .map(|line| std::str::from_utf8(line).expect("ascii"))
        .collect::<Vec<_>>()
        .join(joint)
}

/// Chunks `text` as a build does and checks what every chunk must hold: the
/// ranges tile the source, each text is its range elided, and its lines are
/// the range's lines in the source.
fn chunk_checked(doc: &str, text: &str, format: DocFormat) -> Chunked {
    let out = chunk_document(doc, text, format, &ChunkOptions::default());
    assert_eq!(out.chunks[0].bytes[0], 0);
    assert_eq!(out.chunks.last().expect("chunks").bytes[1], text.len());
    for pair in out.chunks.windows(2) {
        assert_eq!(pair[0].bytes[1], pair[1].bytes[0]);
    }
    for c in &out.chunks {
        let [s, e] = c.bytes;
        assert!(c.text.contains(&*elided(&text[s..e])), "{:?}", c.text);
        assert_eq!(c.lines, line_range(text, s, e), "{:?}", c.title_path);
    }
    out
}

#[test]
fn a_long_payload_becomes_a_marker_and_offsets_map_back() {
    let payload = b64(40_000);
    let text = format!("# A\n\n![d](data:image/png;base64,{payload})\n\nafter\n");
    let e = elide(&text).expect("elided");
    assert_eq!(
        e.text,
        "# A\n\n![d](data:image/png;base64,…(39KB-elided))\n\nafter\n"
    );
    assert_eq!(e.text.lines().count(), text.lines().count());
    let after = e.text.find("after").expect("after");
    assert_eq!(e.source_offset(after), text.find("after").expect("after"));
    assert_eq!(e.source_offset(0), 0);
    assert_eq!(e.source_offset(e.text.len()), text.len());
}

#[test]
fn short_payloads_and_lookalikes_stay() {
    let icon = format!("<img src=\"data:image/gif;base64,{}\">", blob(200));
    assert!(elide(&icon).is_none());
    let word = format!("metadata:{}", b64(4_000));
    assert!(elide(&word).is_none());
    assert!(elide("no uris here").is_none());
    // A hex dump has one case; a path is mostly slashes; prose has spaces.
    let hex = "0123456789abcdef".repeat(40);
    assert!(elide(&hex).is_none());
    let path = "src/Module2/".repeat(40);
    assert!(elide(&path).is_none());
    let prose = "Base64 encodes bytes as text. ".repeat(40);
    assert!(elide(&prose).is_none());
    // Identifiers in code, however long the file.
    let code = "let someLongIdentifierName42 = otherIdentifierName7 + x;\n".repeat(40);
    assert!(elide(&code).is_none());
}

#[test]
fn html_svg_and_several_uris_end_where_the_uri_ends() {
    let svg = "%3Csvg%20width%3D%2210%22%3E".repeat(20);
    let text = format!(
        "<img src=\"data:image/svg+xml,{svg}\" alt=\"x\">\n[logo]: DATA:font/woff2;base64,{} \"Logo\"\n",
        b64(1_000)
    );
    let e = elide(&text).expect("elided");
    assert_eq!(
        e.text,
        "<img src=\"data:image/svg+xml,…(560B-elided)\" alt=\"x\">\n[logo]: DATA:font/woff2;base64,…(1000B-elided) \"Logo\"\n"
    );
    assert_eq!(elided(&text), e.text);
}

#[test]
fn a_long_base64_string_is_elided_without_a_data_uri() {
    let text = format!("const KEY: &str = \"{}==\";\n", blob(600));
    assert_eq!(elided(&text), "const KEY: &str = \"…(602B-elided)\";\n");
}

#[test]
fn a_pem_block_is_one_marker_and_the_lines_after_it_map_back() {
    let pem = wrapped(1_280, 64, "\n");
    let text = format!(
        "# Certificates\n\nHere is the certificate\n\n```\n-----BEGIN CERTIFICATE-----\n{pem}\n-----END CERTIFICATE-----\n```\n\n## Rotation\n\nRotate it yearly.\n"
    );
    let e = elide(&text).expect("elided");
    assert!(
        e.text
            .contains("-----BEGIN CERTIFICATE-----\n…(1299B-elided)\n-----END"),
        "{}",
        e.text
    );
    assert!(e.text.contains("Here is the certificate\n"));
    let out = chunk_checked("certs.md", &text, DocFormat::Markdown);
    let rotation = out
        .chunks
        .iter()
        .find(|c| c.title_path.last().is_some_and(|t| t == "Rotation"))
        .expect("the section after the block");
    assert_eq!(rotation.lines, [30, 32]);
}

#[test]
fn base64_over_escaped_line_breaks_in_a_json_string_is_one_marker() {
    let content = wrapped(3_000, 60, "\\n");
    let text = format!(
        "{{\"name\": \"README.md\", \"content\": \"{content}\\n\", \"encoding\": \"base64\"}}"
    );
    assert_eq!(
        elided(&text),
        "{\"name\": \"README.md\", \"content\": \"…(3098B-elided)\\n\", \"encoding\": \"base64\"}"
    );
}

#[test]
fn a_mime_wrapped_data_uri_is_elided_from_its_first_line_on() {
    let payload = wrapped(2_000, 76, "\n  ");
    let text = format!(
        "<p>\n<img alt=\"chart\" src=\"data:image/png;base64,iVBORw0KGgo{payload}\">\n</p>\n"
    );
    let e = elide(&text).expect("elided");
    assert!(
        e.text.contains("src=\"data:image/png;base64,…("),
        "{}",
        e.text
    );
    assert!(e.text.ends_with("-elided)\">\n</p>\n"), "{}", e.text);
}

#[test]
fn a_word_ending_the_line_before_a_blob_and_prose_after_it_stay() {
    let text = format!(
        "The key follows verbatim\n{}\nThisIsALongIdentifierLikeWord42 and more text\n",
        wrapped(640, 64, "\n")
    );
    let e = elided(&text);
    assert!(e.starts_with("The key follows verbatim\n…("), "{e}");
    assert!(
        e.ends_with("-elided)\nThisIsALongIdentifierLikeWord42 and more text\n"),
        "{e}"
    );
}

#[test]
fn symbol_lines_after_a_wrapped_blob_are_the_source_lines() {
    let lang = code::language_for_path("icons.py").expect("python");
    let text = format!(
        "ICON = \"\"\"\n{}\n\"\"\"\n\n\ndef draw(canvas):\n    \"\"\"Draws the icon.\"\"\"\n    canvas.blit(ICON)\n",
        wrapped(1_024, 76, "\n")
    );
    let out = chunk_checked("icons.py", &text, DocFormat::Code(lang));
    let draw = out
        .chunks
        .iter()
        .find_map(|c| c.symbol.as_ref().filter(|s| s.name == "draw"))
        .expect("draw");
    let line = 1 + text[..text.find("def draw").expect("def")]
        .matches('\n')
        .count();
    assert_eq!(draw.lines, Some([line, line + 2]));
}

#[test]
fn filled_blocks_agree_with_a_byte_by_byte_check_and_a_run_ending_the_text_is_found() {
    let text = format!("{} {}", "word ".repeat(13), blob(150)).into_bytes();
    let mut group = 0;
    while group < text.len() {
        let full = filled_blocks(&text[group..]);
        for k in 0..GROUP / BLOCK {
            let block = group + k * BLOCK;
            let expected = block + BLOCK <= text.len()
                && text[block..block + BLOCK].iter().all(|&b| is_base64(b));
            assert_eq!(full & (1 << k) != 0, expected, "block at {block}");
        }
        group += GROUP;
    }
    let tail = format!("key: {}", blob(300));
    assert_eq!(elided(&tail), "key: …(300B-elided)");
}
