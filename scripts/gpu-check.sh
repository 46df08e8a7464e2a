#!/usr/bin/env bash
# The whole GPU check of the CUDA target (issue 6), in two steps:
#
#   scripts/gpu-check.sh prepare   # here: polyc writes every kernel's .cu (SMALL, MEDIUM)
#                                  # into gpu-pack/, with polyc and avelas-rt's library
#   scripts/gpu-check.sh run [check|sanitize|time|polyc-run]   # on a machine with nvcc and an NVIDIA GPU (the
#                                  # device tool: carry gpu-pack); both parts by default
#
# `run` builds each program with nvcc, runs it at SMALL and MEDIUM with three tile-size
# settings and compares its array dumps with the original program's (gcc); runs
# compute-sanitizer on jacobi-2d, seidel-2d, gemm, lu and adi; and times the CUDA programs
# against the original on the host CPU at LARGE with `polyc bench` (PolyBench's timer, RUNS runs
# each, default 1). Results go to $OUT (or gpu-out/) as check.log, times.md (and bench/),
# sanitizer.log.
set -uo pipefail
cd "$(dirname "$0")/.."
suite=polybench/suite
pack=gpu-pack
kernels=$(grep -v '^#' $suite/utilities/benchmark_list)

prepare() {
  set -e
  scripts/setup.sh
  cargo build --release -q -p avelas-rt
  cargo build --release -q
  rm -rf $pack && mkdir -p $pack
  cp target/release/libavelas_rt.so target/release/polyc $pack/
  # avelas-rt also links the OpenCL ICD loader; the device machine may lack it.
  cp "$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')" $pack/
  for f in $kernels; do
    k=$(basename "$f" .c)
    dir=$suite/$(dirname "$f")
    for ds in SMALL MEDIUM; do
      target/release/polyc -I $suite/utilities -I "$dir" -D${ds}_DATASET "$suite/$f" -o "$pack/$k-$ds.cu"
    done
  done
  echo "gpu-pack: $(ls $pack | wc -l) files, $(du -sh $pack | cut -f1)"
}

# build KERNEL-PATH DATASET: the CUDA program and the original, with dumps (and timer).
build_one() {
  local f=$1 ds=$2 mode=$3
  local k dir flags
  k=$(basename "$f" .c)
  dir=$suite/$(dirname "$f")
  flags="-I $suite/utilities -I $dir -D${ds}_DATASET"
  if [ "$mode" = time ]; then flags="$flags -DPOLYBENCH_TIME"; else flags="$flags -DPOLYBENCH_DUMP_ARRAYS"; fi
  gcc -O3 -ffp-contract=off $flags "$suite/$f" $suite/utilities/polybench.c -o "$work/$k-$ds-$mode-orig" -lm \
    || { echo "BUILD-FAIL orig $k $ds"; return; }
  nvcc -O3 --fmad=false -arch=sm_90 $flags "$pack/$k-$ds.cu" -x cu $suite/utilities/polybench.c \
    -L$pack -lavelas_rt -Xlinker -rpath=$PWD/$pack -lm -o "$work/$k-$ds-$mode-cuda" 2>"$work/$k-$ds-$mode.nvcc" \
    || { echo "BUILD-FAIL cuda $k $ds: $(head -c 600 "$work/$k-$ds-$mode.nvcc")"; return; }
  echo "built $k $ds $mode"
}
export -f build_one
export suite pack

run() {
  part=${1:-all}
  out=${OUT:-gpu-out}
  mkdir -p "$out"
  work=$(mktemp -d)
  export work
  export LD_LIBRARY_PATH=$PWD/$pack:${LD_LIBRARY_PATH:-}
  nvidia-smi -L || true
  nvcc --version | tail -2
  jobs=()
  for f in $kernels; do
    case "$part" in check|all) for ds in SMALL MEDIUM; do jobs+=("$f $ds check"); done ;; esac
    case "$part" in sanitize) jobs+=("$f SMALL check") ;; esac
  done
  if [ ${#jobs[@]} -gt 0 ]; then
    printf '%s\n' "${jobs[@]}" | xargs -P "$(nproc)" -L 1 bash -c 'build_one $0 $1 $2' > "$out/build.log" 2>&1
    grep BUILD-FAIL "$out/build.log"
    echo "== built $(grep -c '^built' "$out/build.log") of ${#jobs[@]} programs"
  fi

  case "$part" in
    check) check; sanitize ;;
    sanitize) sanitize ;;
    polyc-run) polyc_run ;;
    time) times ;;
    *) check; sanitize; times ;;
  esac
  rm -rf "$work"
}

