#!/usr/bin/env bash
# The differential test at scale (issue 19): COUNT random affine programs from seed FIRST, with
# every construct the generator has (strides, min/max bounds, conditions, reductions), each
# compiled by polyc for the C target (and, one program in ten each, for OpenCL on PoCL and for
# CUDA on polyc's CUDA emulator), run under random tile sizes and thread counts and compared
# with gcc's build of the original. Failures
# are shrunk to small reproducers in target/differential/; the summary goes to stdout and OUT.
#
#   scripts/differential.sh [COUNT] [FIRST] [OUT]      # default 1000 0 target/differential.md
#   FEATURES=base scripts/differential.sh ...          # the property tests' simpler programs
#   FEATURES=temporaries scripts/differential.sh ...   # all, and a nest of temporary arrays
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-1000}
first=${2:-0}
out=${3:-target/differential.md}
scripts/setup.sh
cargo build --release -q -p avelas-rt
cargo build --release -q
cargo build --release -q -p polybench --example differential
mkdir -p "$(dirname "$out")"
target/release/examples/differential --count "$count" --first "$first" --polyc target/release/polyc \
  --features "${FEATURES:-all}" --keep target/differential --out "$out"
