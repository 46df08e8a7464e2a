#!/usr/bin/env bash
# The main job: compile a bundled kernel with polyc for the best device present (CUDA with nvcc
# and an NVIDIA GPU, else OpenCL — PoCL on the CPU —, else C+OpenMP), build it, run it with
# run-time tile sizes, and check its output against the original program's.
# Usage: scripts/run-example.sh [KERNEL] [DATASET] [TARGET] (defaults: jacobi-2d MEDIUM best)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
kernel=${1:-jacobi-2d}
dataset=${2:-MEDIUM}
target=${3:-}
suite=polybench/suite
src=$(grep -E "/$kernel/$kernel\.c$" $suite/utilities/benchmark_list || true)
if [ -z "$src" ]; then
  echo "run-example: no kernel named '$kernel' in $suite" >&2
  exit 2
fi
src=$suite/${src#./}
dir=$(dirname "$src")
# polyc and avelas-rt's library (libavelas_rt.so, next to polyc).
cargo build --release -q --workspace
polyc=target/release/polyc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-I "$suite/utilities" -I "$dir" "-D${dataset}_DATASET" -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS)

echo "== polyc $src --dump schedule"
"$polyc" "${flags[@]}" "$src" --dump schedule
echo "== polyc build $src (target: ${target:-the best device present})"
"$polyc" build ${target:+--target "$target"} "${flags[@]}" "$src" "$suite/utilities/polybench.c" -o "$work/polyc"
gcc -O2 -ffp-contract=off "${flags[@]}" "$src" "$suite/utilities/polybench.c" -o "$work/original" -lm
echo "== original program ($dataset), seconds:"
"$work/original" 2>"$work/original.dump"
for sizes in 32 16,64,64 3,5,7; do
  echo "== polyc's program, POLYC_TILE_SIZES=$sizes, seconds:"
  POLYC_TILE_SIZES=$sizes POLYC_PROFILE=1 "$work/polyc" 2>"$work/polyc.dump"
  grep '^polyc: ' "$work/polyc.dump" || true
  if grep -v '^polyc' "$work/polyc.dump" | cmp -s - "$work/original.dump"; then
    echo "== array dumps identical ($(wc -l <"$work/original.dump") lines)"
  else
    echo "== array dumps DIFFER" >&2
    grep -v '^polyc' "$work/polyc.dump" | diff - "$work/original.dump" | head >&2
    exit 1
  fi
done
