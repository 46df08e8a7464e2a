#!/usr/bin/env bash
# The main job: compile a bundled kernel with polyc and show what it found.
# Usage: scripts/run-example.sh [KERNEL] (default: jacobi-2d)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
kernel=${1:-jacobi-2d}
src=$(grep -E "/$kernel/$kernel\.c$" polybench/suite/utilities/benchmark_list || true)
if [ -z "$src" ]; then
  echo "run-example: no kernel named '$kernel' in polybench/suite" >&2
  exit 2
fi
cargo build --release -q
polyc=target/release/polyc
echo "== polyc polybench/suite/$src --dump model"
"$polyc" -I polybench/suite/utilities -DMINI_DATASET "polybench/suite/$src" --dump model
echo "== polyc polybench/suite/$src --dump deps"
"$polyc" -I polybench/suite/utilities -DMINI_DATASET "polybench/suite/$src" --dump deps
