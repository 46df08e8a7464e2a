#!/usr/bin/env bash
# Random programs of jammed-rows shape (polybench::jam_shapes) against gcc's build of the
# original, exactly: polyc's C target run in the original order whatever the size
# (POLYC_MIN_POINTS past any size: jammed rows where a loop qualifies), with the cost model's
# choice on two threads, and tiled at sizes 3,5. Prints a line per failure and a summary with
# how many programs had jammed rows; exit status 1 if any failed. tests/jammed_rows.rs runs the
# first 40 seeds in CI. With --folds, the programs of folded shape (polybench::fold_shapes:
# integer max/min/bitwise folds, nussinov's kind of nest).
#
#   scripts/jam-shapes.sh FIRST LAST [--folds]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release -q
cargo build --release -q -p polybench --example jam_shape
polyc=$PWD/target/release/polyc
gen=$PWD/target/release/examples/jam_shape
work=target/jam-shapes
mkdir -p "$work"
cd "$work"
jammed=0 fail=0 n=0
for seed in $(seq "$1" "$2"); do
  "$gen" "$seed" ${3:-} > "p$seed.c"
  gcc -O2 -ffp-contract=off "p$seed.c" -o orig && ./orig > orig.out
  # --no-reductions: the tiled run would sum a reduction by rows (`y[0] += ...`), which rounds
  # otherwise in the last bits (docs/decisions.md); jammed rows are exact either way.
  if ! "$polyc" --no-reductions "p$seed.c" -o "q$seed.c" 2> err.txt; then
    echo "seed $seed: polyc failed: $(head -3 err.txt)"; fail=$((fail + 1)); continue
  fi
  if grep -q polyc_jb_ "q$seed.c"; then jammed=$((jammed + 1)); fi
  if ! gcc -O2 -ffp-contract=off -fopenmp "q$seed.c" $("$polyc" --print-cflags) -o new \
      $("$polyc" --print-libs) 2> err.txt; then
    echo "seed $seed: gcc rejects polyc's code: $(head -3 err.txt)"; fail=$((fail + 1)); continue
  fi
  for e in "POLYC_MIN_POINTS=1000000000000000" "OMP_NUM_THREADS=2" \
      "POLYC_MIN_POINTS=0 POLYC_TILE_SIZES=3,5"; do
    env $e ./new > new.out 2> /dev/null || true
    if ! cmp -s orig.out new.out; then echo "seed $seed ($e): differs"; fail=$((fail + 1)); fi
  done
  n=$((n + 1))
done
echo "jam-shapes: $n programs, $jammed with jammed rows, $fail failures"
[ "$fail" = 0 ]
