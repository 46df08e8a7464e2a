#!/usr/bin/env bash
# The end-to-end sweeps CI samples, in full (POLYC_SWEEP=1): the OpenCL target on PoCL with every
# run setting at SMALL as well as MINI, from an empty PoCL kernel cache as on a fresh machine
# (tests/opencl.rs), and the C-semantics programs with the hostile inputs whose generated code
# takes gcc minutes (tests/semantics.rs), and every kernel's CUDA on polyc's CUDA emulator at
# SMALL as well as MINI (tests/cuda_emulated.rs). Writes the log, with the machine and the commit, to
# OUT (default docs/results/sweep-COMMIT.log); exit status 1 if a test failed.
#
#   scripts/sweep.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse --short HEAD)
out=${1:-docs/results/sweep-$commit.log}
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
{
  echo "# scripts/sweep.sh at $commit$(git diff --quiet HEAD || echo ' (with uncommitted changes)'), $(date -u +%F)"
  echo "# machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, $(uname -sr)"
  start=$(date +%s)
  status=0
  POLYC_SWEEP=1 POCL_CACHE_DIR=$cache cargo test --release --test opencl --test semantics --test cuda_emulated 2>&1 || status=$?
  echo "# took $(($(date +%s) - start)) s, exit status $status"
  exit $status
} | tee "$out"
