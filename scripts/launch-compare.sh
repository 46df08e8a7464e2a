#!/usr/bin/env bash
# Launches and SCoP time on the OpenCL device (PoCL on the CPU here) of the code of two polyc
# binaries, side by side: BASE (an older polyc, e.g. built from a `git worktree`) and this
# checkout's. Per kernel and binary: launches, the medians over RUNS interleaved runs of the
# profile's time_ms and kernel_ms, the first run's time_ms with an empty PoCL kernel cache (the
# kernels' build), and whether the array dumps equal the original program's.
#
#   scripts/launch-compare.sh BASE_POLYC [DATASET] [OUT] [KERNEL...]   # default MEDIUM, target/launch-compare.md
set -euo pipefail
cd "$(dirname "$0")/.."
base=$(realpath "$1")
dataset=${2:-MEDIUM}
out=${3:-target/launch-compare.md}
shift $(( $# > 3 ? 3 : $# ))
runs=${RUNS:-5}
. scripts/launch-common.sh
{
  echo "# Launches before and after, OpenCL, $dataset"
  echo
  echo "before: \`$base\` (\`$("$base" --version)\`); after: \`$("$polyc" --version)\` at $(git rev-parse --short HEAD); machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');"
  echo "device: $(clinfo 2>/dev/null | grep -m1 'Platform Version' | sed 's/.*Platform Version *//'); medians of $runs interleaved runs after a first run with an empty kernel cache"
  echo
  echo "| kernel | launches before | launches after | time_ms before | time_ms after | speed-up | kernel_ms before | kernel_ms after | first run ms before | first run ms after | dumps |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
} >"$out"
for k in "${kernels[@]}"; do
  src=$(find "$suite" -name "$k.c" | head -1)
  flags=(-I "$suite/utilities" -I "$(dirname "$src")" "-D${dataset}_DATASET" -DPOLYBENCH_DUMP_ARRAYS)
  gcc -O2 "${flags[@]}" "$src" "$suite/utilities/polybench.c" -lm -o "$work/$k-orig"
  "$work/$k-orig" 2>"$work/$k.ref" >/dev/null
  dumps=same
  for v in before after; do
    p=$base; [ $v = after ] && p=$polyc
    if ! "$p" build --target opencl "${flags[@]}" "$src" "$suite/utilities/polybench.c" -o "$work/$k-$v" >/dev/null 2>&1; then
      dumps="polyc build failed ($v)"; continue
    fi
    POCL_CACHE_DIR="$work/cache-$k-$v" POLYC_PROFILE=1 "$work/$k-$v" 2>"$work/$k-$v.first" >/dev/null
    grep -v '^polyc' "$work/$k-$v.first" | cmp -s - "$work/$k.ref" || dumps=DIFFER
  done
  [ "$dumps" = same ] || [ "$dumps" = DIFFER ] || { echo "| $k | $dumps | | | | | | | | | |" >>"$out"; continue; }
  for r in $(seq "$runs"); do
    for v in before after; do
      POCL_CACHE_DIR="$work/cache-$k-$v" POLYC_PROFILE=1 "$work/$k-$v" 2>"$work/$k-$v.$r" >/dev/null
    done
  done
  declare -A l=() t=() km=() f=()
  for v in before after; do
    l[$v]=$(sum "$work/$k-$v.1" launches)
    t[$v]=$(for r in $(seq "$runs"); do sum "$work/$k-$v.$r" time_ms; done | median)
    km[$v]=$(for r in $(seq "$runs"); do sum "$work/$k-$v.$r" kernel_ms; done | median)
    f[$v]=$(sum "$work/$k-$v.first" time_ms)
  done
  speed=$(awk "BEGIN {printf \"%.2f\", ${t[before]} / ${t[after]}}")
  echo "| $k | ${l[before]} | ${l[after]} | ${t[before]} | ${t[after]} | ${speed}x | ${km[before]} | ${km[after]} | ${f[before]} | ${f[after]} | $dumps |" >>"$out"
done
cat "$out"
