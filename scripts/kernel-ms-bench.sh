#!/usr/bin/env bash
# Device time of OpenCL programs, this polyc against another: each kernel's program at DATASET
# (default LARGE) built from both polycs' output, one warm-up run each (PoCL's kernel cache),
# then RUNS (default 7) alternating runs with POLYC_PROFILE=1; prints the median and every run
# of `kernel_ms` (summed over the SCoPs' profile lines) for each.
# Usage: BASE_POLYC=OLD [FLAGS="--lane-groups on"] [DATASET=LARGE] [RUNS=7] \
#          scripts/kernel-ms-bench.sh KERNEL...
# OLD needs its own libavelas_rt.so beside it (a clean worktree's target/release).
set -euo pipefail
cd "$(dirname "$0")/.."
suite=polybench/suite
ds=${DATASET:-LARGE}
runs=${RUNS:-7}
new=$PWD/target/release
old=$(cd "$(dirname "${BASE_POLYC:?BASE_POLYC names the other polyc}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernel_ms() { POLYC_PROFILE=1 "$1" 2>&1 >/dev/null | grep -o 'kernel_ms=[0-9.]*' | cut -d= -f2 | paste -sd+ | bc; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for k in "$@"; do
  src=$suite/$(grep -E "/$k/$k\.c$" $suite/utilities/benchmark_list | sed 's#^\./##')
  flags=(-I $suite/utilities -I "$(dirname "$src")" -D${ds}_DATASET -DPOLYBENCH_TIME)
  # shellcheck disable=SC2086
  "$new/polyc" "${flags[@]}" "$src" --target opencl ${FLAGS:-} -o "$work/$k-new.c"
  "$old/polyc" "${flags[@]}" "$src" --target opencl -o "$work/$k-old.c"
  for v in new old; do
    lib=$new; [ $v = old ] && lib=$old
    gcc -O3 -march=native "${flags[@]}" "$work/$k-$v.c" $suite/utilities/polybench.c \
      -o "$work/$k-$v" -L"$lib" -lavelas_rt -Wl,-rpath,"$lib" -Wl,--disable-new-dtags -lm
    "$work/$k-$v" >/dev/null 2>&1
  done
  n=""; o=""
  for _ in $(seq "$runs"); do
    n="$n $(kernel_ms "$work/$k-new")"
    o="$o $(kernel_ms "$work/$k-old")"
  done
  echo "$k $ds kernel_ms: this polyc median $(echo $n | median) [$n ], base median $(echo $o | median) [$o ]"
done
