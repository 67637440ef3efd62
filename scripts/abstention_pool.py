#!/usr/bin/env python3
"""Abstention pooled over query sets: for each coverage threshold, how many
unanswerable queries are abstained on and how many answerable ones are lost,
summed over the dev sets and over the blind sets (`ctx eval --sweep` per set).

usage: abstention_pool.py RUST_BOOK_COPY K8S_COPY [--bin ctx] [--blind 1,2,3]
       [--from 0.25 --to 0.45]

The copies are built packs of ../shared/corpora/rust-book and
k8s-enhancements (`ctx -s COPY build`); `--blind` picks the blind
generations (1 is the first, `-blind.jsonl`).
"""

import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROW = re.compile(r"^\s*(0\.\d+)\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s*$")
COUNTS = re.compile(r"queries \d+ \((\d+) answerable, (\d+) unanswerable\)")


def sweep(binary, copy, name):
    path = os.path.join(ROOT, "fixtures", "eval", f"{name}.jsonl")
    out = subprocess.run(
        [binary, "-s", copy, "eval", path, "--no-rerank", "--no-build", "--sweep"],
        capture_output=True, text=True,
    )
    if out.returncode != 0:
        sys.exit(f"ctx eval failed on {name}: {out.stderr.strip()}")
    m = COUNTS.search(out.stdout)
    if not m:
        sys.exit(f"no query counts in the output for {name}")
    answerable, unanswerable = int(m.group(1)), int(m.group(2))
    for line in out.stdout.splitlines():
        r = ROW.match(line)
        if r:
            t, un, an = r.group(1), float(r.group(2)), float(r.group(3))
            yield t, round(un * unanswerable), unanswerable, round(an * answerable), answerable


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("rust_book")
    p.add_argument("k8s")
    p.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ctx"))
    p.add_argument("--blind", default="1,2,3,4,5,6,7,8,9,10,11,12,13,14")
    p.add_argument("--from", dest="lo", type=float, default=0.25)
    p.add_argument("--to", dest="hi", type=float, default=0.45)
    a = p.parse_args()
    suffix = lambda n: "" if n == "1" else n
    groups = {
        "dev": [(a.rust_book, "rust-book"), (a.k8s, "k8s")],
        "blind": [
            (copy, f"{corpus}-blind{suffix(n)}")
            for n in a.blind.split(",")
            for copy, corpus in ((a.rust_book, "rust-book"), (a.k8s, "k8s"))
        ],
    }
    for group, sets in groups.items():
        pooled = collections.defaultdict(lambda: [0, 0, 0, 0])
        for copy, name in sets:
            for t, un, un_n, an, an_n in sweep(a.bin, copy, name):
                s = pooled[t]
                s[0] += un
                s[1] += un_n
                s[2] += an
                s[3] += an_n
        print(f"{group} ({len(sets)} sets)")
        for t, (un, un_n, an, an_n) in sorted(pooled.items()):
            if a.lo <= float(t) <= a.hi:
                print(
                    f"  {t}  unanswerable abstained {un}/{un_n} ({un / un_n:.2f})"
                    f"  answerable lost {an}/{an_n} ({100 * an / an_n:.1f} %)"
                )


if __name__ == "__main__":
    main()
