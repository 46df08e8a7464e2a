#!/usr/bin/env bash
# check-suite.sh - build and run every kernel of the polyc kernel suite and
# check the results.
#
# Usage: utilities/check-suite.sh [-v] [kernel-path-or-name ...]
#   (from anywhere; with no argument every kernel of utilities/benchmark_list)
#   -v   print the reason of every failed check
# Environment: CC (default gcc), RUN_TIMEOUT (seconds per run, default 300).
#
# Per kernel, with -Wall -Wextra:
#   * MINI, SMALL and MEDIUM at -O2 with -DPOLYBENCH_DUMP_ARRAYS: builds
#     without any warning, exits 0, the dump is framed by the BEGIN/END
#     lines, holds at least one array, no nan/inf, not all values equal;
#   * MINI at -O0 and -O3: dumps identical to the -O2 one (catches
#     undefined behaviour; the two runs also get fresh heap memory filled
#     with different garbage through glibc's MALLOC_PERTURB_, which catches
#     reads of uninitialised arrays);
#   * MINI with -DPOLYBENCH_USE_C99_PROTO and with -DPOLYBENCH_USE_SCALAR_LB:
#     builds and gives the same dump as the default build (for SCALAR_LB
#     unused-parameter warnings are allowed: the size parameters are then
#     unused by construction);
#   * MINI with -DDATA_TYPE_IS_FLOAT (not for the integer kernels): builds
#     without warning, runs, dump finite and not constant;
#   * MINI with -DPOLYBENCH_TIME: prints one line "%0.6f" on stdout.
# One line per kernel, PASS or FAIL, then a summary; exit status 1 if any
# kernel failed.

set -u

SUITE=$(cd "$(dirname "$0")/.." && pwd)
cd "$SUITE" || exit 2
CC=${CC:-gcc}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
VERBOSE=0
if [ "${1:-}" = "-v" ]; then VERBOSE=1; shift; fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/polyc-suite.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT

