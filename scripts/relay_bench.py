#!/usr/bin/env python3
"""Measure `ctx relay`: tokens reaching the client with and without the relay on large-output
scenarios, and the latency the proxy adds per small call, against the bare server in one run.

Usage: scripts/relay_bench.py [--ctx target/release/ctx] [--calls 200] [--json OUT]
Needs scripts/setup-test-tools.sh (real servers in .test-tools/). Stdlib only: a raw JSON-RPC
driver over the servers' stdio (legacy initialize handshake), no SDK in the timed path.

Tokens = response line bytes / 4, rounded up (ctx's estimator, src/tokens.rs), i.e. what a
client would put in the model's context if it passed the result through.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def paths():
    out = subprocess.run([os.path.join(ROOT, "scripts/setup-test-tools.sh")], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("setup-test-tools.sh failed:\n" + out.stderr)
    env = {}
    for line in open(os.path.join(ROOT, ".test-tools/paths.env")):
        k, _, v = line.strip().partition("=")
        env[k] = v
    return env


class Peer:
    """One stdio MCP connection, driven line by line."""

    def __init__(self, cmd, env=None):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env or os.environ.copy())
        self.next = 0
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.notify("notifications/initialized")
        self.request("tools/list", {})

    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}).encode() + b"\n")
        self.p.stdin.flush()

    def request(self, method, params):
        """Returns (response dict, raw line length)."""
        rid = self.next
        self.next += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("server closed the connection during %s" % method)
            msg = json.loads(line)
            if msg.get("id") == rid and "method" not in msg:
                return msg, len(line.rstrip(b"\n"))

    def call(self, tool, args):
        return self.request("tools/call", {"name": tool, "arguments": args})

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def tokens(n_bytes):
    return (n_bytes + 3) // 4


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@l", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@l")
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def fixtures(work):
    data = os.path.join(work, "data")
    os.makedirs(os.path.join(data, "tree"))
    with open(os.path.join(data, "big.txt"), "w") as f:
        i = 0
        while f.tell() < 2_000_000:
            f.write("%06d\tlog line — status ok, value %d, %s\n" % (i, i * 7, "abcdefgh" * (i % 6)))
            i += 1
    for d in range(40):
        sub = os.path.join(data, "tree", "dir%02d" % d)
        os.makedirs(sub)
        for n in range(50):
            open(os.path.join(sub, "file_with_a_long_name_%03d.txt" % n), "w").close()
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q")
    shutil.copy(os.path.join(data, "big.txt"), os.path.join(repo, "big.txt"))
    git(repo, "add", "big.txt")
    git(repo, "commit", "-q", "-m", "big file")
    for i in range(300):
        with open(os.path.join(repo, "small.txt"), "a") as f:
            f.write("change %d\n" % i)
        git(repo, "add", "small.txt")
        git(repo, "commit", "-q", "-m", "commit number %d: a fairly descriptive message about the change" % i)
    return data, repo


def scenarios(t, data, repo, work):
    memory = os.path.join(work, "memory.jsonl")
    entities = [{"name": "entity-%d" % i, "entityType": "thing",
                 "observations": ["observation %d about a fairly long subject %s" % (i, "z" * (i % 50))]}
                for i in range(1500)]
    fs = [t["CTX_TT_FS_SERVER"], data]
    mem = [t["CTX_TT_MEMORY_SERVER"]]
    gitsrv = [t["CTX_TT_GIT_SERVER"]]
    return [
        ("filesystem read_text_file 2 MB", fs, None, [], ("read_text_file", {"path": os.path.join(data, "big.txt")})),
        ("filesystem directory_tree 2,000 files", fs, None, [], ("directory_tree", {"path": os.path.join(data, "tree")})),
        ("memory create_entities 1,500 (echo)", mem, {"MEMORY_FILE_PATH": memory}, [],
         ("create_entities", {"entities": entities})),
        ("memory read_graph 1,500 entities", mem, {"MEMORY_FILE_PATH": memory + ".2"},
         [("create_entities", {"entities": entities})], ("read_graph", {})),
        ("git git_show HEAD (2 MB diff)", gitsrv, None, [],
         ("git_show", {"repo_path": repo, "revision": "HEAD~300"})),
        ("git git_log 300 commits", gitsrv, None, [], ("git_log", {"repo_path": repo, "max_count": 300})),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ctx", default=os.path.join(ROOT, "target/release/ctx"))
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--json")
    a = ap.parse_args()
    t = paths()
    work = tempfile.mkdtemp(prefix="relay-bench-")
    seg = os.path.join(work, "seg")
    os.makedirs(seg)
    data, repo = fixtures(work)
    relay = [a.ctx, "-s", seg, "relay", "--"]
    report = {"scenarios": [], "latency": {}}

    print("| scenario | tokens without relay | tokens with relay | fewer |")
    print("|---|---:|---:|---:|")
    for name, server, extra, setup, (tool, args) in scenarios(t, data, repo, work):
        row = {"scenario": name}
        for label, cmd in (("bare", server), ("relay", relay + server)):
            env = dict(os.environ, **(extra or {}))
            if extra and label == "relay":  # fresh memory file per connection
                env = dict(os.environ, **{k: v + ".r" for k, v in extra.items()})
            peer = Peer(cmd, env)
            for st, sa in setup:
                peer.call(st, sa)
            msg, n = peer.call(tool, args)
            peer.close()
            assert "result" in msg and not msg["result"].get("isError"), (name, label, str(msg)[:300])
            row[label + "_tokens"] = tokens(n)
        row["reduction"] = 1 - row["relay_tokens"] / row["bare_tokens"]
        report["scenarios"].append(row)
        print("| %s | %s | %s | %.1f %% |" % (name, format(row["bare_tokens"], ","), format(row["relay_tokens"], ","),
                                              100 * row["reduction"]))

    # Latency: sequential small calls, one connection each, interleaved runs so
    # machine noise hits both alike.
    ev = [t["CTX_TT_EVERYTHING_SERVER"]]
    peers = {"bare": Peer(ev), "relay": Peer(relay + ev)}
    times = {"bare": [], "relay": []}
    for label, peer in peers.items():
        for _ in range(20):  # warm-up (JIT, caches)
            peer.call("echo", {"message": "warm"})
    for i in range(a.calls):
        for label, peer in peers.items():
            start = time.perf_counter()
            msg, _ = peer.call("echo", {"message": "hello %d" % i})
            times[label].append(time.perf_counter() - start)
            assert msg["result"]["content"][0]["text"] == "Echo: hello %d" % i
    for p in peers.values():
        p.close()
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    p90 = {k: statistics.quantiles(v, n=10)[8] * 1000 for k, v in times.items()}
    report["latency"] = {"calls": a.calls, "median_ms": med, "p90_ms": p90, "added_median_ms": med["relay"] - med["bare"]}
    print()
    print("echo x %d (server-everything): median bare %.3f ms, via relay %.3f ms, added %.3f ms (p90 %.3f vs %.3f ms)"
          % (a.calls, med["bare"], med["relay"], med["relay"] - med["bare"], p90["bare"], p90["relay"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
