#!/usr/bin/env bash
# autopilot-latency.sh — how long from a file write until `ctx search` finds the new
# text while `ctx autopilot` watches, and how much CPU the watcher uses while idle.
#
# Usage: scripts/autopilot-latency.sh [CORPUS_DIR] [ROUNDS]
#   CORPUS_DIR  default: ../shared/corpora/k8s-enhancements (beside the repo)
#   ROUNDS      default: 10 writes, one at a time
#   env CTX=…         the binary (default: target/release/ctx; build it with
#                     `cargo build --release` first)
#   env DEBOUNCE_MS=… default 200
#   env STEPS=child   configure `ctx build` + `ctx validate` as child steps instead of
#                     the in-process default (build, then validate)
#   env IDLE_SECS=…   length of the idle CPU sample (default 10)
#
# The corpus is copied to a temp dir (made writable) and built once before the
# watcher starts. For each write, a unique word is appended to one Markdown file;
# the script then runs `ctx search <word> --no-build` in a tight loop until it is
# found. Reported per write:
#   change_ms  write → the watcher starts the round (debounce, debouncer tick, event
#              delivery: the watcher's own share of the latency);
#   search_ms  write → first search that finds the word (includes up to one search
#              run of polling delay, ~10–30 ms);
#   build_ms   write → end of the round's build step, from the watcher's log (the
#              index commits just before that);
# and at the end the watcher's CPU time over IDLE_SECS of no changes, from
# /proc/<pid>/stat (utime + stime).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$here/../shared/corpora/k8s-enhancements}
rounds=${2:-10}
ctx=${CTX:-$here/target/release/ctx}
debounce=${DEBOUNCE_MS:-200}
idle=${IDLE_SECS:-10}

[[ -x $ctx ]] || { echo "ERROR: $ctx is missing; run: cargo build --release" >&2; exit 2; }
[[ -d $corpus ]] || { echo "ERROR: corpus $corpus is missing" >&2; exit 2; }
command -v jq >/dev/null || { echo "ERROR: jq is needed" >&2; exit 2; }

tmp=$(mktemp -d)
watcher=
cleanup() {
  if [[ -n $watcher ]]; then kill "$watcher" 2>/dev/null || true; wait "$watcher" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

seg=$tmp/seg
cp -R "$corpus" "$seg"
chmod -R u+w "$seg"
steps=""
if [[ ${STEPS:-} == child ]]; then
  steps=$'  steps:\n    - command: ctx build\n      timeout_ms: 120000\n    - command: ctx validate\n      timeout_ms: 60000\n'
fi
printf -- '---\nautopilot:\n  debounce_ms: %s\n%s---\n\n# Latency run\n' "$debounce" "$steps" > "$seg/session.md"

files=$(find "$seg" -name '*.md' -not -path '*/_ctx/*' | wc -l)
bytes=$(du -sb "$seg" | cut -f1)
echo "corpus: $corpus ($files Markdown files, $((bytes / 1000000)) MB), debounce ${debounce} ms, steps: ${STEPS:-in-process}"
start=$(date +%s%N)
"$ctx" -s "$seg" build -q
echo "initial build: $(( ($(date +%s%N) - start) / 1000000 )) ms"

log=$seg/_ctx/autopilot.log
"$ctx" -s "$seg" autopilot -q > "$tmp/watcher.out" 2>&1 &
watcher=$!
for _ in $(seq 1 600); do
  grep -q '"event":"start"' "$log" 2>/dev/null && break
  sleep 0.05
done
grep -q '"event":"start"' "$log" || { echo "ERROR: the watcher did not start" >&2; cat "$tmp/watcher.out" >&2; exit 1; }

ns_of() { date -d "$1" +%s%N; }
target=$(find "$seg/keps" -name README.md | sort | head -1)
[[ -n $target ]] || target=$(find "$seg" -name '*.md' -not -path '*/_ctx/*' | sort | head -1)
search_all=()
change_all=()
build_all=()
for i in $(seq 1 "$rounds"); do
  word="latencyprobe${i}x$RANDOM"
  ends_before=$(grep -c '"event":"round_end"' "$log" || true)
  t0=$(date +%s%N)
  printf '\n\nThe %s marker.\n' "$word" >> "$target"
  while :; do
    # `ctx search` exits 1 on no evidence; only the JSON counts.
    hits=$({ "$ctx" -s "$seg" search "$word" --no-build --json -k 1 2>/dev/null || true; } | jq '.hits | length' 2>/dev/null || true)
    [[ ${hits:-0} -gt 0 ]] && break
    (( $(date +%s%N) - t0 > 120000000000 )) && { echo "ERROR: $word never became searchable" >&2; exit 1; }
  done
  t1=$(date +%s%N)
  # Wait for the round to end, so the next write starts from a quiet watcher.
  while [[ $(grep -c '"event":"round_end"' "$log" || true) -le $ends_before ]]; do sleep 0.01; done
  change_at=$(grep '"event":"change"' "$log" | tail -1 | jq -r .time)
  build_end=$(grep '"event":"step"' "$log" | grep -E '"step":"(build|ctx build)"' | tail -1 | jq -r .time)
  search_ms=$(( (t1 - t0) / 1000000 ))
  change_ms=$(( ($(ns_of "$change_at") - t0) / 1000000 ))
  build_ms=$(( ($(ns_of "$build_end") - t0) / 1000000 ))
  search_all+=("$search_ms")
  change_all+=("$change_ms")
  build_all+=("$build_ms")
  echo "write $i: change_ms=$change_ms search_ms=$search_ms build_ms=$build_ms"
  sleep 0.3
done

stats() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {printf "min %d, median %d, max %d", a[1], a[int((NR+1)/2)], a[NR]}'; }
echo "change_ms: $(stats "${change_all[@]}")   (write -> round starts: debounce + event delivery)"
echo "search_ms: $(stats "${search_all[@]}")"
echo "build_ms:  $(stats "${build_all[@]}")"
rounds_logged=$(grep -c '"event":"round_start"' "$log" || true)
echo "rounds logged: $rounds_logged for $rounds writes"

sleep 1
hz=$(getconf CLK_TCK)
# utime + stime in clock ticks (coarse), and the scheduler's run time of every
# thread in nanoseconds (fine).
ticks() { awk '{print $14 + $15}' "/proc/$watcher/stat"; }
run_ns() { cat /proc/"$watcher"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s}'; }
threads=$(awk '/^Threads/ {print $2}' "/proc/$watcher/status")
c0=$(ticks); n0=$(run_ns); t0=$(date +%s%N)
sleep "$idle"
c1=$(ticks); n1=$(run_ns); t1=$(date +%s%N)
wall_ms=$(( (t1 - t0) / 1000000 ))
tick_ms=$(( (c1 - c0) * 1000 / hz ))
run_us=$(( (n1 - n0) / 1000 ))
echo "idle over ${wall_ms} ms: utime+stime ${tick_ms} ms (tick $((1000 / hz)) ms); scheduler run time ${run_us} us ($(awk -v u="$run_us" -v w="$wall_ms" 'BEGIN {printf "%.3f", u / 10 / w}')% of one core); $threads threads"
