#!/usr/bin/env bash
# The C target's array dumps against the original program's, exactly, for one kernel of the
# bundled suite at each DATASET: the program polyc compiled for that dataset, run with the cost
# model's own choice, in the original order (the untiled path, jammed rows included), and then
# tiled (POLYC_MIN_POINTS=0) at the default sizes and at many POLYC_TILE_SIZES settings (sizes that register blocks
# divide and sizes they do not, sizes outside the full tiles' specialised ones), on one and two
# threads. Both programs are built with gcc -O2 (or $OPT, e.g. OPT="-O3 -march=native", which
# vectorises what POLYC_IVDEP marks) -ffp-contract=off, so only the order of operations could
# tell them apart. Prints a line per differing run and a summary; exit status 1 if any differed.
#
#   scripts/c-dump-check.sh KERNEL [DATASET...]          # default SMALL MEDIUM
set -euo pipefail
cd "$(dirname "$0")/.."
kernel=$1
shift
if [ $# -eq 0 ]; then datasets=(SMALL MEDIUM); else datasets=("$@"); fi
src=$(find polybench/suite -name "$kernel.c" ! -path "*utilities*" | head -1)
[ -n "$src" ] || { echo "no kernel $kernel in polybench/suite" >&2; exit 1; }
u=polybench/suite/utilities
work=target/c-dump-check/$kernel
mkdir -p "$work"
sizes=(plain lines tiles 32 1 3 5 16 64 8,32,32 16,16,16 6,16,16 2,32,16 4,64,32 3,32,5 7 300 32,128,64
  2,256,16 32,48,32 4,96,16 8,80,24 48)
fail=0
read -r -a opt <<<"${OPT:--O2}"
for ds in "${datasets[@]}"; do
  flags=("${opt[@]}" -I "$u" -I "$(dirname "$src")" -D"${ds}_DATASET" -DPOLYBENCH_DUMP_ARRAYS -ffp-contract=off)
  gcc "${flags[@]}" "$src" "$u/polybench.c" -lm -o "$work/orig-$ds"
  "$work/orig-$ds" 2> "$work/orig-$ds.dump" > /dev/null
  target/release/polyc "$src" -I "$u" -D"${ds}_DATASET" -o "$work/polyc-$ds.c"
  gcc "${flags[@]}" -fopenmp "$work/polyc-$ds.c" "$u/polybench.c" -lm -o "$work/polyc-$ds"
  for ts in "${sizes[@]}"; do
    for th in 1 2; do
      if [ "$ts" = plain ]; then
        env=(OMP_NUM_THREADS=$th)
      elif [ "$ts" = tiles ]; then
        # Tiled at the default sizes (a stencil's time tile of 8, a reduction's rows).
        env=(OMP_NUM_THREADS=$th POLYC_MIN_POINTS=0)
      elif [ "$ts" = lines ]; then
        # The original order that runs where tiles do not pay (jammed rows where a loop
        # qualifies, codegen/src/jam.rs), at any size.
        env=(OMP_NUM_THREADS=$th POLYC_MIN_POINTS=1000000000000000)
      else
        env=(OMP_NUM_THREADS=$th POLYC_MIN_POINTS=0 POLYC_TILE_SIZES=$ts)
      fi
      env "${env[@]}" "$work/polyc-$ds" 2> "$work/run.dump" > /dev/null
      if ! cmp -s "$work/run.dump" "$work/orig-$ds.dump"; then
        echo "$kernel $ds ${env[*]}: the dumps differ"
        fail=1
      fi
    done
  done
done
if [ $fail = 0 ]; then
  echo "$kernel: the dumps equal the original's (${datasets[*]}, ${#sizes[@]} settings, 1 and 2 threads)"
fi
exit $fail
