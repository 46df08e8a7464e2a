#!/usr/bin/env bash
# polyc's own time on every suite kernel (issue 19, item 1: "the suite's kernels stay under 1 s
# each; report the slowest"): wall time of `polyc KERNEL.c --target T -o ...`, median of RUNS
# runs, for one or more polyc binaries side by side (runs interleaved, so that a change in the
# machine's load hits every binary alike).
#
#   scripts/compile-times.sh [OUT]                       # target/release/polyc, target/compile-times.md
#   POLYCS="old/polyc target/release/polyc" TARGETS="c opencl" RUNS=5 scripts/compile-times.sh OUT
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/compile-times.md}
runs=${RUNS:-3}
targets=${TARGETS:-c opencl cuda}
if [ -z "${POLYCS:-}" ]; then
  scripts/setup.sh
  cargo build --release -q -p polyc
fi
read -r -a polycs <<<"${POLYCS:-target/release/polyc}"
suite=polybench/suite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Milliseconds one compilation takes; "failed" when polyc exits non-zero.
time_one() {
  local polyc=$1 src=$2 target=$3 start end
  start=$(date +%s%N)
  if ! "$polyc" "$src" --target "$target" -I "$suite/utilities" -I "$(dirname "$src")" \
    -o "$work/out" 2>"$work/err"; then
    echo failed
    return
  fi
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

{
  echo "# polyc's compile time per suite kernel (median of $runs, ms)"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u +%Y-%m-%d)."
  for p in "${polycs[@]}"; do echo "- \`$p\`: $("$p" --version)"; done
  echo
  header="| kernel | target |"
  rule="|---|---|"
  for p in "${polycs[@]}"; do
    header+=" $p |"
    rule+="---:|"
  done
  echo "$header"
  echo "$rule"
  for src in $(find "$suite" -name '*.c' -not -path '*/utilities/*' | sort); do
    kernel=$(basename "$src" .c)
    for target in $targets; do
      declare -A times=()
      for _ in $(seq "$runs"); do
        for i in "${!polycs[@]}"; do
          times[$i]+=" $(time_one "${polycs[$i]}" "$src" "$target")"
        done
      done
      row="| $kernel | $target |"
      for i in "${!polycs[@]}"; do
        case "${times[$i]}" in
          *failed*) row+=" failed |" ;;
          *) row+=" $(echo "${times[$i]}" | median) |" ;;
        esac
      done
      echo "$row"
      unset times
    done
  done
} | tee "$out"
