#!/usr/bin/env python3
"""Compare what `ctx symbol` lists under a type (its `attached` entries)
between two ctx binaries, over names a pack defines in several files.

For each drawn name and each file defining it, runs
`BIN --json symbol NAME --file DOC --budget 100000 --no-build` with both
binaries and counts the windows whose lists differ and the entries gained
or lost. Both binaries read the same pack, so build it with the one whose
chunker version it needs (or keep a copy per binary and pass --pack-b).

    python3 scripts/attached_diff.py PACK LANGS N OLD NEW [--names A,B] [--show K] [--pack-b DIR]

LANGS is a comma list of chunk languages (`rust`, `python`, `typescript`…).
Names are drawn with a fixed seed, so runs are repeatable.
"""

import argparse
import collections
import json
import random
import sqlite3
import subprocess

KINDS = ("class", "interface", "struct", "enum", "trait")


def definitions(pack, langs):
    """Type names defined at top level, with the files defining each."""
    db = sqlite3.connect(f"{pack}/_ctx/context.db")
    defs = collections.defaultdict(set)
    for doc, extra in db.execute("SELECT doc, extra FROM chunks WHERE extra IS NOT NULL"):
        e = json.loads(extra)
        s = e.get("symbol") or {}
        q = s.get("qualified", "")
        if e.get("lang") in langs and s.get("kind") in KINDS and "." not in q and "::" not in q:
            defs[s["name"]].add(doc)
    return defs


def attached(binary, pack, name, doc):
    out = subprocess.run(
        [binary, "-s", pack, "--json", "symbol", name, "--file", doc, "--no-build", "--budget", "100000"],
        capture_output=True,
        text=True,
    ).stdout
    try:
        return [(a["doc"], a["symbol"]) for a in json.loads(out).get("attached", [])]
    except (json.JSONDecodeError, AttributeError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pack")
    ap.add_argument("langs")
    ap.add_argument("n", type=int)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--names", help="comma-separated names instead of a random draw")
    ap.add_argument("--show", type=int, default=8, help="differences to print")
    ap.add_argument("--pack-b", help="the pack the new binary reads (default: the same)")
    args = ap.parse_args()
    defs = definitions(args.pack, args.langs.split(","))
    names = sorted(n for n, docs in defs.items() if len(docs) >= 2)
    if args.names:
        names = [n for n in args.names.split(",") if n in defs]
    else:
        random.seed(1)
        random.shuffle(names)
        names = names[: args.n]
    same = changed = gained = lost = 0
    for name in names:
        for doc in sorted(defs[name]):
            old = attached(args.old, args.pack, name, doc)
            new = attached(args.new, args.pack_b or args.pack, name, doc)
            if old == new:
                same += 1
                continue
            changed += 1
            o, w = set(old or []), set(new or [])
            gained += len(w - o)
            lost += len(o - w)
            if changed <= args.show:
                print("DIFF", name, doc, "+", sorted(w - o)[:4], "-", sorted(o - w)[:4])
    print(f"names {len(names)} windows same {same} changed {changed}; entries gained {gained} lost {lost}")


if __name__ == "__main__":
    main()
