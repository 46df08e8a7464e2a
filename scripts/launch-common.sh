# Sourced by scripts/launch-batches.sh and scripts/launch-compare.sh (from the repository root,
# after they read their arguments): sets up the machine, builds polyc, and defines `polyc`,
# `suite`, `work` (a scratch directory removed on exit), `kernels` (the remaining arguments, else
# every kernel of the suite) and the profile-line helpers `field`, `median` and `sum`.
scripts/setup.sh
cargo build --release -q --workspace
polyc=$(realpath target/release/polyc)
suite=polybench/suite
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
  mapfile -t kernels < <(grep -v '^#' "$suite/utilities/benchmark_list" | xargs -n1 basename | sed 's/\.c$//')
fi
# Field NAME of the profile line on standard input; the median of numbers, one per line; the
# sum over a profile file's SCoP lines of field NAME.
field() { grep -o " $1=[0-9.]*" | head -1 | cut -d= -f2; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
sum() { grep '^polyc: scop=' "$1" | field "$2" | paste -sd+ | bc; }
