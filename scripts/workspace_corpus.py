#!/usr/bin/env python3
"""Lays out crates from the local cargo registry as one multi-crate workspace.

Usage: python3 scripts/workspace_corpus.py [--tantivy] DEST

DEST/crates/<name>/ holds each crate below, unchanged, under its name without
the version (as a workspace's members are). The crates overlap on purpose:
four regex engines' worth of parsing, three TOML layers, two ignore/glob
walkers, so a question that names its crate is often answered differently in
a neighbour. All are in ctx's Cargo.lock, so `cargo fetch` puts them in the
registry. `fixtures/eval/code-workspace.jsonl` is labelled over this tree.

With --tantivy, DEST is tantivy's own repository as upstream lays it out: the
`tantivy` crate at the root and its member crates in directories that are not
their package names (`sstable/` is `tantivy-sstable`, `query-grammar/` is
`tantivy-query-grammar`). `fixtures/eval/code-tantivy.jsonl` is labelled over it.
"""
import glob
import os
import shutil
import sys

CRATES = [
    "regex-1.13.1",
    "regex-syntax-0.8.11",
    "regex-automata-0.4.18",
    "aho-corasick-1.1.5",
    "memchr-2.8.3",
    "globset-0.4.21",
    "ignore-0.4.34",
    "walkdir-2.5.0",
    "serde_json-1.0.154",
    "toml-1.2.1+spec-1.1.0",
    "toml_edit-0.25.18+spec-1.1.0",
    "toml_parser-1.1.5+spec-1.1.0",
    "serde-saphyr-2.0.0",
    "jaq-core-3.1.2",
    "jaq-json-2.0.3",
    "notify-8.2.1",
    "tempfile-3.27.0",
    "clap_lex-1.1.1",
    "console-0.16.6",
    "indicatif-0.18.6",
]


# (registry crate, directory in the tantivy repository; "" is the root)
TANTIVY = [
    ("tantivy-0.27.0", ""),
    ("tantivy-bitpacker-0.27.0", "bitpacker"),
    ("tantivy-columnar-0.27.0", "columnar"),
    ("tantivy-common-0.27.0", "common"),
    ("tantivy-query-grammar-0.27.0", "query-grammar"),
    ("tantivy-sstable-0.27.0", "sstable"),
    ("tantivy-stacker-0.27.0", "stacker"),
    ("tantivy-tokenizer-api-0.7.0", "tokenizer-api"),
]


def name_of(crate):
    """`regex-syntax-0.8.11` → `regex-syntax`; `toml-1.2.1+spec-1.1.0` → `toml`."""
    parts = crate.split("-")
    while parts and parts[-1][:1].isdigit():
        parts.pop()
    return "-".join(parts)


def main():
    args = sys.argv[1:]
    tantivy = "--tantivy" in args
    args = [a for a in args if a != "--tantivy"]
    if len(args) != 1:
        sys.exit(__doc__.strip().splitlines()[2])
    dest = args[0]
    home = os.environ.get("CARGO_HOME", os.path.join(os.path.expanduser("~"), ".cargo"))
    layout = TANTIVY if tantivy else [(c, os.path.join("crates", name_of(c))) for c in CRATES]
    for crate, place in layout:
        found = sorted(glob.glob(os.path.join(home, "registry", "src", "*", crate)))
        if not found:
            sys.exit(f"crate {crate} not found under {home}/registry/src/*/: run `cargo fetch` in this repo first")
        shutil.copytree(found[0], os.path.join(dest, place), dirs_exist_ok=True)


if __name__ == "__main__":
    main()
