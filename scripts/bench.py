#!/usr/bin/env python3
"""Whole-process benchmarks of ctx over ../shared/corpora (the `ctx bench` harness).

Usage: scripts/bench.py [--bin target/release/ctx] [--only build,search,relay,eval] [--keep]

Copies each corpus to a temp dir (the corpora are read-only), then measures:
cold build (wall, MB/s, peak RSS, pack and index+catalog size), no-op rebuild,
rebuild after one file changes, search wall time including process start versus
`rg -i -c` over the same files, relay box/resolve latency for 1 MB and 100 MB
values, and the eval metrics of fixtures/eval. Prints medians of repeated runs.
"""
import argparse, atexit, glob, json, os, random, resource, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPORA = os.path.join(ROOT, "..", "shared", "corpora")
SCRATCH = []


def scratch(prefix):
    """A temp dir removed when the script exits (copies of k8s take ~100 MB each)."""
    d = tempfile.mkdtemp(prefix=prefix)
    SCRATCH.append(d)
    return d


def remove_scratch():
    for d in SCRATCH:
        shutil.rmtree(d, ignore_errors=True)


def run(cmd, **kw):
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, **kw)
    return time.perf_counter() - t, p


def peak_rss_kb(cmd):
    """Runs cmd in a child and returns (seconds, peak RSS of that child in KB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t, p = run(cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()}")
    return t, max(after, before), p


def median_ms(cmd, n=15, **kw):
    times = []
    for _ in range(n):
        t, p = run(cmd, **kw)
        times.append(t * 1000)
    return statistics.median(times)


def copy_corpus(name):
    dst = scratch(f"ctx-bench-{name}-")
    shutil.copytree(os.path.join(CORPORA, name), dst, dirs_exist_ok=True, symlinks=True)
    for d, _, files in os.walk(dst):
        os.chmod(d, 0o755)
        for f in files:
            p = os.path.join(d, f)
            if not os.path.islink(p):
                os.chmod(p, 0o644)
    return dst


def corpus_bytes(d):
    total = 0
    for base, dirs, files in os.walk(d):
        dirs[:] = [x for x in dirs if x != "_ctx"]
        total += sum(os.path.getsize(os.path.join(base, f)) for f in files if f.endswith(".md") and not os.path.islink(os.path.join(base, f)))
    return total


def bench_build(ctx, name):
    seg = copy_corpus(name)
    size = corpus_bytes(seg)
    secs, rss, _ = peak_rss_kb([ctx, "-s", seg, "build", "-q"])
    stats = json.loads(run([ctx, "-s", seg, "stats", "--json"])[1].stdout)
    noop = median_ms([ctx, "-s", seg, "build", "-q"], n=10)
    files = sorted(os.path.join(b, f) for b, _, fs in os.walk(seg) for f in fs if f.endswith(".md") and "_ctx" not in b)
    one = []
    for i in range(5):
        path = random.Random(i).choice(files)
        with open(path, "a") as fh:
            fh.write(f"\n\nappended paragraph {i} for the rebuild benchmark\n")
        t, p = run([ctx, "-s", seg, "build", "-q"])
        one.append(t * 1000)
    after = []
    for i in range(5):
        path = random.Random(100 + i).choice(files)
        with open(path, "a") as fh:
            fh.write(f"\n\nappended paragraph {i} for the search-after-edit benchmark\n")
        t, p = run([ctx, "-s", seg, "search", "appended paragraph", "-k", "3"])
        after.append(t * 1000)
    run([ctx, "-s", seg, "build", "-q"])
    print(f"## build {name}: {size/1e6:.1f} MB in {len(files)} files")
    print(f"cold build {secs:.2f} s ({size/1e6/secs:.1f} MB/s), peak RSS {rss/1024:.0f} MB")
    print(f"chunks {stats['chunks']}, pack {stats['pack_bytes']/1e6:.1f} MB, catalog {stats['catalog_bytes']/1e6:.1f} MB, index {stats['index_bytes']/1e6:.1f} MB, (index+catalog)/corpus {(stats['catalog_bytes']+stats['index_bytes'])/size:.2f}x")
    print(f"no-op rebuild median {noop:.1f} ms; rebuild after one file changed median {statistics.median(one):.1f} ms; "
          f"search right after one file changed (refreshes catalog + index) median {statistics.median(after):.1f} ms")
    return seg


def bench_search(ctx, seg, queries):
    files = [os.path.join(b, f) for b, _, fs in os.walk(seg) for f in fs if f.endswith(".md") and "_ctx" not in b]
    ctx_ms = statistics.median(median_ms([ctx, "-s", seg, "search", "--no-build", q], n=7) for q in queries)
    # What a user runs: the search refreshes the pack first (a no-op here).
    fresh_ms = statistics.median(median_ms([ctx, "-s", seg, "search", q], n=7) for q in queries)
    rg = shutil.which("rg")
    line = (f"search wall time incl. process start, median over {len(queries)} queries: "
            f"ctx {ctx_ms:.1f} ms with --no-build, {fresh_ms:.1f} ms with its refresh")
    if rg:
        rg_ms = statistics.median(median_ms([rg, "-i", "-c", q.split()[0], seg, "--glob", "*.md"], n=7) for q in queries)
        line += f"; rg -i -c {rg_ms:.1f} ms (ctx/rg {ctx_ms/rg_ms:.2f}x)"
    else:
        line += "; rg not installed (apt-get install ripgrep) so no comparison"
    print(line)


def bench_relay(ctx):
    seg = scratch("ctx-bench-relay-")
    for mb in (1, 100):
        line = "".join(f"[{i:07d}] log line with some payload text and a number {i * 7919 % 100003}\n" for i in range(1000))
        value = (line * (mb * 1_000_000 // len(line) + 1))[: mb * 1_000_000]
        t, p = run([ctx, "-s", seg, "box", "--tool", f"log{mb}mb"], input=value.encode())
        ref = p.stdout.decode().strip()
        assert ref.startswith("internal://"), p.stderr.decode()
        sl = median_ms([ctx, "-s", seg, "resolve", "slice", ref, "-200", "200"], n=5)
        gr = median_ms([ctx, "-s", seg, "resolve", "grep", ref, "number 4242\\b", "--max-results", "5"], n=5)
        ln = median_ms([ctx, "-s", seg, "resolve", "length", ref], n=5)
        print(f"relay {mb} MB: box {t*1000:.0f} ms (store + chunk + index), resolve slice {sl:.0f} ms, grep {gr:.0f} ms, length {ln:.0f} ms")


def copy_crate(name):
    """Copies a crate from the local cargo registry (the code eval's corpus) to a temp dir."""
    home = os.environ.get("CARGO_HOME", os.path.join(os.path.expanduser("~"), ".cargo"))
    found = sorted(glob.glob(os.path.join(home, "registry", "src", "*", name)))
    if not found:
        sys.exit(f"crate {name} not found under {home}/registry/src/*/: run `cargo fetch` in this repo first")
    return copy_tree(found[0], name)


def crate_dir(name, sub):
    """Copies directory `sub` of a crate from the local cargo registry to a temp dir."""
    home = os.environ.get("CARGO_HOME", os.path.join(os.path.expanduser("~"), ".cargo"))
    found = sorted(glob.glob(os.path.join(home, "registry", "src", "*", name, sub)))
    if not found:
        sys.exit(f"{name}/{sub} not found under {home}/registry/src/*/: run `cargo fetch` in this repo first")
    return copy_tree(found[0], f"{name}-{sub}")


def python_package(name):
    """Copies a package from the test tools' venv (scripts/setup-test-tools.sh pins it) to a temp dir."""
    found = sorted(glob.glob(os.path.join(ROOT, ".test-tools", "venv", "lib", "python3*", "site-packages", name)))
    if not found:
        sys.exit(f"{name} not found under .test-tools/venv: run scripts/setup-test-tools.sh first")
    return copy_tree(found[0], name)


def workspace(*flags):
    """The workspace `scripts/workspace_corpus.py` lays out (20 crates, or with
    `--tantivy` tantivy's repository), in a temp dir."""
    dest = scratch("ctx-bench-ws-")
    subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "workspace_corpus.py"), *flags, dest], check=True)
    return dest


