#!/usr/bin/env python3
"""How many of search's top-k slots hold a copy of a better-ranked hit, or its other
half (a `.d.ts` declaring what a `.js` defines), on the MCP TypeScript SDK as npm
ships it (the same code in dist/cjs and dist/esm, each with its `.d.ts`).

Usage: scripts/fold_report.py [--bin target/release/ctx] [-k 6]
Needs the SDK from scripts/setup-test-tools.sh (.test-tools/npm/node_modules).
A hit counts as a copy when an earlier hit has its file path (with dist/cjs and
dist/esm made one) and its symbol path: what `ctx search` folds.
"""
import argparse, atexit, json, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SDK = os.path.join(ROOT, ".test-tools/npm/node_modules/@modelcontextprotocol/sdk")
QUERIES = [
    "how does the client negotiate the protocol version during initialize",
    "how are progress notifications sent for long running requests",
    "where is the request timeout enforced",
    "how does the server validate tool input against its schema",
    "how is a session id generated for streamable http",
    "how are resources listed with pagination cursors",
    "how does the stdio transport frame messages",
    "where are elicitation requests validated",
    "how does the client reconnect an SSE stream after a disconnect",
    "how are completion requests for prompt arguments handled",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target/release/ctx"))
    ap.add_argument("-k", type=int, default=6)
    a = ap.parse_args()
    if not os.path.isdir(SDK):
        sys.exit(f"no SDK at {SDK}: run scripts/setup-test-tools.sh first")
    work = tempfile.mkdtemp(prefix="ctx-fold-")
    atexit.register(shutil.rmtree, work, True)
    seg = os.path.join(work, "sdk")
    shutil.copytree(SDK, seg)
    subprocess.run([a.bin, "-s", seg, "build", "-q"], check=True)
    slots = copies = halves = folded = folded_halves = 0
    for q in QUERIES:
        out = subprocess.run([a.bin, "-s", seg, "search", q, "-k", str(a.k), "--json", "--no-build"],
                             capture_output=True, text=True).stdout
        seen, seen_halves = set(), set()
        for h in json.loads(out)["hits"]:
            tp = h["title_path"]
            inner = tuple(tp[1:] if tp and tp[0] == h["doc"] else tp)
            doc = h["doc"].replace("dist/cjs/", "dist/").replace("dist/esm/", "dist/")
            key = (doc, inner)
            # The `.d.ts` declaring what a `.js` defines: the other half.
            half = (doc.replace(".d.ts", ".js"), inner)
            slots += 1
            copies += key in seen
            halves += key not in seen and half in seen_halves
            seen.add(key)
            seen_halves.add(half)
            folded += len(h.get("duplicates", []))
            folded_halves += len(h.get("declarations", [])) + len(h.get("definitions", []))
    print(f"{len(QUERIES)} queries, k={a.k}: {slots} slots, {copies} hold a copy of an earlier hit, "
          f"{halves} the declaration or definition of one; {folded} copies and "
          f"{folded_halves} declarations or definitions folded into hits")


if __name__ == "__main__":
    main()
