#!/usr/bin/env bash
# What polyc tune's in-process search costs against iterative compilation over the same
# configurations (issue 15): per kernel, `polyc tune FILE.c --compare-recompile` (the C target):
# the guided search (in-process trials), then each configuration it measured rebuilt with
# --fixed-tile-sizes and run. Prints a Markdown table from polyc tune's own report line.
# Usage: [BUDGET=N] [REPS=1] [CUTOFFS="0 1.5"] scripts/tune-recompile-bench.sh [DATASET] [KERNELS...]
#   DATASET default LARGE; kernels default: gemm 2mm jacobi-2d seidel-2d fdtd-2d lu; one row per
#   kernel and --cutoff of CUTOFFS (default: polyc tune's own).
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:-LARGE}
shift $(( $# < 1 ? $# : 1 ))
kernels=("$@")
[ ${#kernels[@]} -eq 0 ] && kernels=(gemm 2mm jacobi-2d seidel-2d fdtd-2d lu)
budget=${BUDGET:-40}
reps=${REPS:-1}
read -r -a cutoffs <<< "${CUTOFFS:-default}"
suite=polybench/suite
cargo build --release -q --bin polyc
polyc=$PWD/target/release/polyc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "| kernel | --cutoff | configurations | iterative compilation s | s each | in-process search s | s each | cheaper |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for k in "${kernels[@]}"; do
  src=$suite/$(grep -E "/$k/$k\.c$" $suite/utilities/benchmark_list | sed 's|^\./||')
  for c in "${cutoffs[@]}"; do
    cut=()
    [ "$c" = default ] || cut=(--cutoff "$c")
    line=$("$polyc" tune --target c "$src" "$suite/utilities/polybench.c" -I "$suite/utilities" -I "$(dirname "$src")" \
      "-D${dataset}_DATASET" -DPOLYBENCH_DUMP_ARRAYS --compare-recompile --budget "$budget" --reps "$reps" \
      "${cut[@]}" --out "$work/$k-$c" 2>/dev/null | grep 'iterative compilation measured')
    # "... measured N configurations in X s (Y s each); this search measured N in Z s (W s each): Rx cheaper"
    echo "$line" | sed -E 's/.*measured ([0-9]+) configurations in ([0-9.]+) s \(([0-9.]+) s each\); this search measured [0-9]+ in ([0-9.]+) s \(([0-9.]+) s each\): ([0-9.]+)x cheaper.*/\1 \2 \3 \4 \5 \6/' |
      awk -v k="$k" -v c="$c" '{ printf "| %s | %s | %s | %s | %s | %s | %s | %sx |\n", k, c, $1, $2, $3, $4, $5, $6 }'
  done
done
