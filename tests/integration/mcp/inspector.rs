//! The Inspector CLI, v2 in both eras and v1 (legacy), against `ctx mcp`.

use std::process::Command;

use serde_json::{Value, json};

use super::harness::{ALL_TOOLS, Served, ids, text};
use crate::util::test_tools;

/// The Inspector CLI v2 (both eras) and v1 (legacy) list and call the tools and read resources.
#[test]
fn inspector_clients() {
    let s = Served::new();
    let tools = test_tools();
    let inspector2 = |era: &str, args: &[&str]| -> (i32, Value) {
        let out = Command::new(tools.get("INSPECTOR2"))
            .args(["--cli", "--format", "json", "-q", "--protocol-era", era])
            .args(args)
            .arg("--")
            .args(s.command())
            .output()
            .expect("run inspector v2");
        let value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "inspector v2 {args:?} printed no JSON ({e})\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code().unwrap_or(-1), value)
    };
    for era in ["legacy", "modern"] {
        let (code, listed) = inspector2(era, &["--method", "tools/list"]);
        assert_eq!(code, 0, "{era}");
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .map(|t| t["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names, ALL_TOOLS, "{era}");

        let args = json!({"query": "stale lock", "k": 2}).to_string();
        let (code, found) = inspector2(
            era,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "ctx_search",
                "--tool-args-json",
                &args,
            ],
        );
        assert_eq!(code, 0, "{era}: {found}");
        assert_eq!(
            ids(&found["result"]["structuredContent"]["hits"]),
            s.cli_search("stale lock", 2)
        );

        let args =
            json!({"opaque_reference": s.log_ref, "start_line": 5, "line_count": 1}).to_string();
        let (code, lines) = inspector2(
            era,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "internal_resource_read_lines",
                "--tool-args-json",
                &args,
            ],
        );
        assert_eq!(code, 0, "{era}");
        assert_eq!(text(&lines["result"], 1), "log line 5\n");

        // isError results exit 5, with the result still on stdout.
        let args = json!({"ids": ["operations:0000000000"]}).to_string();
        let (code, missing) = inspector2(
            era,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "ctx_get",
                "--tool-args-json",
                &args,
            ],
        );
        assert_eq!(code, 5, "{era}: {missing}");
        assert_eq!(missing["result"]["isError"], true);

        let (code, digest) = inspector2(
            era,
            &["--method", "resources/read", "--uri", "ctx://digest"],
        );
        assert_eq!(code, 0, "{era}");
        assert!(
            digest["result"]["contents"][0]["text"]
                .as_str()
                .expect("text")
                .contains("9 documents")
        );
    }

    // Inspector v1: `index.js <cmd> [--options] -- <args>`, run from its own build/ dir.
    let inspector1 = |args: &[&str]| -> Value {
        let command = s.command();
        let out = Command::new("node")
            .current_dir(tools.get("INSPECTOR1_CWD"))
            .arg(tools.get("INSPECTOR1"))
            .arg(&command[0])
            .args(args)
            .arg("--")
            .args(&command[1..])
            .output()
            .expect("run inspector v1");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "inspector v1 {args:?} printed no JSON ({e})\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    };
    let listed = inspector1(&["--method", "tools/list"]);
    assert_eq!(
        listed["tools"].as_array().expect("tools").len(),
        ALL_TOOLS.len()
    );
    let found = inspector1(&[
        "--method",
        "tools/call",
        "--tool-name",
        "ctx_search",
        "--tool-arg",
        "query=backups",
        "k=1",
    ]);
    assert_eq!(
        ids(&found["structuredContent"]["hits"]),
        s.cli_search("backups", 1)
    );
    let read = inspector1(&["--method", "resources/read", "--uri", &s.log_ref]);
    assert_eq!(read["contents"][0]["text"], s.log);
}