GO_PACKAGES = "io bufio bytes strings os net fmt sort compress archive encoding".split()


def debian_package(name):
    """Downloads Debian package `name` (`apt-get download`) and unpacks it into a temp
    dir, whose path it returns."""
    work = scratch(f"ctx-bench-{name}-deb-")
    p = subprocess.run(["apt-get", "download", name], cwd=work, capture_output=True)
    debs = glob.glob(os.path.join(work, f"{name}_*.deb"))
    if p.returncode != 0 or not debs:
        sys.exit(f"apt-get download {name} failed: {p.stderr.decode()}")
    subprocess.run(["dpkg-deb", "-x", debs[0], os.path.join(work, "x")], check=True)
    return os.path.join(work, "x")


def go_stdlib():
    """Go 1.19's standard library source as Debian ships it (`golang-1.19-src`), the
    packages the Go query set targets copied into a temp dir (fixtures/eval/README.md)."""
    src = os.path.join(debian_package("golang-1.19-src"), "usr", "share", "go-1.19", "src")
    dst = scratch("ctx-bench-go-")
    for name in GO_PACKAGES:
        shutil.copytree(os.path.join(src, name), os.path.join(dst, name), symlinks=True)
    return dst


def googletest():
    """GoogleTest 1.12.1's source as Debian ships it (`googletest`), `usr/src/googletest`
    copied into a temp dir (fixtures/eval/README.md)."""
    return copy_tree(os.path.join(debian_package("googletest"), "usr", "src", "googletest"), "googletest")


