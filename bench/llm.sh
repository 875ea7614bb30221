#!/usr/bin/env bash
# Measures llm.Client against the in-process fake endpoint (see
# docs/PERFORMANCE.md, "Calling endpoints").
#
#   bash bench/llm.sh [RUNS]
#
# RUNS (default 3) is how many times each scenario is run; the medians are
# reported. DURATION (default 10s) is how long each run sends.
#
# Targets:
#   concurrency: 16 workers, fake latency 200 ms, no rate limit:
#     at least 90% of the ideal 80 requests/s;
#   rate limit: client RPS 20 against a fake that answers 429 beyond 20/s:
#     at least 95% of 20 requests/s, and no 429.
set -euo pipefail

runs=${1:-${RUNS:-3}}
duration=${DURATION:-10s}
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "bench/llm.sh: RUNS must be a positive integer (got $runs)" >&2
	exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v go >/dev/null || { echo "bench/llm.sh: the go command is not on PATH" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchgate-llm.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. bench/lib.sh

machine

go build -o "$tmp/llmload" ./bench/llmload

# scenario NAME MIN_RATIO NO_429 ARGS... runs llmload RUNS times and
# reports the median achieved rate, its ratio to the ideal, and the most
# 429s in a run; NO_429=1 makes any 429 miss the target.
scenario() {
	local name=$1 target=$2 no429=$3 i
	shift 3
	: >"$tmp/$name.runs"
	echo "== $name: llmload $* -duration $duration, $runs runs"
	for ((i = 1; i <= runs; i++)); do
		"$tmp/llmload" "$@" -duration "$duration" | tee "$tmp/out"
		awk '/^achieved/ { gsub(/,/, ""); print $2, $5, $8, $10 }' "$tmp/out" >>"$tmp/$name.runs"
	done
	local achieved ideal ratio max429
	achieved=$(awk '{ print $1 }' "$tmp/$name.runs" | median)
	ideal=$(awk '{ print $2 }' "$tmp/$name.runs" | median)
	ratio=$(awk '{ print $3 }' "$tmp/$name.runs" | median)
	max429=$(awk '{ print $4 }' "$tmp/$name.runs" | sort -g | tail -1)
	awk -v n="$name" -v a="$achieved" -v i="$ideal" -v r="$ratio" -v m="$max429" -v t="$target" -v z="$no429" 'BEGIN {
		met = r >= t && (z != 1 || m == 0)
		printf "%s MEDIAN achieved %.2f req/s of ideal %.2f: ratio %.3f; most 429s in a run: %d (target ratio >= %.2f%s: %s)\n",
			n, a, i, r, m, t, (z == 1 ? " and no 429" : ""), (met ? "met" : "MISSED") }'
	echo
}

scenario concurrency 0.90 0 -workers 16 -latency 200ms
scenario ratelimit 0.95 1 -workers 16 -latency 200ms -rps 20

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
