#!/usr/bin/env bash
# The fuzz targets of fuzz/ under libFuzzer (issue 19, item 3), each for SECONDS:
#   syntax          C text in, syntax diagnostics or SCoP regions and FlowGraphs out (no isl)
#   front_end       C text in, diagnostics or models out (one input in 32 with dependences)
#   config_values   the POLYC_* value parsers and the tuning-file parser
#   whole_compiler  random affine programs through every stage, to the three targets
# Corpora start from the suite's kernels, preprocessed without system headers (fuzz/corpus/, not
# kept); a crash or hang is written to fuzz/artifacts/<target>/ and named here: fix it, then copy the input to
# tests/inputs/fuzz/<target>/ (tests replay it on stable in CI: fuzz/tests/replay.rs).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]       # default 600 s each, all four targets
#   JOBS=2 scripts/fuzz.sh 3600 front_end       # libFuzzer workers in parallel
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(syntax front_end config_values whole_compiler)
jobs=${JOBS:-1}
parallel=()
[ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")

rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
scripts/setup.sh
cargo run --release -q -p polyc-fuzz --example seed_corpus -- fuzz/corpus
cargo +nightly fuzz build --features libfuzzer -O

status=0
for t in "${targets[@]}"; do
  mkdir -p "fuzz/artifacts/$t" target/fuzz
  log="target/fuzz/$t.log"
  echo "== $t: $seconds s, $jobs job(s), log $log"
  # -timeout: one input over 60 s is a hang (the bound issue 19 sets for polyc);
  # -rss_limit_mb: the 4 GB bound; -max_len: inputs up to 16 KiB (fuzz/src/lib.rs cuts there).
  start=$(date +%s)
  set +e
  cargo +nightly fuzz run --features libfuzzer -O "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -max_len=16384 \
    "${parallel[@]}" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  # With -jobs, each worker also logs to fuzz-N.log in the current directory; libFuzzer's own
  # output already holds those logs, so they are only removed.
  if [ "$jobs" -gt 1 ]; then rm -f fuzz-*.log; fi
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{s += $2} END {print s + 0}')
  found=$(find "fuzz/artifacts/$t" -type f | wc -l)
  # libFuzzer stops at its first finding, so the run can be shorter than asked.
  echo "$t: $execs executions in $(($(date +%s) - start)) s, exit $rc, $found input(s) in fuzz/artifacts/$t"
  [ "$rc" -eq 0 ] && [ "$found" -eq 0 ] || status=1
done
exit $status
