#!/usr/bin/env bash
# The main job: compile a bundled kernel with polyc, build the result, run it, and check its output
# against the original program's.
# Usage: scripts/run-example.sh [KERNEL] [DATASET] (defaults: jacobi-2d MEDIUM)
#
# Today the best target polyc has is C+OpenMP (scheduled with Pluto, untiled); the OpenCL and CUDA
# targets arrive with issues 5 and 6 and will be picked here when a device is present.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
kernel=${1:-jacobi-2d}
dataset=${2:-MEDIUM}
suite=polybench/suite
src=$(grep -E "/$kernel/$kernel\.c$" $suite/utilities/benchmark_list || true)
if [ -z "$src" ]; then
  echo "run-example: no kernel named '$kernel' in $suite" >&2
  exit 2
fi
src=$suite/${src#./}
dir=$(dirname "$src")
cargo build --release -q
polyc=target/release/polyc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-I "$suite/utilities" -I "$dir" "-D${dataset}_DATASET")

echo "== polyc $src --dump schedule"
"$polyc" "${flags[@]}" "$src" --dump schedule
echo "== polyc $src --target c --no-tile -o $kernel.polyc.c"
"$polyc" "${flags[@]}" "$src" --target c --no-tile -o "$work/$kernel.polyc.c"

cc=(gcc -O2 -ffp-contract=off "${flags[@]}" -DPOLYBENCH_TIME -DPOLYBENCH_DUMP_ARRAYS)
"${cc[@]}" "$src" "$suite/utilities/polybench.c" -o "$work/original" -lm
"${cc[@]}" -fopenmp "$work/$kernel.polyc.c" "$suite/utilities/polybench.c" -o "$work/polyc" -lm
threads=$(nproc)
echo "== original program ($dataset), seconds:"
"$work/original" 2>"$work/original.dump"
echo "== polyc's program, OMP_NUM_THREADS=$threads, seconds:"
OMP_NUM_THREADS=$threads "$work/polyc" 2>"$work/polyc.dump"
if cmp -s "$work/original.dump" "$work/polyc.dump"; then
  echo "== array dumps identical ($(wc -l <"$work/original.dump") lines)"
else
  echo "== array dumps DIFFER" >&2
  diff "$work/original.dump" "$work/polyc.dump" | head >&2
  exit 1
fi
