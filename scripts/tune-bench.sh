#!/usr/bin/env bash
# polyc tune's benchmark (issue 15): per kernel, the exhaustive search and the guided search over
# the same space on the same program, and the program's speed with the default sizes and with the
# sizes each search chose, against the original built with gcc -O3 -march=native.
# Usage: [SPACE="--values pow2 --min-size 8 --max-size 256"] [REPS=3] \
#          scripts/tune-bench.sh [DATASET] [KERNELS...]
#   DATASET default LARGE; kernels default: gemm 2mm jacobi-2d seidel-2d fdtd-2d lu.
# Prints a Markdown table. Times: the SCoPs' time_ms (polyc's programs) and PolyBench's timer (the
# original), medians of REPS runs; "tuned" is the program rerun REPS times with the chosen entries
# after its search (polyc tune's tuned_ms). "Side by side": the program with the exhaustive search's
# tuning file and with the guided search's, SIDE runs each (default 7), alternating, medians: how
# good a configuration each found, measured alike (a search's own best is the least of many noisy
# medians, biased low the more configurations it measured). The C target, OMP threads as the
# environment says.
set -euo pipefail
cd "$(dirname "$0")/.."
dataset=${1:-LARGE}
shift $(( $# < 1 ? $# : 1 ))
kernels=("$@")
[ ${#kernels[@]} -eq 0 ] && kernels=(gemm 2mm jacobi-2d seidel-2d fdtd-2d lu)
space=${SPACE:---values pow2 --min-size 8 --max-size 256}
reps=${REPS:-3}
side=${SIDE:-7}
suite=polybench/suite
cargo build --release -q --bin polyc
polyc=$PWD/target/release/polyc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The median of the numbers on stdin.
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# $1: the JSON of a search; prints "best_ms config configurations seconds default_ms tuned_ms".
summary() {
  jq -r '[([.scops[].best.median_ms] | add), ([.scops[] | "\(.scop):\(.chosen.config)"] | join(" ")),
          ([.scops[].measurements | length] | max), .seconds, ([.scops[].default_ms] | add),
          ([.scops[].tuned_ms] | add), ([.scops[].space] | max)] | @tsv' "$1"
}

# $1: a tuning file; the SCoPs' time (ms, summed) of one run of the program with it.
scops_ms() {
  POLYC_TUNING="$1" POLYC_PROFILE=1 "$work/$k" 2>&1 >/dev/null | grep '^polyc: scop=' |
    sed 's/.*time_ms=\([0-9.]*\).*/\1/' | awk '{ s += $1 } END { printf "%.3f\n", s }'
}

echo "| kernel | space | exhaustive: best ms, sizes, configs, s | guided: best ms, sizes, configs, s | side by side: exhaustive's ms, guided's ms, guided / exhaustive | guided configs share | original ms | default ms | guided tuned ms | exhaustive tuned ms | speed-up default | speed-up tuned |"
echo "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
for k in "${kernels[@]}"; do
  src=$suite/$(grep -E "/$k/$k\.c$" $suite/utilities/benchmark_list | sed 's|^\./||')
  flags=(-I "$suite/utilities" -I "$(dirname "$src")" "-D${dataset}_DATASET" -DPOLYBENCH_DUMP_ARRAYS)
  gcc -O3 -march=native "${flags[@]}" -DPOLYBENCH_TIME "$src" "$suite/utilities/polybench.c" \
    -o "$work/$k-original" -lm
  "$polyc" --target c "${flags[@]}" "$src" -o "$work/$k.c" 2>/dev/null
  gcc -O3 -march=native $("$polyc" --print-cflags) "${flags[@]}" "$work/$k.c" "$suite/utilities/polybench.c" \
    -o "$work/$k" -lm
  original=$(for _ in $(seq "$reps"); do "$work/$k-original" 2>/dev/null; done | median)
  original_ms=$(awk -v s="$original" 'BEGIN { printf "%.3f", 1e3 * s }')
  # shellcheck disable=SC2086
  "$polyc" tune "$work/$k" --strategy exhaustive $space --reps "$reps" --out "$work/ex-$k" >/dev/null
  # shellcheck disable=SC2086
  "$polyc" tune "$work/$k" --strategy guided $space --reps "$reps" --out "$work/gd-$k" >/dev/null
  IFS=$'\t' read -r ex_ms ex_cfg ex_n ex_s _ ex_tuned n_space < <(summary "$work/ex-$k/$k.tune.json")
  IFS=$'\t' read -r gd_ms gd_cfg gd_n gd_s default_ms gd_tuned _ < <(summary "$work/gd-$k/$k.tune.json")
  : > "$work/side-ex"; : > "$work/side-gd"
  for _ in $(seq "$side"); do
    scops_ms "$work/ex-$k/$k.tuning" >> "$work/side-ex"
    scops_ms "$work/gd-$k/$k.tuning" >> "$work/side-gd"
  done
  side_ex=$(median < "$work/side-ex"); side_gd=$(median < "$work/side-gd")
  awk -v k="$k" -v sp="$n_space" -v em="$ex_ms" -v ec="$ex_cfg" -v en="$ex_n" -v es="$ex_s" \
      -v gm="$gd_ms" -v gc="$gd_cfg" -v gn="$gd_n" -v gs="$gd_s" -v o="$original_ms" \
      -v d="$default_ms" -v gt="$gd_tuned" -v et="$ex_tuned" -v se="$side_ex" -v sg="$side_gd" 'BEGIN {
    printf "| %s | %d | %.3f, %s, %d, %.0f | %.3f, %s, %d, %.0f | %.3f, %.3f, %.3f | %.1f%% | %.3f | %.3f | %.3f | %.3f | %.2fx | %.2fx |\n",
      k, sp, em, ec, en, es, gm, gc, gn, gs, se, sg, sg / se, 100 * gn / sp, o, d, gt, et, o / d, o / gt }'
done
