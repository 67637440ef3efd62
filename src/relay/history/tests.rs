//! Compaction: keep, threshold, summaries, images, and the shape of each output format.

use super::*;

fn chat(n: usize, big: usize) -> Value {
    let mut v = vec![json!({"role": "user", "content": "do things"})];
    for i in 0..n {
        v.push(json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": format!("c{i}"), "type": "function", "function": {"name": "read", "arguments": format!("{{\"path\":\"f{i}\"}}")}}]}));
        v.push(
            json!({"role": "tool", "tool_call_id": format!("c{i}"), "content": "x ".repeat(big)}),
        );
    }
    Value::Array(v)
}

fn opts(keep: usize, threshold: usize, strategy: Strategy) -> CompactOptions {
    CompactOptions {
        keep,
        threshold,
        strategy,
        output: None,
    }
}

/// `opts(5, 1000, Native)` written as `format`.
fn to(format: Format) -> CompactOptions {
    written_as(format, opts(5, 1000, Strategy::Native))
}

/// `o` with its output written as `format`.
fn written_as(format: Format, o: CompactOptions) -> CompactOptions {
    CompactOptions {
        output: Some(format),
        ..o
    }
}

#[test]
fn keep_and_threshold_take_effect_exactly() {
    let mut stored = Vec::new();
    let mut store = |name: &str, v: &str| {
        stored.push((name.to_string(), v.len()));
        Ok(format!("internal://{:016}", stored.len()))
    };
    let (out, r) = compact(
        &chat(10, 300),
        &opts(3, 100_000, Strategy::Native),
        &mut store,
    )
    .unwrap();
    assert_eq!((r.pairs, r.kept, r.summarized, r.boxed), (10, 3, 7, 7));
    let arr = out.as_array().unwrap();
    assert_eq!(arr.iter().filter(|m| m["role"] == "tool").count(), 3);
    assert!(
        arr[1]["content"]
            .as_str()
            .unwrap()
            .contains("read(path=\"f0\") → internal://")
    );
    let mut store2 = |_: &str, _: &str| Ok("internal://aaaaaaaaaaaaaaaa".to_string());
    let (_, r) = compact(
        &chat(10, 300),
        &opts(10, 100, Strategy::Native),
        &mut store2,
    )
    .unwrap();
    assert_eq!((r.kept, r.boxed), (10, 10));
    let (_, r) = compact(
        &chat(10, 300),
        &opts(10, 1000, Strategy::Native),
        &mut store2,
    )
    .unwrap();
    assert_eq!((r.kept, r.boxed), (10, 0));
    assert!(r.tokens_after <= r.tokens_before + 10);
}

#[test]
fn orphans_are_kept_and_reported() {
    let v = json!([
        {"type": "function_call", "call_id": "a", "name": "lost", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "zzz", "output": "stray"}
    ]);
    let mut store = |_: &str, _: &str| Ok(String::new());
    let (out, r) = compact(&v, &opts(5, 1000, Strategy::TextEmbed), &mut store).unwrap();
    assert_eq!(r.orphan_calls, vec!["lost (a)"]);
    assert_eq!(r.orphan_results, vec!["zzz"]);
    assert_eq!(out.as_array().unwrap().len(), 2);
}

#[test]
fn anthropic_round_trip_native() {
    let v = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "calling"}, {"type": "tool_use", "id": "t1", "name": "get", "input": {"q": 1}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "result"}]}]}
    ]);
    assert_eq!(detect(v.as_array().unwrap()), Format::Anthropic);
    let mut store = |_: &str, _: &str| Ok(String::new());
    let (out, r) = compact(&v, &opts(5, 1000, Strategy::Native), &mut store).unwrap();
    assert_eq!(r.kept, 1);
    let a = out.as_array().unwrap();
    assert_eq!(a.last().unwrap()["content"][0]["type"], "tool_result");
    // Same format in and out: the result's content is written as it came.
    assert_eq!(
        a.last().unwrap()["content"][0]["content"],
        json!([{"type": "text", "text": "result"}])
    );
}

/// A base64 PNG of `w × h` whose payload is about `kb` KB of base64.
fn screenshot_data(w: u32, h: u32, kb: usize) -> String {
    let mut bytes = super::image::png(w, h);
    bytes.extend((0..kb * 750).map(|i| (i * 31 % 251) as u8));
    super::image::encode(&bytes)
}

/// An Anthropic transcript of `n` screenshot pairs, each result a text part
/// and an image.
fn anthropic_screenshots(n: usize, data: &str) -> Value {
    let mut v = vec![json!({"role": "user", "content": "look at the page"})];
    for i in 0..n {
        v.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": format!("s{i}"), "name": "screenshot", "input": {}}]}));
        v.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": format!("s{i}"), "content": [
            {"type": "text", "text": "shot"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        ]}]}));
    }
    Value::Array(v)
}

/// A store that records what it was given and numbers its references.
fn recording(stored: &mut Vec<(String, String)>) -> impl FnMut(&str, &str) -> Result<String> + '_ {
    |name: &str, value: &str| {
        stored.push((name.to_string(), value.to_string()));
        Ok(format!("internal://{:016}", stored.len()))
    }
}

