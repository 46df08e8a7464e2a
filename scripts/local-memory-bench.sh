#!/usr/bin/env bash
# Kernel time with local-memory buffers against without (POLYC_LOCAL_MEM=0), side by side in one
# run, for the kernels issue 14 names, a few tile sizes each; each program is built once and every
# setting runs on the same binary. Prints a Markdown table: the median of RUNS runs of the kernel
# time POLYC_PROFILE reports (kernel_ms, summed over the program's SCoP executions), and the
# buffers and local bytes the buffer buckets chose.
# Usage: [WINDOW=BYTES] scripts/local-memory-bench.sh [TARGET] [DATASET] [RUNS] [KERNELS...]
#   TARGET opencl (default) or cuda; DATASET default LARGE; RUNS default 3; WINDOW: the
#   POLYC_LOCAL_MEM of the runs with buffers (default unset: the device's; a CPU device offers
#   none, so give one there).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-opencl}
dataset=${2:-LARGE}
runs=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
kernels=("$@")
[ ${#kernels[@]} -eq 0 ] && kernels=(gemm 2mm jacobi-2d seidel-2d fdtd-2d heat-3d lu)
sizes_list=(32 16,32,32 8,16,64)
suite=polybench/suite
cargo build --release -q --workspace
polyc=target/release/polyc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The median kernel time of $runs runs of $1 under the environment in the rest, and the last
# run's "buffers=<k> local_bytes=<b>".
measure() {
  local exe=$1; shift
  local times=() staged=""
  for _ in $(seq "$runs"); do
    env "$@" POLYC_PROFILE=1 "$exe" >/dev/null 2>"$work/err" || { echo "failed: $(tail -3 "$work/err")" >&2; return 1; }
    times+=("$(grep -o 'kernel_ms=[0-9.]*' "$work/err" | awk -F= '{ s += $2 } END { printf "%.3f", s }')")
    staged=$(grep -o 'buffers=[0-9]* local_bytes=[0-9]*' "$work/err" | sort -t= -k3 -n | tail -1)
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p"
  echo "$staged"
}

echo "| kernel | tile sizes | kernel ms, buffers | buffers, local bytes | kernel ms, POLYC_LOCAL_MEM=0 | speed-up |"
echo "|---|---|---:|---|---:|---:|"
for k in "${kernels[@]}"; do
  src=$suite/$(grep -E "/$k/$k\.c$" $suite/utilities/benchmark_list | sed 's|^\./||')
  flags=(-I "$suite/utilities" -I "$(dirname "$src")" "-D${dataset}_DATASET")
  ext=c; [ "$target" = cuda ] && ext=cu
  "$polyc" --target "$target" "${flags[@]}" "$src" -o "$work/$k.$ext" 2>/dev/null
  if [ "$target" = cuda ]; then
    nvcc -O3 -arch=native $("$polyc" --print-cflags --target cuda) "${flags[@]}" "$work/$k.cu" \
      -x cu "$suite/utilities/polybench.c" -o "$work/$k" $("$polyc" --print-libs --target cuda)
  else
    gcc -O2 $("$polyc" --print-cflags --target opencl) "${flags[@]}" "$work/$k.c" \
      "$suite/utilities/polybench.c" -o "$work/$k" $("$polyc" --print-libs --target opencl)
  fi
  for sizes in "${sizes_list[@]}"; do
    mapfile -t with < <(measure "$work/$k" POLYC_TILE_SIZES="$sizes" ${WINDOW:+POLYC_LOCAL_MEM="$WINDOW"})
    mapfile -t without < <(measure "$work/$k" POLYC_TILE_SIZES="$sizes" POLYC_LOCAL_MEM=0)
    speedup=$(awk -v a="${without[0]}" -v b="${with[0]}" 'BEGIN { printf "%.2f", a / b }')
    echo "| $k | $sizes | ${with[0]} | ${with[1]} | ${without[0]} | ${speedup}x |"
  done
done
