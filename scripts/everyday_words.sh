#!/bin/sh
# Regenerates src/index/everyday.txt from Debian's scowl package (SCOWL word
# lists): sizes 10-35 of the English, American and British word lists, ASCII
# letters only, lower-cased, sorted bytewise. Needs apt-get download (no root).
set -eu
out=$(cd "$(dirname "$0")/.." && pwd)/src/index/everyday.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
apt-get download scowl >/dev/null
dpkg-deb -x scowl_*.deb x
d=x/usr/share/dict/scowl
for l in 10 20 35; do
  cat "$d/english-words.$l" "$d/american-words.$l" "$d/british-words.$l"
done | iconv -f latin1 -t utf-8 | grep -E '^[A-Za-z]+$' | tr A-Z a-z | LC_ALL=C sort -u > "$out"
wc -l "$out"
