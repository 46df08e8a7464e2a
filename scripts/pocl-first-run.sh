#!/usr/bin/env bash
# First-run time of every suite kernel's OpenCL program on PoCL with a fresh kernel cache (issue
# 19, item 2): PoCL compiles a program's kernels when it first builds and launches them, so a
# user's first run (and every new tile size, work-group size or local-memory window) pays it.
# Per kernel: the kernel versions and barriers in the generated OpenCL C, the wall time of a
# run with an empty POCL_CACHE_DIR, and of a second run with that cache. A kernel with no
# versions runs on the host (no parallelism a GPU could use: issue 17).
#
#   scripts/pocl-first-run.sh [DATASET] [OUT]      # default SMALL, target/pocl-first-run.md
#   POLYC=/path/to/old/polyc scripts/pocl-first-run.sh ...   # another polyc, for before/after
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:-SMALL}
out=${2:-target/pocl-first-run.md}
scripts/setup.sh
cargo build --release -q --workspace
polyc=${POLYC:-target/release/polyc}
suite=polybench/suite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s.%N; }

{
  echo "# PoCL first runs, $dataset, default tile sizes"
  echo
  echo "polyc: \`$("$polyc" --version)\` ($polyc); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');"
  echo "PoCL: $(clinfo 2>/dev/null | grep -m1 'Platform Version' | sed 's/.*Platform Version *//')"
  echo
  echo "| kernel | versions | barriers | first run s | cached run s |"
  echo "|---|---|---|---|---|"
} >"$out"
slowest=0; slowest_kernel=""; total=0
while read -r rel; do
  src=$suite/${rel#./}
  k=$(basename "$src" .c)
  flags=(-I "$suite/utilities" -I "$(dirname "$src")" "-D${dataset}_DATASET")
  if ! "$polyc" --target opencl "${flags[@]}" "$src" -o "$work/$k.c" 2>"$work/$k.err"; then
    echo "| $k | - | - | polyc failed | - |" >>"$out"; continue
  fi
  gcc -O2 -ffp-contract=off "${flags[@]}" "$work/$k.c" "$suite/utilities/polybench.c" -o "$work/$k" \
    $("$polyc" --print-libs --target opencl)
  versions=$(grep -c '__kernel void' "$work/$k.c" || true)
  barriers=$( { grep -o 'barrier(' "$work/$k.c" || true; } | wc -l)
  cache=$(mktemp -d)
  t0=$(now)
  if ! POCL_CACHE_DIR=$cache "$work/$k" >/dev/null 2>&1; then
    echo "| $k | $versions | $barriers | run failed | - |" >>"$out"; rm -rf "$cache"; continue
  fi
  t1=$(now); POCL_CACHE_DIR=$cache "$work/$k" >/dev/null 2>&1; t2=$(now)
  rm -rf "$cache"
  first=$(awk "BEGIN {print $t1 - $t0}"); cached=$(awk "BEGIN {print $t2 - $t1}")
  printf '| %s | %s | %s | %.2f | %.2f |\n' "$k" "$versions" "$barriers" "$first" "$cached" >>"$out"
  total=$(awk "BEGIN {print $total + $first}")
  if awk "BEGIN {exit !($first > $slowest)}"; then slowest=$first; slowest_kernel=$k; fi
done < <(grep -v '^#' "$suite/utilities/benchmark_list")
printf '\nFirst runs: %.1f s in all; slowest %s, %.2f s.\n' "$total" "$slowest_kernel" "$slowest" >>"$out"
cat "$out"
