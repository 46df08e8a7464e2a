#!/usr/bin/env bash
# Install what a fresh Debian machine lacks to build and test polyc. Safe to run again: it
# installs only missing packages (apt-get update once, then one apt-get install).
set -euo pipefail

# autoconf automake libtool: isl-rs builds its bundled isl with autotools.
# gcc (with libgomp): builds the programs polyc generates and the kernels it checks.
# ocl-icd-opencl-dev pocl-opencl-icd clinfo: OpenCL and a CPU OpenCL device (PoCL).
# clang-16: checks generated CUDA and OpenCL C without the vendors' toolkits.
# g++: builds generated CUDA against polyc's CUDA emulator (polybench/cuda-emu) to run it on the CPU.
PACKAGES=(autoconf automake libtool make gcc g++ libc6-dev ocl-icd-opencl-dev pocl-opencl-icd clinfo clang-16)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "setup: missing packages (${missing[*]}) and not root; install them and run again" >&2
      exit 1
    fi
  fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found; install Rust (https://rustup.rs) and run again" >&2
  exit 1
fi

# An isl built before scripts/isl-config.site existed keeps imath's slower integers: isl-rs
# rebuilds only when its own sources change (docs/decisions.md, "isl's integers").
cd "$(dirname "$0")/.."
for profile in debug release; do
  for h in target/"$profile"/build/isl-rs-*/out/isl/isl_config.h; do
    if [ -f "$h" ] && ! grep -q "^#define USE_SMALL_INT_OPT" "$h"; then
      echo "setup: rebuilding isl ($profile) with small-integer arithmetic" >&2
      cargo clean -q -p isl-rs --profile "$([ "$profile" = debug ] && echo dev || echo release)"
      break
    fi
  done
done
