#!/usr/bin/env python3
"""What term proximity would add to ctx's ranking: a measurement, not a feature.

Re-ranks ctx's top 30 hits of every answerable query by how close the query's
words stand in each chunk, and prints hit@5 / MRR@10 for
score = ctx_score / best_ctx_score + LAMBDA * proximity, for several LAMBDA
(0 is ctx as it is), with two proximity measures:

- pairs: IDF-weighted sum over pairs of query words of 1 / d^2 (d: their
  closest distance in words), over the query's IDF sum;
- mindist: Tao and Zhai's log(alpha + exp(-d)) over the closest pair.

Words are split and stemmed with Snowball English (ctx's stemmer), question
and stop words dropped; IDF comes from the pack's chunks.

    pip install snowballstemmer
    python3 scripts/proximity_rerank.py SEGMENT QUERIES.jsonl CTX_BINARY

The segment must be built (`ctx -s SEGMENT build`); the relevance rule is
`ctx eval`'s (shared with scripts/fts5_baseline.py).
"""
import json
import math
import re
import sys
from pathlib import Path

import snowballstemmer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fts5_baseline import ctx_search, first_relevant

ST = snowballstemmer.stemmer('english')
STOP = set("""a an the and or of to in on for with by from at as is are was were be been being it its this that these those
what which who whom whose when where why how do does did can could should would will shall may might must i you we they he she
my your our their if then than so not no yes there here about into over under between after before again also just only very
any all some each both more most other such own same too s t don doesn isn aren wasn weren won wouldn shouldn couldn get got""".split())
WORD = re.compile(r"[A-Za-z0-9]+")

def toks(text):
    out = []
    for m in WORD.finditer(text):
        w = m.group(0)
        # split camelCase / snake handled by regex (underscores split already)
        parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", w) or [w]
        for p in parts:
            out.append(ST.stemWord(p.lower()))
    return out

def qterms(q):
    seen = []
    for m in WORD.finditer(q):
        w = m.group(0).lower()
        if w in STOP: continue
        for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", m.group(0)) or [w]:
            s = ST.stemWord(p.lower())
            if s not in seen and p.lower() not in STOP: seen.append(s)
    return seen

def features(qt, text, idf):
    pos = {}
    for i, t in enumerate(toks(text)):
        if t in qt: pos.setdefault(t, []).append(i)
    present = [t for t in qt if t in pos]
    pairs = 0.0; mind = None
    for i in range(len(present)):
        for j in range(i + 1, len(present)):
            a, b = present[i], present[j]
            pa, pb = pos[a], pos[b]
            # min distance by merge
            x = y = 0; d = 10**9
            while x < len(pa) and y < len(pb):
                d = min(d, abs(pa[x] - pb[y]))
                if pa[x] < pb[y]: x += 1
                else: y += 1
            w = min(idf.get(a, 0), idf.get(b, 0))
            pairs += w / (d * d) if d > 0 else 0
            mind = d if mind is None else min(mind, d)
    return pairs, mind

def main():
    seg = Path(sys.argv[1]); qfile = sys.argv[2]; binp = sys.argv[3] if len(sys.argv) > 3 else 'ctx'
    depth = 30
    chunks = json.load(open(seg / '_ctx' / 'context_pack.json'))['chunks']
    text = {c['id']: c['text'] for c in chunks}
    df = {}
    for c in chunks:
        for t in set(toks(c['text'])):
            df[t] = df.get(t, 0) + 1
    N = len(chunks)
    idf = lambda t: math.log(1 + (N - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))
    qs = [json.loads(l) for l in open(qfile) if l.strip()]
    qs = [q for q in qs if q['targets']]
    runs = []
    for q in qs:
        hits = ctx_search(binp, seg, q['query'], depth, ('--no-rerank',))
        qt = qterms(q['query'])
        idfs = {t: idf(t) for t in qt}
        feats = [features(qt, text.get(h['id'], ''), idfs) for h in hits]
        runs.append((q, hits, feats, sum(idfs.values()) or 1))
    res = {}
    for kind in ('pairs', 'mindist'):
        for lam in (0, 0.05, 0.1, 0.2, 0.4, 0.8):
            for alpha in ((0.3,) if kind == 'mindist' else (None,)):
                hit = mrr = 0
                for q, hits, feats, isum in runs:
                    if not hits: continue
                    best = hits[0]['score'] or 1
                    def s(i):
                        p, md = feats[i]
                        if kind == 'pairs': f = p / isum
                        else: f = math.log(alpha + math.exp(-md)) - math.log(alpha) if md is not None else 0
                        return hits[i]['score'] / best + lam * f
                    order = sorted(range(len(hits)), key=lambda i: -s(i))
                    r = first_relevant([hits[i] for i in order], q['targets'], 10)
                    hit += r is not None and r <= 5; mrr += 1 / r if r else 0
                print(f"{Path(qfile).stem:20} {kind:8} lam {lam:<5} hit@5 {hit/len(runs):.3f} MRR {mrr/len(runs):.3f}")

if __name__ == '__main__':
    main()
