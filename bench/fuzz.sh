#!/usr/bin/env bash
# Runs every fuzz target for FUZZTIME (default 60s) beyond its committed
# corpus and prints a markdown table: target, inputs tried, inputs that
# reached new code, and how the run ended. The figures in docs/SECURITY.md
# come from it.
#
#   FUZZTIME=60s bench/fuzz.sh
set -uo pipefail
cd "$(dirname "$0")/.."
time="${FUZZTIME:-60s}"
out="${TMPDIR:-/tmp}/benchgate-fuzz-report.out"
echo "| package | target | inputs tried in $time | new interesting | ended |"
echo "| --- | --- | --- | --- | --- |"
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  pkg="./$(dirname "${file#./}")"
  for target in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$file" | sed 's/^func //'); do
    if go test -run '^$' -fuzz "^$target\$" -fuzztime "$time" "$pkg" >"$out" 2>&1; then
      ended="no failure"
    elif grep -q 'Failing input written' "$out"; then
      ended="FAILURE: $(grep -o 'testdata/fuzz/[^ ]*' "$out" | head -n 1)"
    elif grep -q 'context deadline exceeded' "$out"; then
      ended="no failure (the fuzzer's own deadline)"
    else
      ended="error: $(tail -n 1 "$out")"
    fi
    last=$(grep '^fuzz: elapsed' "$out" | tail -n 1)
    execs=$(sed -n 's/.*execs: \([0-9]*\).*/\1/p' <<<"$last")
    fresh=$(sed -n 's/.*new interesting: \([0-9]*\).*/\1/p' <<<"$last")
    echo "| $pkg | $target | ${execs:-?} | ${fresh:-?} | $ended |"
  done
done