check() {
  : > "$out/check.log"
  pass=0 fail=0
  for f in $kernels; do
    k=$(basename "$f" .c)
    for ds in SMALL MEDIUM; do
      [ -x "$work/$k-$ds-check-cuda" ] || { echo "FAIL $k $ds: not built" >> "$out/check.log"; fail=$((fail+1)); continue; }
      "$work/$k-$ds-check-orig" 2> "$work/ref" >/dev/null
      for sizes in 32 16,8,64 3,5,7; do
        if POLYC_TILE_SIZES=$sizes POLYC_PROFILE=1 timeout 300 "$work/$k-$ds-check-cuda" 2> "$work/got" >/dev/null; then
          prof=$(grep '^polyc: scop' "$work/got" | head -1)
          if grep -v '^polyc' "$work/got" | cmp -s - "$work/ref"; then
            echo "PASS $k $ds sizes=$sizes $prof" >> "$out/check.log"; pass=$((pass+1))
          else
            echo "FAIL $k $ds sizes=$sizes: dumps differ $(grep -v '^polyc' "$work/got" | diff - "$work/ref" | head -3 | tr '\n' ' ')" >> "$out/check.log"; fail=$((fail+1))
          fi
        else
          echo "FAIL $k $ds sizes=$sizes: exit $? $(tail -c 400 "$work/got")" >> "$out/check.log"; fail=$((fail+1))
        fi
      done
    done
  done
  echo "== dumps identical: $pass runs pass, $fail fail (kernels x SMALL,MEDIUM x 3 tile-size settings)"
  grep FAIL "$out/check.log" | head -20
}

sanitize() {
  : > "$out/sanitizer.log"
  for k in jacobi-2d seidel-2d gemm lu adi; do
    exe="$work/$k-SMALL-check-cuda"
    [ -x "$exe" ] || continue
    for tool in memcheck racecheck synccheck; do
      r=$(POLYC_TILE_SIZES=16,8,16 timeout 90 compute-sanitizer --tool $tool "$exe" 2>/dev/null | grep '^=========' | tail -2 | tr '\n' ' ')
      [ -n "$r" ] || r="no report (timed out after 90 s)"
      echo "$k $tool: $r" | tee -a "$out/sanitizer.log"
    done
  done
}

# `polyc run` itself on the device: it must pick CUDA, build with nvcc and run.
polyc_run() {
  local f=stencils/jacobi-2d/jacobi-2d.c dir=$suite/stencils/jacobi-2d
  gcc -O2 -ffp-contract=off -I $suite/utilities -I $dir -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS \
    $suite/$f $suite/utilities/polybench.c -o "$work/orig" -lm
  "$work/orig" 2> "$work/ref" >/dev/null
  POLYC_PROFILE=1 POLYC_TILE_SIZES=16,32,32 $pack/polyc run $suite/$f $suite/utilities/polybench.c \
    -I $suite/utilities -I $dir -DMEDIUM_DATASET -DPOLYBENCH_DUMP_ARRAYS 2> "$work/got" >/dev/null
  grep '^polyc' "$work/got"
  if grep -v '^polyc' "$work/got" | cmp -s - "$work/ref"; then
    echo "polyc run: array dumps identical" | tee "$out/polyc-run.log"
  else
    echo "polyc run: dumps DIFFER" | tee "$out/polyc-run.log"
  fi
}

# The times: `polyc bench` (verified at SMALL, then timed at LARGE against the original on the
# host CPU, tile sizes 32; its Markdown, CSV, JSON and charts go to $out/bench).
times() {
  $pack/polyc bench --polybench $suite --targets cuda --datasets LARGE --verify-dataset SMALL \
    --runs "${RUNS:-1}" --tile-sizes 32 --limit 120 --out "$out/bench"
  cp "$out/bench/bench.md" "$out/times.md"
}

case "${1:-}" in
  prepare) prepare ;;
  run) run "${2:-all}" ;;
  *) echo "usage: scripts/gpu-check.sh prepare|run" >&2; exit 2 ;;
esac