#[test]
fn a_kept_image_result_is_written_as_it_came() {
    let data = screenshot_data(1280, 800, 260);
    let input = anthropic_screenshots(3, &data);
    let mut stored = Vec::new();
    let (out, r) = compact(
        &input,
        &opts(1, 1000, Strategy::Native),
        &mut recording(&mut stored),
    )
    .unwrap();
    assert_eq!((r.pairs, r.kept, r.summarized), (3, 1, 2));
    let last = out.as_array().unwrap().last().unwrap();
    assert_eq!(
        last["content"][0]["content"],
        input[6]["content"][0]["content"]
    );
    // Only the two summarized images were stored, as data URIs; "shot" is short.
    assert_eq!(r.boxed, 2);
    assert_eq!(stored.len(), 2);
    assert_eq!(stored[0].1, format!("data:image/png;base64,{data}"));
    let summary = out
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .find_map(|b| b["text"].as_str().filter(|t| t.starts_with("Earlier")))
        .unwrap();
    assert!(
        summary.contains(
            "screenshot() → \"shot\", 1 tokens; image (image/png, 1280×800, 195 KB) → internal://0000000000000001\n"
        ),
        "{summary}"
    );
    // Images count as images: three ~1,366-token screenshots, not ~190k each.
    assert!(r.tokens_before < 5_000, "{}", r.tokens_before);
}

#[test]
fn only_text_parts_over_the_threshold_are_boxed_in_a_kept_result() {
    let data = screenshot_data(200, 100, 1);
    let big = "row of log text ".repeat(500);
    let input = json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "page", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": [
            {"type": "text", "text": "title"},
            {"type": "text", "text": big},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        ]}]}
    ]);
    let mut stored = Vec::new();
    let (out, r) = compact(
        &input,
        &opts(1, 1000, Strategy::Native),
        &mut recording(&mut stored),
    )
    .unwrap();
    assert_eq!(r.boxed, 1);
    assert_eq!(stored, vec![("page".to_string(), big)]);
    let content = &out[1]["content"][0]["content"];
    assert_eq!(content.as_array().map(Vec::len), Some(3));
    assert_eq!(content[0], input[1]["content"][0]["content"][0]);
    let reference = format!(
        "[page returned {} tokens; stored as internal://0000000000000001.",
        group_thousands(tokens::estimate(&stored[0].1))
    );
    assert!(
        content[1]["text"].as_str().unwrap().starts_with(&reference),
        "{content}"
    );
    assert_eq!(content[2], input[1]["content"][0]["content"][2]);
}

#[test]
fn images_in_tool_results_cross_formats_as_images() {
    let data = screenshot_data(64, 64, 1);
    let uri = format!("data:image/png;base64,{data}");
    let anthropic = json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "shot", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "content": [
            {"type": "text", "text": "here"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
        ]}]}
    ]);
    let mut store = |_: &str, _: &str| Ok(String::new());
    let (chat, _) = compact(&anthropic, &to(Format::Chat), &mut store).unwrap();
    assert_eq!(chat[1]["role"], "tool");
    assert_eq!(
        chat[1]["content"],
        json!([
            {"type": "text", "text": "here"},
            {"type": "image_url", "image_url": {"url": uri}}
        ])
    );
    let (responses, _) = compact(&chat, &to(Format::Responses), &mut store).unwrap();
    assert_eq!(
        responses[1]["output"],
        json!([
            {"type": "input_text", "text": "here"},
            {"type": "input_image", "image_url": uri, "detail": "auto"}
        ])
    );
    // And back: Responses' `input_image` is Chat's `image_url`.
    let (back, _) = compact(&responses, &to(Format::Chat), &mut store).unwrap();
    assert_eq!(back[1]["content"], chat[1]["content"]);
    // Text-embed carries the image in the user message.
    let (embedded, _) = compact(
        &anthropic,
        &CompactOptions {
            strategy: Strategy::TextEmbed,
            ..to(Format::Chat)
        },
        &mut store,
    )
    .unwrap();
    assert_eq!(
        embedded[0]["content"],
        json!([
            {"type": "text", "text": "Context (tool result):\nhere"},
            {"type": "image_url", "image_url": {"url": uri}}
        ])
    );
}

#[test]
fn a_summarized_image_url_is_named_not_stored() {
    let v = json!([
        {"type": "function_call", "call_id": "a", "name": "fetch", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": [
            {"type": "input_image", "image_url": "https://example.com/chart.png"}
        ]}
    ]);
    let mut stored = Vec::new();
    let (out, r) = compact(
        &v,
        &opts(0, 1000, Strategy::Native),
        &mut recording(&mut stored),
    )
    .unwrap();
    assert!(stored.is_empty());
    assert_eq!(r.boxed, 0);
    assert_eq!(
        out[0]["content"],
        "Earlier tool calls (compacted; results can be resolved by reference):\nfetch() → image at https://example.com/chart.png"
    );
}

