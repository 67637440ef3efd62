#!/usr/bin/env python3
"""Would dense first-stage retrieval add anything to ctx? A measurement, not a feature.

Encodes every chunk of a built pack with all-MiniLM-L6-v2 (scripts/dense_rerank.py's
NumPy encoder; vectors kept in SEGMENT/_ctx/dense.npy for the next run) and, for
each answerable query, compares hit@5 / MRR@10 of:
  lex        ctx's lexical ranking (`ctx search -k 30 --no-rerank`)
  dense      the 30 chunks nearest the query by cosine alone
  rrD_W      ctx's top D re-ordered by score / best + W * cosine (what --rerank-model does)
  uD+E_W     the same over ctx's top D plus the E nearest chunks by cosine

    python3 scripts/dense_union.py MODEL_DIR SEGMENT QUERIES.jsonl --bin CTX

Encoding is slow in NumPy (0.5 s per chunk on 2 cores); the pack should be small.
"""

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dense_rerank import Encoder, lexical_hits  # noqa: E402
from fts5_baseline import first_relevant  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path)
    ap.add_argument("segment", type=Path)
    ap.add_argument("queries", type=Path)
    ap.add_argument("--bin", default="ctx")
    a = ap.parse_args()
    chunks = json.load(open(a.segment / "_ctx" / "context_pack.json"))["chunks"]
    index = {c["id"]: i for i, c in enumerate(chunks)}
    enc = Encoder(a.model, 256)
    cache = a.segment / "_ctx" / "dense.npy"
    if cache.exists():
        vectors = np.load(cache)
    else:
        vectors = enc.encode([" > ".join(c["title_path"]) + "\n" + c["text"] for c in chunks])
        np.save(cache, vectors)
    queries = [json.loads(line) for line in open(a.queries) if line.strip()]
    queries = [q for q in queries if q["targets"]]
    scores = {}

    def record(name, ranked, q):
        r = first_relevant(ranked, q["targets"], 10)
        s = scores.setdefault(name, [0, 0.0])
        s[0] += r is not None and r <= 5
        s[1] += 1 / r if r else 0

    for q, v in zip(queries, enc.encode([q["query"] for q in queries])):
        hits = lexical_hits(a.bin, a.segment, q["query"], 30)
        record("lex", hits, q)
        sims = vectors @ v
        nearest = [chunks[i] for i in np.argsort(-sims)[:30]]
        record("dense", nearest, q)
        best = hits[0]["score"] if hits else 1.0
        for depth in (10, 30):
            for w in (0.5, 1):
                ranked = sorted(hits[:depth], key=lambda h: -(h["score"] / best + w * sims[index[h["id"]]]))
                record(f"rr{depth}_{w}", ranked, q)
        for depth, extra in ((10, 10), (10, 20), (20, 10)):
            for w in (0.5, 1):
                pool = {h["id"]: (h["score"] / best, h) for h in hits[:depth]}
                for c in nearest[:extra]:
                    pool.setdefault(c["id"], (0.0, c))
                ranked = sorted(pool.values(), key=lambda p: -(p[0] + w * sims[index[p[1]["id"]]]))
                record(f"u{depth}+{extra}_{w}", [p[1] for p in ranked], q)

    print(f"{a.queries.name}: {len(queries)} answerable queries, {len(chunks)} chunks")
    for name, (hit, mrr) in scores.items():
        print(f"  {name:<12} hit@5 {hit / len(queries):.3f}  MRR@10 {mrr / len(queries):.3f}")


if __name__ == "__main__":
    main()