def copy_tree(src, name):
    """Copies `src` to a fresh temp dir with writable permissions."""
    dst = scratch(f"ctx-bench-{name}-")
    shutil.copytree(src, dst, dirs_exist_ok=True)
    for d, _, files in os.walk(dst):
        os.chmod(d, 0o755)
        for f in files:
            os.chmod(os.path.join(d, f), 0o644)
    return dst


def bench_eval(ctx, seg, queries_file, build=False):
    cmd = [ctx, "-s", seg, "eval", "--json", queries_file]
    if not build:
        cmd.insert(4, "--no-build")
    p = subprocess.run(cmd, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{p.stderr.decode()}")
    m = json.loads(p.stdout)
    print(f"eval {os.path.basename(queries_file)}: hit@5 {m['hit_at_5']:.3f}, recall@5 {m['recall_at_5']:.3f}, MRR@10 {m['mrr_at_10']:.3f}, "
          f"abstained unanswerable {m['abstained_on_unanswerable']:.3f}, answerable {m['abstained_on_answerable']:.3f}, "
          f"median latency {m['median_latency_ms']:.2f} ms, median tokens-to-evidence {m['median_tokens_to_evidence']:.0f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "ctx"))
    ap.add_argument("--only", default="build,search,relay,eval")
    ap.add_argument("--keep", action="store_true", help="keep the corpus copies (their paths are printed)")
    a = ap.parse_args()
    if a.keep:
        atexit.register(lambda: print("kept: " + " ".join(SCRATCH)))
    else:
        atexit.register(remove_scratch)
    if not os.path.exists(a.bin):
        sys.exit(f"{a.bin} missing: run `cargo build --release` first")
    only = set(a.only.split(","))
    segs = {}
    if "build" in only or "search" in only or "eval" in only:
        for name in ("rust-book", "k8s-enhancements"):
            segs[name] = bench_build(a.bin, name)
    if "search" in only:
        bench_search(a.bin, segs["k8s-enhancements"], ["pod topology spread", "graceful node shutdown", "kubelet credential provider", "sidecar containers restart policy", "dynamic resource allocation"])
    if "eval" in only:
        bench_eval(a.bin, segs["rust-book"], os.path.join(ROOT, "fixtures/eval/rust-book.jsonl"))
        bench_eval(a.bin, segs["k8s-enhancements"], os.path.join(ROOT, "fixtures/eval/k8s.jsonl"))
        # Written blind (fixtures/eval/README.md).
        bench_eval(a.bin, segs["rust-book"], os.path.join(ROOT, "fixtures/eval/rust-book-blind.jsonl"))
        bench_eval(a.bin, segs["k8s-enhancements"], os.path.join(ROOT, "fixtures/eval/k8s-blind.jsonl"))
        bench_eval(a.bin, segs["rust-book"], os.path.join(ROOT, "fixtures/eval/rust-book-blind2.jsonl"))
        bench_eval(a.bin, segs["k8s-enhancements"], os.path.join(ROOT, "fixtures/eval/k8s-blind2.jsonl"))
        for n in ("3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14"):
            bench_eval(a.bin, segs["rust-book"], os.path.join(ROOT, f"fixtures/eval/rust-book-blind{n}.jsonl"))
            bench_eval(a.bin, segs["k8s-enhancements"], os.path.join(ROOT, f"fixtures/eval/k8s-blind{n}.jsonl"))
        # Code search: the `ignore` crate (ctx depends on it, so `cargo fetch` has it).
        bench_eval(a.bin, copy_crate("ignore-0.4.34"), os.path.join(ROOT, "fixtures/eval/code-ignore.jsonl"), build=True)
        # clap_builder and the MCP Python SDK the tests install (see fixtures/eval/README.md
        # for which constants were chosen on them).
        bench_eval(a.bin, copy_crate("clap_builder-4.6.7"), os.path.join(ROOT, "fixtures/eval/code-clap.jsonl"), build=True)
        bench_eval(a.bin, python_package("mcp"), os.path.join(ROOT, "fixtures/eval/code-mcp-python.jsonl"), build=True)
        # Two sets written blind (fixtures/eval/README.md); both crates are in Cargo.lock.
        bench_eval(a.bin, copy_crate("indicatif-0.18.6"), os.path.join(ROOT, "fixtures/eval/code-indicatif.jsonl"), build=True)
        bench_eval(a.bin, copy_crate("pulldown-cmark-0.13.6"), os.path.join(ROOT, "fixtures/eval/code-pulldown.jsonl"), build=True)
        # A multi-crate workspace, written blind (queries that name a crate; fixtures/eval/README.md).
        bench_eval(a.bin, workspace(), os.path.join(ROOT, "fixtures/eval/code-workspace.jsonl"), build=True)
        # Tantivy's repository, whose members' directories are not their package names (blind).
        bench_eval(a.bin, workspace("--tantivy"), os.path.join(ROOT, "fixtures/eval/code-tantivy.jsonl"), build=True)
        # C, written blind: the tree-sitter runtime's C source (ctx depends on the crate).
        bench_eval(a.bin, crate_dir("tree-sitter-0.27.1", "src"), os.path.join(ROOT, "fixtures/eval/code-tree-sitter-c.jsonl"), build=True)
        # C++, written blind: GoogleTest from Debian (needs apt-get).
        bench_eval(a.bin, googletest(), os.path.join(ROOT, "fixtures/eval/code-googletest.jsonl"), build=True)
        # Go, written blind: Go 1.19's standard library from Debian (needs apt-get).
        bench_eval(a.bin, go_stdlib(), os.path.join(ROOT, "fixtures/eval/code-go.jsonl"), build=True)
    if "relay" in only:
        bench_relay(a.bin)


if __name__ == "__main__":
    main()
