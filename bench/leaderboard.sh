#!/usr/bin/env bash
# Measures `benchgate leaderboard` on a synthetic board of many submissions
# (see docs/PERFORMANCE.md).
#
#   bash bench/leaderboard.sh [RUNS]
#   BASE=<git revision> bash bench/leaderboard.sh [RUNS]
#
# Two measurements, each repeated RUNS times (default 5), medians reported:
#   cold:    1,000 submissions of 500 questions, regenerated with an empty
#            cache (every submission verified, every ranking computed);
#   add one: the same board after one new submission is added, the cache
#            holding the results of the previous run. Each run adds a
#            submission never seen before, so nothing about it is cached.
# Targets: cold under 3 s, add one under 0.5 s, on a 2-core machine.
#
# With BASE, the benchgate of that revision is built too and the two are
# run in turn, run for run, on the same board: the machine's speed and its
# other work then weigh on both alike, and the ratio of the medians
# compares the builds.
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
base_rev=${BASE:-}
if [[ -n $base_rev ]] && ! git rev-parse --verify --quiet "$base_rev^{commit}" >/dev/null; then
	echo "bench/leaderboard.sh: BASE=$base_rev is not a commit of this repository" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchgate-lb.XXXXXX")
cleanup() {
	[[ -n $base_rev ]] && git worktree remove --force "$tmp/base-src" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

. bench/lib.sh

base=1000
machine
builds=(new)
go build -o "$tmp/new" ./cmd/benchgate
echo "new: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo ' with uncommitted changes')"
if [[ -n $base_rev ]]; then
	git worktree add --quiet --detach "$tmp/base-src" "$base_rev"
	(cd "$tmp/base-src" && go build -o "$tmp/base" ./cmd/benchgate)
	builds=(base new)
	echo "base: $(git rev-parse --short "$base_rev")"
fi
echo
echo "== generating $base + $runs submissions of 500 questions over 5 benchmarks"
go run ./bench/gen -out "$tmp/all" -kind board -submissions $((base + runs)) -benchmarks 5 -questions 500 >/dev/null
mkdir -p "$tmp/board/submissions/model-benchmark"
cp -r "$tmp/all/rubrics" "$tmp/board/"
for i in $(seq 1 $base); do
	cp -r "$tmp/all/submissions/model-benchmark/$(printf 'synth-%04d' "$i")" "$tmp/board/submissions/model-benchmark/"
done
echo "board: $(du -sh "$tmp/board" | cut -f1) on disk"

# run BUILD LABEL CACHE: one timed regeneration by BUILD; prints and
# records its wall seconds in $tmp/BUILD-LABEL.runs.
run() {
	local out wall user sys rss
	out=$( { /usr/bin/time -f '%e %U %S %M' "$tmp/$1" leaderboard --root "$tmp/board" --out "$tmp/out-$1" --cache "$3" >/dev/null; } 2>&1 | tail -n 1)
	read -r wall user sys rss <<<"$out"
	printf '%-4s %-8s wall %6.3f s (cpu user+sys %.2f s), max RSS %d KiB\n' "$1" "$2:" "$wall" "$(echo "$user + $sys" | bc)" "$rss"
	echo "$wall" >>"$tmp/$1-$2.runs"
}

echo
echo "== cold: $base submissions, empty cache"
for i in $(seq 1 "$runs"); do
	for b in "${builds[@]}"; do
		rm -rf "$tmp/cache-cold"
		run "$b" cold "$tmp/cache-cold"
	done
done

echo
echo "== add one: the cache holds the previous run; one new submission each run"
for b in "${builds[@]}"; do
	"$tmp/$b" leaderboard --root "$tmp/board" --out "$tmp/out-$b" --cache "$tmp/cache-$b" >/dev/null
done
for i in $(seq 1 "$runs"); do
	cp -r "$tmp/all/submissions/model-benchmark/$(printf 'synth-%04d' $((base + i)))" "$tmp/board/submissions/model-benchmark/"
	for b in "${builds[@]}"; do
		run "$b" add-one "$tmp/cache-$b"
	done
done

echo
for b in "${builds[@]}"; do
	printf '%-4s cold MEDIAN wall:    %s s (target < 3 s)\n' "$b" "$(median <"$tmp/$b-cold.runs")"
	printf '%-4s add one MEDIAN wall: %s s (target < 0.5 s)\n' "$b" "$(median <"$tmp/$b-add-one.runs")"
done
if [[ -n $base_rev ]]; then
	for m in cold add-one; do
		printf 'new / base, %s: %.3f\n' "$m" "$(echo "$(median <"$tmp/new-$m.runs") / $(median <"$tmp/base-$m.runs")" | bc -l)"
	done
fi
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
