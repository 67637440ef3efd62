#!/usr/bin/env python3
"""The baseline the issues measure ctx against: SQLite FTS5 with BM25.

Reads the chunks of a built pack (`_ctx/context_pack.json`), indexes them in
an in-memory FTS5 table (porter stemming; code identifiers also split into
words, `WalkBuilder` -> walk builder, `max_filesize` -> max filesize), runs an
eval query file as an OR of the query's words without English stopwords, and
scores the results with the relevance rule of `ctx eval`. Both see the same
chunks, so the comparison is of ranking alone.

    python3 scripts/fts5_baseline.py SEGMENT QUERIES.jsonl [--bin CTX] [-v]

With --bin it also runs `CTX -s SEGMENT search Q -k 10 --json --no-build` per
query and lists the queries where one finds the target in the top 5 and the
other does not. FTS5 never abstains; ctx's abstentions count as misses.
"""

import argparse
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

STOPWORDS = set(
    """a an the and or but if then else of to in on at by for with from into onto
    over under about as is are was were be been being do does did doing done
    have has had having i you he she it we they me my our your its their this
    that these those there here what which who whom whose when where why how
    can could should would will shall may might must not no nor so than too
    very just also any all each every some such only own same other more most
    get gets one""".split()
)

WORD = re.compile(r"[A-Za-z0-9_]+")


def split_identifier(word):
    """`WalkBuilder` -> [walk, builder]; `max_filesize` -> [max, filesize]."""
    parts = []
    for piece in word.split("_"):
        parts += re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", piece)
    return [p.lower() for p in parts if p]


def with_split_identifiers(text):
    words = WORD.findall(text)
    extra = []
    for w in words:
        parts = split_identifier(w)
        if len(parts) > 1:
            extra += parts
    return text + "\n" + " ".join(extra)


def query_words(query):
    out = []
    for w in WORD.findall(query):
        for p in [w.lower()] + split_identifier(w):
            if p not in STOPWORDS and p not in out:
                out.append(p)
    return out


def norm_one(heading):
    return " ".join(heading.replace("`", "").replace("*", "").split()).lower()


def relevant(hit, target):
    """The rule of `ctx eval` (src/surface/cli/eval.rs: `relevant`)."""
    doc = target.get("doc") or target.get("file")
    # A pack chunk holds its symbol as an object, a search hit as its name;
    # a hit stands for the copies folded into it too.
    sym = hit.get("symbol")
    sym = sym.get("qualified") if isinstance(sym, dict) else sym
    docs = [hit["doc"]] + [d["doc"] for d in hit.get("duplicates", [])]
    if doc not in docs:
        return False
    if "symbol" in target:
        return sym is not None and sym.replace("::", ".") == target["symbol"].replace("::", ".")
    want = [norm_one(h) for h in target["title_path"]]
    have = [norm_one(h) for h in hit["title_path"]]
    if hit["title_path"] and hit["title_path"][0] == hit["doc"]:
        have[0] = norm_one(doc)
    return have[: len(want)] == want


def first_relevant(hits, targets, within):
    for i, h in enumerate(hits[:within]):
        if any(relevant(h, t) for t in targets):
            return i + 1
    return None


def build(pack):
    db = sqlite3.connect(":memory:")
    db.execute("create virtual table c using fts5(title, body, tokenize='porter unicode61')")
    chunks = json.load(open(pack))["chunks"]
    for n, c in enumerate(chunks):
        sym = c.get("symbol")
        if sym:
            title = with_split_identifiers(sym["qualified"] + "\n" + sym.get("signature", ""))
            body = with_split_identifiers(c["text"])
        else:
            title = " ".join(c["title_path"])
            body = c["text"]
        db.execute("insert into c(rowid, title, body) values (?, ?, ?)", (n, title, body))
    return db, chunks


def fts_search(db, chunks, query, k=10):
    words = query_words(query)
    if not words:
        return []
    match = " OR ".join('"%s"' % w for w in words)
    rows = db.execute(
        "select rowid from c where c match ? order by bm25(c, 2.0, 1.0) limit ?", (match, k)
    ).fetchall()
    return [chunks[r[0]] for r in rows]


def ctx_search(bin, segment, query, depth=10, extra=()):
    """ctx's top `depth` hits for `query` (no build; `extra` flags added); [] when it abstains."""
    out = subprocess.run(
        [bin, "-s", str(segment), "search", query, "-k", str(depth), "--json", "--no-build", *extra],
        capture_output=True,
        text=True,
    ).stdout
    try:
        return json.loads(out)["hits"]
    except (ValueError, KeyError):
        return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("segment", type=Path)
    ap.add_argument("queries", type=Path)
    ap.add_argument("--bin", help="a ctx binary to compare with, query by query")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every query's rank")
    a = ap.parse_args()
    pack = a.segment / "_ctx" / "context_pack.json"
    if not pack.exists():
        sys.exit(f"{pack} not found: run `ctx -s {a.segment} build` first")
    db, chunks = build(pack)
    answerable, fts_hit, fts_rr, ctx_hit = 0, 0, 0.0, 0
    for line in open(a.queries):
        q = json.loads(line)
        if not q["targets"]:
            continue
        answerable += 1
        rank = first_relevant(fts_search(db, chunks, q["query"]), q["targets"], 10)
        fts_hit += rank is not None and rank <= 5
        fts_rr += 1 / rank if rank else 0
        mark = ""
        if a.bin:
            crank = first_relevant(ctx_search(a.bin, a.segment, q["query"]), q["targets"], 10)
            ctx_hit += crank is not None and crank <= 5
            f5, c5 = rank is not None and rank <= 5, crank is not None and crank <= 5
            mark = f" ctx {crank}" + ("  <- fts5 only" if f5 and not c5 else "  <- ctx only" if c5 and not f5 else "")
        if a.verbose or "only" in mark:
            print(f"{q['qid']}: fts5 {rank}{mark}  {q['query'][:70]}")
    print(f"answerable {answerable}: fts5 hit@5 {fts_hit / answerable:.3f} MRR@10 {fts_rr / answerable:.3f}", end="")
    print(f"; ctx hit@5 {ctx_hit / answerable:.3f}" if a.bin else "")


if __name__ == "__main__":
    main()
