#!/usr/bin/env bash
# Measures `benchgate leaderboard` on a synthetic board of many submissions
# (see docs/PERFORMANCE.md).
#
#   bash bench/leaderboard.sh [RUNS]
#
# Two measurements, each repeated RUNS times (default 5), medians reported:
#   cold:    1,000 submissions of 500 questions, regenerated with an empty
#            cache (every submission verified, every ranking computed);
#   add one: the same board after one new submission is added, the cache
#            holding the results of the previous run. Each run adds a
#            submission never seen before, so nothing about it is cached.
# Targets: cold under 3 s, add one under 0.5 s, on a 2-core machine.
set -euo pipefail

runs=${1:-${RUNS:-5}}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "bench/leaderboard.sh: RUNS must be a positive integer (got $runs)" >&2
	exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null || { echo "bench/leaderboard.sh: the go command is not on PATH" >&2; exit 2; }
if [[ ! -x /usr/bin/time ]] || ! /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
	echo "bench/leaderboard.sh: GNU time is needed at /usr/bin/time (apt-get install -y time)" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchgate-lb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. bench/lib.sh

base=1000
machine
echo "== generating $base + $runs submissions of 500 questions over 5 benchmarks"
go build -o "$tmp/benchgate" ./cmd/benchgate
go run ./bench/gen -out "$tmp/all" -kind board -submissions $((base + runs)) -benchmarks 5 -questions 500 >/dev/null
mkdir -p "$tmp/board/submissions/model-benchmark"
cp -r "$tmp/all/rubrics" "$tmp/board/"
for i in $(seq 1 $base); do
	cp -r "$tmp/all/submissions/model-benchmark/$(printf 'synth-%04d' "$i")" "$tmp/board/submissions/model-benchmark/"
done
echo "board: $(du -sh "$tmp/board" | cut -f1) on disk"

# run LABEL CACHE: one timed regeneration; prints and records wall seconds.
run() {
	local out
	out=$( { /usr/bin/time -f '%e %U %S %M' "$tmp/benchgate" leaderboard --root "$tmp/board" --out "$tmp/out" --cache "$2" >/dev/null; } 2>&1 | tail -n 1)
	read -r wall user sys rss <<<"$out"
	printf '%s: wall %6.3f s (cpu user+sys %.2f s), max RSS %d KiB\n' "$1" "$wall" "$(echo "$user + $sys" | bc)" "$rss"
	echo "$wall" >>"$tmp/$1.runs"
}

echo
echo "== cold: $base submissions, empty cache"
for i in $(seq 1 "$runs"); do
	rm -rf "$tmp/cache-cold"
	run cold "$tmp/cache-cold"
done

echo
echo "== add one: the cache holds the previous run; one new submission each run"
"$tmp/benchgate" leaderboard --root "$tmp/board" --out "$tmp/out" --cache "$tmp/cache" >/dev/null
for i in $(seq 1 "$runs"); do
	cp -r "$tmp/all/submissions/model-benchmark/$(printf 'synth-%04d' $((base + i)))" "$tmp/board/submissions/model-benchmark/"
	run add-one "$tmp/cache"
done

echo
printf 'cold MEDIAN wall:    %s s (target < 3 s)\n' "$(median <"$tmp/cold.runs")"
printf 'add one MEDIAN wall: %s s (target < 0.5 s)\n' "$(median <"$tmp/add-one.runs")"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
