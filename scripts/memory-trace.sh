#!/usr/bin/env bash
# How the CUDA target's kernels would use a GPU's memory, without a GPU: every suite kernel
# compiled for CUDA, run on polyc's CUDA emulator with its memory trace on, and summed per
# kernel (warp requests, 32-byte sectors per request, the bytes used, the traffic with no cache
# and with a data-sized one). Writes OUT (Markdown, with the machine and the commit); extra
# arguments go to the example (`--dataset MEDIUM`, `--kernels atax,bicg`, `--flag=...`).
#
#   scripts/memory-trace.sh [OUT] [-- example arguments]   # default target/memory-trace.md
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/memory-trace.md
if [ $# -gt 0 ] && [ "$1" != "--" ]; then out=$1; shift; fi
[ "${1:-}" = "--" ] && shift
scripts/setup.sh
cargo build --release -q -p avelas-rt
cargo build --release -q
cargo build --release -q -p polybench --example memory_trace
mkdir -p "$(dirname "$out")"
target/release/examples/memory_trace --polyc target/release/polyc --detail --out "$out.part" "$@"
machine="Machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (with local changes)'); $(date -u +%Y-%m-%d)."
{ head -2 "$out.part"; echo "$machine"; echo; tail -n +3 "$out.part"; } > "$out"
rm -f "$out.part"
echo "memory-trace: wrote $out"
