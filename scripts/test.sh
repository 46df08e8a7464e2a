#!/usr/bin/env bash
# The whole test suite: installs what is missing, then runs every test of the workspace.
# Tests that need a GPU, or a user's PolyBench/C checkout (POLYBENCH_DIR), print why they skip.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo test --workspace --all-targets "$@"
cargo test --workspace --doc
