#!/usr/bin/env bash
# Write the code polyc generates for the 30 suite kernels on every target into DIR
# (DIR/<kernel>.<target>.c). Take one before and one after a refactor and diff them:
#   scripts/snapshot-generated.sh /tmp/before; ...; scripts/snapshot-generated.sh /tmp/after
#   diff -r /tmp/before /tmp/after
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/snapshot-generated.sh DIR}
mkdir -p "$out"
cargo build -q --bin polyc
inc=polybench/suite/utilities
for src in $(find polybench/suite -name '*.c' -not -path '*/utilities/*' | sort); do
  k=$(basename "$src" .c)
  for target in c opencl cuda; do
    target/debug/polyc "$src" -I "$inc" --target "$target" -o "$out/$k.$target.c"
  done
done
echo "$(ls "$out" | wc -l) files in $out"