if [ $# -gt 0 ]; then
  KERNELS=()
  for a in "$@"; do
    m=$(grep -E "(^|/)${a%.c}(/[^/]+\.c|\.c)$" utilities/benchmark_list | head -n 1)
    if [ -z "$m" ]; then echo "unknown kernel: $a" >&2; exit 2; fi
    KERNELS+=("$m")
  done
else
  mapfile -t KERNELS < <(grep -v '^[[:space:]]*$' utilities/benchmark_list)
fi

REASONS=""
fail() { REASONS="$REASONS; $1"; }

# build TAG OPT "EXTRA FLAGS" ALLOW_UNUSED_PARAM -> $TMP/TAG.exe, warnings checked
build() {
  local tag=$1 opt=$2 flags=$3 allow=$4 extra=""
  [ "$allow" = 1 ] && extra="-Wno-unused-parameter"
  # shellcheck disable=SC2086
  if ! "$CC" "$opt" -Wall -Wextra $extra -I utilities $flags \
       utilities/polybench.c "$SRC" -lm -o "$TMP/$tag.exe" 2> "$TMP/$tag.cc"; then
    fail "$tag: compile error"
    [ "$VERBOSE" = 1 ] && sed 's/^/    /' "$TMP/$tag.cc" >&2
    return 1
  fi
  if [ -s "$TMP/$tag.cc" ]; then
    fail "$tag: compiler warnings"
    [ "$VERBOSE" = 1 ] && sed 's/^/    /' "$TMP/$tag.cc" >&2
  fi
  return 0
}

# run TAG [PERTURB] -> $TMP/TAG.out (stdout), $TMP/TAG.err (stderr)
# PERTURB, when given, makes glibc fill fresh heap blocks with that byte
# pattern, so reads of uninitialised arrays change the results.
run() {
  local tag=$1 perturb=${2:-} rc
  if [ -n "$perturb" ]; then
    MALLOC_PERTURB_=$perturb timeout "$RUN_TIMEOUT" "$TMP/$tag.exe" \
      > "$TMP/$tag.out" 2> "$TMP/$tag.err"
  else
    timeout "$RUN_TIMEOUT" "$TMP/$tag.exe" > "$TMP/$tag.out" 2> "$TMP/$tag.err"
  fi
  rc=$?
  if [ $rc -ne 0 ]; then fail "$tag: exit status $rc"; return 1; fi
  return 0
}

# check_dump TAG: framing, finiteness, variety
check_dump() {
  local tag=$1 f="$TMP/$1.err" msg
  msg=$(awk '
    NR == 1 { if ($0 != "==BEGIN DUMP_ARRAYS==") bad = bad " no-BEGIN-line"; next }
    { last = $0 }
    /^begin dump: / { inside = 1; arrays++; next }
    /^end   dump: / { inside = 0; next }
    /^==END   DUMP_ARRAYS==$/ { next }
    inside {
      for (k = 1; k <= NF; k++) {
        v = tolower($k); n++
        if (v ~ /nan|inf/) nonfinite++
        if (!(v in seen)) { seen[v] = 1; distinct++ }
      }
      next
    }
    NF > 0 { stray++ }
    END {
      if (NR == 0) { print " empty-dump"; exit }
      if (last != "==END   DUMP_ARRAYS==") bad = bad " no-END-line"
      if (arrays == 0) bad = bad " no-array"
      if (n == 0) bad = bad " no-values"
      if (nonfinite > 0) bad = bad " nan/inf(" nonfinite ")"
      if (n > 1 && distinct < 2) bad = bad " all-values-equal"
      if (stray > 0) bad = bad " text-outside-arrays"
      print bad
    }' "$f")
  if [ -n "$msg" ]; then fail "$tag: dump$msg"; return 1; fi
  return 0
}

PASSED=0
FAILED=0
for SRC in "${KERNELS[@]}"; do
  REASONS=""
  HDR="${SRC%.c}.h"
  IS_INT=0
  grep -qE '^#[[:space:]]*define[[:space:]]+DATA_TYPE_IS_INT[[:space:]]*$' "$HDR" && IS_INT=1

  # the three datasets at -O2
  for D in MINI SMALL MEDIUM; do
    build "$D" -O2 "-DPOLYBENCH_DUMP_ARRAYS -D${D}_DATASET" 0 &&
      run "$D" && check_dump "$D"
  done

  # optimisation levels must not change the results (the two runs also
  # fill fresh heap memory with different garbage)
  for O in O0 O3; do
    if [ $O = O0 ]; then P=85; else P=170; fi
    build "MINI-$O" "-$O" "-DPOLYBENCH_DUMP_ARRAYS -DMINI_DATASET" 0 &&
      run "MINI-$O" $P &&
      { cmp -s "$TMP/MINI.err" "$TMP/MINI-$O.err" || fail "MINI-$O: dump differs from -O2"; }
  done
  [ -s "$TMP/MINI-O0.err" ] && [ -s "$TMP/MINI-O3.err" ] &&
    { cmp -s "$TMP/MINI-O0.err" "$TMP/MINI-O3.err" || fail "MINI: -O0 and -O3 dumps differ"; }

  # interface variants
  build C99 -O2 "-DPOLYBENCH_DUMP_ARRAYS -DMINI_DATASET -DPOLYBENCH_USE_C99_PROTO" 0 &&
    run C99 && { cmp -s "$TMP/MINI.err" "$TMP/C99.err" || fail "C99: dump differs"; }
  build SCALAR_LB -O2 "-DPOLYBENCH_DUMP_ARRAYS -DMINI_DATASET -DPOLYBENCH_USE_SCALAR_LB" 1 &&
    run SCALAR_LB && { cmp -s "$TMP/MINI.err" "$TMP/SCALAR_LB.err" || fail "SCALAR_LB: dump differs"; }
  if [ $IS_INT = 0 ]; then
    build FLOAT -O2 "-DPOLYBENCH_DUMP_ARRAYS -DMINI_DATASET -DDATA_TYPE_IS_FLOAT" 0 &&
      run FLOAT && check_dump FLOAT
  fi
  build TIME -O2 "-DMINI_DATASET -DPOLYBENCH_TIME" 0 && run TIME &&
    { grep -qE '^[0-9]+\.[0-9]{6}$' "$TMP/TIME.out" && [ "$(wc -l < "$TMP/TIME.out")" -eq 1 ] ||
        fail "TIME: no time line on stdout"; }

  name=${SRC%.c}; name=${name%/*}
  if [ -z "$REASONS" ]; then
    printf 'PASS  %s\n' "$name"
    PASSED=$((PASSED + 1))
  else
    printf 'FAIL  %s: %s\n' "$name" "${REASONS#; }"
    FAILED=$((FAILED + 1))
  fi
  rm -f "$TMP"/*
done

echo "summary: $PASSED passed, $FAILED failed, $((PASSED + FAILED)) kernels"
[ $FAILED -eq 0 ]
