#!/usr/bin/env bash
# Index-set splitting (rosepolly::compilation::split): suite kernels built as the original, by
# polyc with its defaults and by polyc with --no-split (the statement kept whole), on one
# target at one dataset; the kernel's time as PolyBench prints it (POLYBENCH_TIME), median of
# RUNS interleaved runs, the launches where the target is OpenCL (POLYC_PROFILE), and whether
# each program's array dump equals the original's (md5 of the dump, from one more run each).
#
# Every program is built with gcc $OPT (default -O3 -march=native, as `polyc bench`), polyc's
# with its --print-cflags too.
#
#   scripts/split-bench.sh [OUT.md] [KERNEL...]   # RUNS=5 TARGET=c DATASET=MEDIUM
#                                                  # POLYC=target/release/polyc OPT=...
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/split-bench.md}
shift || true
kernels=("$@")
[ ${#kernels[@]} -gt 0 ] || kernels=(floyd-warshall)
runs=${RUNS:-5}
target=${TARGET:-c}
dataset=${DATASET:-MEDIUM}
read -r -a opt <<<"${OPT:--O3 -march=native}"
polyc=${POLYC:-target/release/polyc}
[ -x "$polyc" ] || cargo build --release -q --workspace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
suite=polybench/suite
cflags=$("$polyc" --print-cflags --target "$target")
libs=$("$polyc" --print-libs --target "$target")

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

{
  echo "# Index-set splitting on the $target target, $dataset (median of $runs interleaved runs, s)"
  echo
  echo "gcc ${opt[*]}; polyc's programs also $cflags."
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); OpenMP threads: ${OMP_NUM_THREADS:-default}; $(date -u +%Y-%m-%d); \`$polyc\`: $("$polyc" --version)."
  echo
  echo "| kernel | original s | polyc s | --no-split s | speed-up over --no-split | launches | --no-split launches | dumps |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  for k in "${kernels[@]}"; do
    src=$(find "$suite" -name "$k.c" -not -path '*/utilities/*' | head -1)
    [ -n "$src" ] || { echo "no kernel $k" >&2; exit 1; }
    flags=(-I "$suite/utilities" -I "$(dirname "$src")" "-D${dataset}_DATASET" -DPOLYBENCH_TIME)
    gcc "${opt[@]}" "${flags[@]}" "$src" "$suite/utilities/polybench.c" -lm -o "$work/orig"
    gcc "${opt[@]}" "${flags[@]}" -DPOLYBENCH_DUMP_ARRAYS "$src" "$suite/utilities/polybench.c" -lm -o "$work/orig-dump"
    for v in split whole; do
      extra=()
      [ "$v" = whole ] && extra=(--no-split)
      for dump in "" -DPOLYBENCH_DUMP_ARRAYS; do
        exe=$work/$v${dump:+-dump}
        "$polyc" "$src" "${flags[@]}" $dump "${extra[@]}" --target "$target" -o "$exe.c"
        # shellcheck disable=SC2086
        gcc "${opt[@]}" $cflags "${flags[@]}" $dump "$exe.c" "$suite/utilities/polybench.c" -o "$exe" $libs -lm
      done
    done
    # A first run of each fills PoCL's kernel cache.
    for v in orig split whole; do "$work/$v" >/dev/null 2>&1; done
    declare -A t=([orig]="" [split]="" [whole]="")
    for _ in $(seq "$runs"); do
      for v in orig split whole; do
        t[$v]+="$("$work/$v" 2>/dev/null | tail -1)"$'\n'
      done
    done
    s() { echo -n "${t[$1]}" | median; }
    o=$(s orig) p=$(s split) w=$(s whole)
    speedup=$(awk -v p="$p" -v w="$w" 'BEGIN {printf "%.2fx", w / p}')
    launches() { POLYC_PROFILE=1 "$work/$1" 2>&1 >/dev/null | grep -o 'launches=[0-9]*' | cut -d= -f2 | paste -sd+ | bc; }
    lp=- lw=-
    if [ "$target" = opencl ] || [ "$target" = cuda ]; then lp=$(launches split) lw=$(launches whole); fi
    ref=$("$work/orig-dump" 2>&1 >/dev/null | md5sum)
    dumps=""
    for v in split whole; do
      got=$("$work/$v-dump" 2>&1 >/dev/null | grep -v '^polyc' | md5sum)
      [ "$got" = "$ref" ] && dumps+="$v same; " || dumps+="$v DIFFER; "
    done
    echo "| $k | $o | $p | $w | $speedup | $lp | $lw | ${dumps%; } |"
  done
} | tee "$out"
