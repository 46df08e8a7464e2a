#!/usr/bin/env bash
# avelas-rt's unit tests under Miri (issue 19, item 5): the C interface as generated programs call
# it (raw pointers, boxed handles freed by the caller) and the buckets behind it. Miri checks every
# dereference and allocation and reports leaks; the OpenCL and CUDA entries call drivers, which
# Miri cannot run, so their tests are the end-to-end ones. Needs nightly with the miri component:
# installed when missing; when it cannot be installed (no network) the run is skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  if ! rustup toolchain install nightly --profile minimal --component miri,rust-src >/dev/null 2>&1 \
     && ! rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1; then
    echo "skipped: Miri is not installed and rustup could not install it (nightly, component miri)"
    exit 0
  fi
fi
cargo +nightly miri test -q -p avelas-rt --lib