/// Panics unless `messages` is what the Anthropic Messages API accepts: only
/// user and assistant turns, alternating from a user turn, none empty (text,
/// or a list of blocks), and
/// each turn's `tool_use` answered by `tool_result`s that open the next turn.
fn assert_valid_anthropic(messages: &Value) {
    let messages = messages.as_array().expect("messages is a list");
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        let expected = if i % 2 == 0 { "user" } else { "assistant" };
        assert_eq!(role, expected, "message {i}: {m}");
        if let Some(text) = m["content"].as_str() {
            assert!(!text.is_empty(), "message {i} is empty");
            continue;
        }
        let blocks = m["content"]
            .as_array()
            .expect("content is a string or a list");
        assert!(!blocks.is_empty(), "message {i} is empty");
        let uses: Vec<&Value> = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| &b["id"])
            .collect();
        if uses.is_empty() {
            continue;
        }
        let next = messages[i + 1]["content"]
            .as_array()
            .expect("a turn follows a tool_use");
        let answered: Vec<&Value> = next
            .iter()
            .take_while(|b| b["type"] == "tool_result")
            .map(|b| &b["tool_use_id"])
            .collect();
        assert_eq!(answered, uses, "message {}: {}", i + 1, messages[i + 1]);
    }
}

fn chat_with_system() -> Value {
    json!([
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "read both files"},
        {"role": "assistant", "content": "Reading.", "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}},
            {"id": "b", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"b\"}"}}
        ]},
        {"role": "tool", "tool_call_id": "a", "content": "alpha"},
        {"role": "tool", "tool_call_id": "b", "content": "beta"},
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "thanks"}
    ])
}

#[test]
fn chat_converted_to_anthropic_is_a_valid_request() {
    let mut store = |_: &str, _: &str| Ok(String::new());
    for (keep, strategy) in [
        (5, Strategy::Native),
        (1, Strategy::Native),
        (0, Strategy::Native),
        (5, Strategy::TextEmbed),
    ] {
        let (out, _) = compact(
            &chat_with_system(),
            &written_as(Format::Anthropic, opts(keep, 1000, strategy)),
            &mut store,
        )
        .unwrap();
        assert_eq!(out["system"], "You are terse.");
        assert_valid_anthropic(&out["messages"]);
    }
    // Without a system prompt it is still the request's shape.
    let v = Value::Array(chat_with_system().as_array().unwrap()[1..].to_vec());
    let (out, _) = compact(&v, &to(Format::Anthropic), &mut store).unwrap();
    assert_eq!(out.get("system"), None);
    assert_valid_anthropic(&out["messages"]);
}

#[test]
fn anthropic_text_and_tool_use_stay_one_turn() {
    let v = json!([
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "calling"}, {"type": "tool_use", "id": "t1", "name": "get", "input": {}}, {"type": "tool_use", "id": "t2", "name": "get", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "one"},
            {"type": "tool_result", "tool_use_id": "t2", "content": "two"},
            {"type": "text", "text": "go on"}
        ]}
    ]);
    let mut store = |_: &str, _: &str| Ok(String::new());
    let (out, _) = compact(&v, &opts(5, 1000, Strategy::Native), &mut store).unwrap();
    // The input was a bare Anthropic list with no system prompt: it stays one.
    assert!(out.is_array());
    assert_valid_anthropic(&out);
    assert_eq!(out[1]["content"][0]["text"], "calling");
}

#[test]
fn a_system_prompt_moves_to_where_the_output_format_takes_it() {
    let anthropic = json!({"model": "m", "system": [{"type": "text", "text": "Be brief."}], "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "get", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]}
    ]});
    let mut store = |_: &str, _: &str| Ok(String::new());
    let (chat, _) = compact(&anthropic, &to(Format::Chat), &mut store).unwrap();
    assert_eq!(chat.get("system"), None);
    assert_eq!(chat["model"], "m");
    assert_eq!(
        chat["messages"][0],
        json!({"role": "system", "content": "Be brief."})
    );
    let (responses, _) = compact(&anthropic, &to(Format::Responses), &mut store).unwrap();
    assert_eq!(responses.get("messages"), None);
    assert_eq!(
        responses["input"][0],
        json!({"role": "system", "content": "Be brief."})
    );
    assert_eq!(responses["input"][3]["type"], "function_call_output");
    // And back to Anthropic: the system message is top-level again.
    let (again, _) = compact(&responses, &to(Format::Anthropic), &mut store).unwrap();
    assert_eq!(again["system"], "Be brief.");
    assert_eq!(again.get("input"), None);
    assert_valid_anthropic(&again["messages"]);
}

#[test]
fn items_another_format_cannot_carry_are_dropped_and_reported() {
    let v = json!([
        {"role": "user", "content": "go"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "a", "name": "get", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "ok"}
    ]);
    let mut store = |_: &str, _: &str| Ok(String::new());
    let (out, r) = compact(&v, &to(Format::Anthropic), &mut store).unwrap();
    assert_eq!(r.dropped, vec!["item of type `reasoning`"]);
    assert_valid_anthropic(&out["messages"]);
    // The same format carries it as it came.
    let (out, r) = compact(&v, &opts(5, 1000, Strategy::Native), &mut store).unwrap();
    assert!(r.dropped.is_empty());
    assert_eq!(out[1], v[1]);
}
