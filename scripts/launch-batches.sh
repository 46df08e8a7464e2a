#!/usr/bin/env bash
# Launches and SCoP time of every suite kernel on the OpenCL device (PoCL on the CPU here), with
# batches of small wavefronts (the default POLYC_BATCH_TILES) and without (POLYC_BATCH_TILES=0: a
# launch per wavefront, as before batches), side by side in one run (issue 17, item 3).
# Per kernel and setting: the median over RUNS runs of the profile's time_ms and kernel_ms, its
# launches and wavefronts, after one untimed run that fills PoCL's kernel cache; and whether the
# array dumps of both settings equal the original program's at the same dataset.
#
#   scripts/launch-batches.sh [DATASET] [OUT] [KERNEL...]   # default MEDIUM, target/launch-batches.md
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:-MEDIUM}
out=${2:-target/launch-batches.md}
shift $(( $# > 2 ? 2 : $# ))
runs=${RUNS:-3}
. scripts/launch-common.sh
{
  echo "# Batches of small wavefronts, OpenCL, $dataset"
  echo
  echo "polyc: \`$("$polyc" --version)\` at $(git rev-parse --short HEAD); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');"
  echo "device: $(clinfo 2>/dev/null | grep -m1 'Platform Version' | sed 's/.*Platform Version *//'); medians of $runs runs after a warm-up run"
  echo
  echo "| kernel | launches (per wavefront) | launches (batches) | time_ms (per wavefront) | time_ms (batches) | speed-up | kernel_ms (per wavefront) | kernel_ms (batches) | dumps |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
} >"$out"
for k in "${kernels[@]}"; do
  src=$(find "$suite" -name "$k.c" | head -1)
  flags=(-I "$suite/utilities" -I "$(dirname "$src")" "-D${dataset}_DATASET" -DPOLYBENCH_DUMP_ARRAYS)
  gcc -O2 "${flags[@]}" "$src" "$suite/utilities/polybench.c" -lm -o "$work/$k-orig"
  "$work/$k-orig" 2>"$work/$k.ref" >/dev/null
  if ! "$polyc" build --target opencl "${flags[@]}" "$src" "$suite/utilities/polybench.c" -o "$work/$k" >/dev/null 2>&1; then
    echo "| $k | polyc build failed | | | | | | | |" >>"$out"; continue
  fi
  row="| $k"; dumps=same
  declare -A t=() l=() km=()
  for b in 0 default; do
    env=(POLYC_PROFILE=1); [ "$b" = 0 ] && env+=(POLYC_BATCH_TILES=0)
    env "${env[@]}" "$work/$k" 2>"$work/$k.err" >/dev/null
    grep -v '^polyc' "$work/$k.err" | cmp -s - "$work/$k.ref" || dumps=DIFFER
    for r in $(seq "$runs"); do env "${env[@]}" "$work/$k" 2>"$work/$k.$b.$r" >/dev/null; done
    t[$b]=$(for r in $(seq "$runs"); do grep '^polyc: scop=' "$work/$k.$b.$r" | field time_ms | paste -sd+ | bc; done | median)
    km[$b]=$(for r in $(seq "$runs"); do grep '^polyc: scop=' "$work/$k.$b.$r" | field kernel_ms | paste -sd+ | bc; done | median)
    l[$b]=$(grep '^polyc: scop=' "$work/$k.$b.1" | field launches | paste -sd+ | bc)
  done
  speed=$(awk "BEGIN {printf \"%.2f\", ${t[0]} / ${t[default]}}")
  echo "$row | ${l[0]} | ${l[default]} | ${t[0]} | ${t[default]} | ${speed}x | ${km[0]} | ${km[default]} | $dumps |" >>"$out"
done
cat "$out"
