#!/usr/bin/env bash
# The whole test suite, as the README's second command and CI run it:
# formatting and lint gates, the real MCP clients/servers the tests drive, then
# every test (unit, property, integration, crash).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --check
cargo clippy --locked --all-targets -- -D warnings
scripts/setup-test-tools.sh
cargo test --locked
