#!/usr/bin/env bash
# The whole test suite: installs what is missing, then checks formatting, lints, builds the docs,
# runs every test of the workspace, then avelas-rt's unit tests under Miri. Tests that need a GPU,
# or a user's PolyBench/C checkout (POLYBENCH_DIR), print why they skip.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
command -v rustfmt >/dev/null && cargo fmt --all -- --check
cargo clippy --workspace --all-targets -q -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps -q
cargo test --workspace --all-targets "$@"
cargo test --workspace --doc -q
# avelas-rt's raw-memory code under Miri (nightly; skipped, saying why, where it cannot be had).
scripts/miri.sh
