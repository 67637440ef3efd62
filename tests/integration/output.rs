//! Human output of file text: line endings kept as line ends, control
//! characters that could drive a terminal replaced.

use super::util::Env;

fn stdout(env: &Env, args: &[&str]) -> String {
    let out = env.ctx(args).output().expect("ctx runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A file written with CRLF (Windows) or CR alone prints with plain line
/// ends, not a replacement character per line; an escape sequence in the
/// text still does not reach the terminal.
#[test]
fn carriage_returns_print_as_line_ends() {
    let env = Env::empty();
    env.write(
        "notes.md",
        "# Title\r\n\r\nbody line\r\n\x1b[31mred\x1b[0m\r\n",
    );
    env.write("old.md", "# Classic\r\rmac line\r");
    env.write(
        "src/lib.rs",
        "/// Adds.\r\nfn add_crlf(a: u32) -> u32 {\r\n    a + 1\r\n}\r\n",
    );
    env.ctx(&["build", "-q"]).assert().success();
    let got = stdout(&env, &["get", "notes.md"]);
    assert!(got.contains("# Title\n\nbody line\n"), "{got:?}");
    assert!(!got.contains('\r') && !got.contains('\u{1b}'), "{got:?}");
    assert!(got.contains("\u{fffd}[31mred"), "{got:?}");
    let got = stdout(&env, &["get", "old.md"]);
    assert!(got.contains("# Classic\n\nmac line"), "{got:?}");
    let got = stdout(&env, &["evidence", "body line title"]);
    assert!(
        got.contains("body line\n") && !got.contains('\r'),
        "{got:?}"
    );
    let got = stdout(&env, &["symbol", "add_crlf"]);
    assert!(
        got.contains("fn add_crlf(a: u32) -> u32 {\n    a + 1\n}"),
        "{got:?}"
    );
    assert!(!got.contains('\u{fffd}'), "{got:?}");
    // JSON keeps the text as it is in the file.
    let json = env.json(&["get", "notes.md"]);
    let text = json["chunks"][0]["text"].as_str().expect("text");
    assert!(text.contains("body line\r\n"), "{text:?}");
}
