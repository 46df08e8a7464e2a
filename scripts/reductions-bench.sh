#!/usr/bin/env bash
# Scalar reductions (issue 17): each program of scripts/reductions-bench/ built as the original (gcc
# -O3 -march=native -ffp-contract=off: polyc's programs keep contraction off, and with it on,
# maxabs's initial values and so its count change), by polyc with its defaults and by polyc with
# --no-reductions (the original order); the SCoP's own time (the programs print it; on OpenCL it
# includes the transfers), median of RUNS interleaved runs, and each output beside the original's.
# On the C target the defaults sum rows of tiles with partial results, in parallel; with
# TARGET=opencl every tile runs in one launch, combined per work-group (and --no-reductions runs
# the SCoP on the host).
#
#   scripts/reductions-bench.sh [OUT.md]        # RUNS=7 POLYC=target/release/polyc TARGET=c
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/reductions-bench.md}
runs=${RUNS:-7}
polyc=${POLYC:-target/release/polyc}
[ -x "$polyc" ] || cargo build --release -q -p polyc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target=${TARGET:-c}
cflags=$("$polyc" --print-cflags --target "$target")
libs=$("$polyc" --print-libs --target "$target")

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
seconds() { "$1" 2>&1 >/dev/null | awk '/^seconds/ {print $2}'; }

{
  echo "# Scalar reductions on the $target target (median of $runs interleaved runs, ms)"
  echo
  echo "Original: gcc -O3 -march=native -ffp-contract=off; polyc's: gcc -O3 -march=native $cflags."
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OpenMP threads: ${OMP_NUM_THREADS:-default}; $(date -u +%Y-%m-%d); \`$polyc\`: $("$polyc" --version)."
  echo
  echo "| program | original ms | polyc ms | speed-up | --no-reductions ms | original output | polyc output | --no-reductions output |"
  echo "|---|---:|---:|---:|---:|---|---|---|"
  for src in scripts/reductions-bench/*.c; do
    name=$(basename "$src" .c)
    gcc -O3 -march=native -ffp-contract=off "$src" -o "$work/$name-orig"
    "$polyc" "$src" --target "$target" -o "$work/$name-rows.c"
    "$polyc" "$src" --target "$target" --no-reductions -o "$work/$name-kept.c" 2>/dev/null
    for v in rows kept; do
      # shellcheck disable=SC2086
      gcc -O3 -march=native $cflags "$work/$name-$v.c" -o "$work/$name-$v" $libs -lm
    done
    declare -A t=([orig]="" [rows]="" [kept]="")
    for _ in $(seq "$runs"); do
      for v in orig rows kept; do
        t[$v]+="$(seconds "$work/$name-$v")"$'\n'
      done
    done
    ms() { echo -n "${t[$1]}" | median | awk '{printf "%.2f", $1 * 1000}'; }
    o=$(ms orig) r=$(ms rows) k=$(ms kept)
    speedup=$(awk -v o="$o" -v r="$r" 'BEGIN {printf "%.2fx", o / r}')
    outs=()
    for v in orig rows kept; do outs+=("$("$work/$name-$v" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"); done
    echo "| $name | $o | $r | $speedup | $k | \`${outs[0]}\` | \`${outs[1]}\` | \`${outs[2]}\` |"
  done
} | tee "$out"
