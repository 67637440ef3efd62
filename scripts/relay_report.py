#!/usr/bin/env python3
"""Token savings of `ctx box` on real large outputs and of `ctx history compact` on
transcripts built from real tool outputs (issues: relay, history compaction).

Usage: scripts/relay_report.py [--bin target/release/ctx]
Tokens are ctx's own estimate (`ctx resolve length` / the compact report).
"""
import argparse, atexit, glob, json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sh(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, check=True, **kw).stdout.decode()


def tokens_of(ctx, seg, text):
    ref = sh([ctx, "-s", seg, "box", "--threshold-chars", "0", "--tool", "measure"], input=text.encode()).strip()
    return json.loads(sh([ctx, "-s", seg, "resolve", "length", ref, "--json"]))["tokens"]


def outputs():
    """Five real large outputs found on this machine or in the repo's neighbours."""
    reg = glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tantivy-0.27.0/src/indexer/index_writer.rs"))
    html = sorted(glob.glob("/usr/share/doc/**/*.html", recursive=True), key=os.path.getsize)[-1:]
    out = {}
    for log in ("/var/log/dpkg.log", "/var/log/apt/term.log"):
        if os.path.exists(log):
            out[f"log ({log})"] = open(log, errors="replace").read()
            break
    lock = os.path.join(ROOT, ".test-tools", "npm", "package-lock.json")
    if os.path.exists(lock):
        out["JSON dump (npm package-lock of the MCP test tools)"] = open(lock).read()
    out["git log -p of this repository"] = sh(["git", "-C", ROOT, "log", "-p", "-n", "12"])
    if html:
        out[f"HTML page ({os.path.basename(html[0])})"] = open(html[0], errors="replace").read()
    out["transcript-like Markdown (rust-book ch17, concatenated)"] = "".join(
        open(p).read() for p in sorted(glob.glob(os.path.join(ROOT, "..", "shared", "corpora", "rust-book", "src", "ch17-*.md"))))
    if reg:
        out["source file (tantivy index_writer.rs)"] = open(reg[0]).read()
    return out


def box_report(ctx):
    seg = tempfile.mkdtemp(prefix="ctx-relay-report-")
    atexit.register(shutil.rmtree, seg, True)
    print("| output | tokens | tokens after `ctx box --preview` | fewer |\n| --- | --- | --- | --- |")
    for name, value in outputs().items():
        before = tokens_of(ctx, seg, value)
        boxed = sh([ctx, "-s", seg, "box", "--preview", "--tool", "tool"], input=value.encode())
        after = tokens_of(ctx, seg, boxed) if boxed else 0
        print(f"| {name} | {before:,} | {after:,} | {100 * (1 - after / max(before, 1)):.1f} % |")


def transcripts():
    """Three long agent transcripts (chat, responses, anthropic) from real outputs."""
    book = sorted(glob.glob(os.path.join(ROOT, "..", "shared", "corpora", "rust-book", "src", "ch1*.md")))[:14]
    keps = sorted(glob.glob(os.path.join(ROOT, "..", "shared", "corpora", "k8s-enhancements", "keps", "sig-node", "*", "README.md")))[:14]
    srcs = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/ignore-0.4.34/src/*.rs")))
    chat = [{"role": "user", "content": "Summarize what the Rust book says about traits, lifetimes and closures."}]
    for i, p in enumerate(book):
        chat.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "type": "function", "function": {"name": "read_text_file", "arguments": json.dumps({"path": p})}}]})
        chat.append({"role": "tool", "tool_call_id": f"c{i}", "content": open(p).read()})
    resp = [{"role": "user", "content": "Which sig-node KEPs change pod lifecycle?"}]
    for i, p in enumerate(keps):
        resp.append({"type": "function_call", "call_id": f"k{i}", "name": "fetch_kep", "arguments": json.dumps({"path": p})})
        resp.append({"type": "function_call_output", "call_id": f"k{i}", "output": open(p).read()})
    anth = [{"role": "user", "content": "Review the ignore crate's walker for symlink handling."}]
    for i, p in enumerate(srcs):
        anth.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "read_file", "input": {"path": p}}]})
        anth.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": open(p).read()}]})
    return {"chat: 14 rust-book chapters read": chat, "responses: 14 sig-node KEPs fetched": resp, f"anthropic: {len(srcs)} ignore source files read": anth}


def history_report(ctx):
    seg = tempfile.mkdtemp(prefix="ctx-history-report-")
    atexit.register(shutil.rmtree, seg, True)
    print("\n| transcript | tokens before | after `history compact --keep 4` | fewer |\n| --- | --- | --- | --- |")
    for name, t in transcripts().items():
        p = subprocess.run([ctx, "-s", seg, "history", "compact", "--keep", "4", "--threshold", "2000"], input=json.dumps(t).encode(), capture_output=True, check=True)
        line = [l for l in p.stderr.decode().splitlines() if l.startswith("history:")][0]
        before, after = [int(x.replace("~", "").replace(",", "")) for x in line.split(";")[1].replace("tokens", "").split("→")]
        print(f"| {name} | {before:,} | {after:,} | {100 * (1 - after / before):.1f} % |")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ctx"))
    a = ap.parse_args()
    box_report(a.bin)
    history_report(a.bin)
