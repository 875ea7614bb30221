#!/usr/bin/env bash
# Measures llm.Client against the in-process fake endpoint (see
# docs/PERFORMANCE.md, "Calling endpoints").
#
#   bash bench/llm.sh [RUNS]
#
# RUNS (default 3) is how many times each scenario is run; the medians are
# reported. DURATION (default 10s) is how long each run sends. SCENARIOS,
# when set, names the scenarios to run, separated by spaces (default: all).
#
# Targets:
#   concurrency: 16 workers, fake latency 200 ms, no rate limit:
#     at least 90% of the ideal 80 requests/s;
#   rate limit: client RPS 20 against a fake that answers 429 beyond 20/s:
#     at least 95% of 20 requests/s, and no 429;
#   server concurrency: 16, then 32 workers against a fake that answers
#     429 to a call beyond 4 at once, latency 200 ms: no call failed, and
#     at least 90% of the ideal client's 20 requests/s (4 in flight all the
#     time).
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

# scenario NAME MIN_RATIO MUST ARGS... runs llmload RUNS times and
# reports the median achieved rate, its ratio to the ideal, the most 429s
# in a run, and the median and most failed calls; MUST is no429 when any
# 429 misses the target, nofail when any failed call does, - otherwise.
scenario() {
	local name=$1 target=$2 must=$3 i
	shift 3
	if [[ -n ${SCENARIOS:-} && " $SCENARIOS " != *" $name "* ]]; then
		return
	fi
	: >"$tmp/$name.runs"
	echo "== $name: llmload $* -duration $duration, $runs runs"
	for ((i = 1; i <= runs; i++)); do
		"$tmp/llmload" "$@" -duration "$duration" | tee "$tmp/out"
		awk '/^achieved/ { gsub(/[,(%)]/, ""); print $2, $5, $8, $10, $12, $14, $15 }' "$tmp/out" >>"$tmp/$name.runs"
	done
	local achieved ideal ratio max429 failed maxfailed share
	achieved=$(awk '{ print $1 }' "$tmp/$name.runs" | median)
	ideal=$(awk '{ print $2 }' "$tmp/$name.runs" | median)
	ratio=$(awk '{ print $3 }' "$tmp/$name.runs" | median)
	max429=$(awk '{ print $4 }' "$tmp/$name.runs" | sort -g | tail -1)
	failed=$(awk '{ print $5 }' "$tmp/$name.runs" | median)
	maxfailed=$(awk '{ print $5 }' "$tmp/$name.runs" | sort -g | tail -1)
	share=$(awk '{ print $7 }' "$tmp/$name.runs" | median)
	awk -v n="$name" -v a="$achieved" -v i="$ideal" -v r="$ratio" -v m="$max429" -v t="$target" -v z="$must" \
		-v f="$failed" -v mf="$maxfailed" -v s="$share" 'BEGIN {
		met = r >= t && (z != "no429" || m == 0) && (z != "nofail" || mf == 0)
		printf "%s MEDIAN achieved %.2f req/s of ideal %.2f: ratio %.3f; failed calls %d (%.1f%%), most in a run %d; most 429s in a run: %d (target ratio >= %.2f%s: %s)\n",
			n, a, i, r, f, s, mf, m, t, (z == "no429" ? " and no 429" : z == "nofail" ? " and no failed call" : ""), (met ? "met" : "MISSED") }'
	echo
}

scenario concurrency 0.90 - -workers 16 -latency 200ms
scenario ratelimit 0.95 no429 -workers 16 -latency 200ms -rps 20
scenario server-concurrency-16 0.90 nofail -workers 16 -latency 200ms -server-concurrency 4
scenario server-concurrency-32 0.90 nofail -workers 32 -latency 200ms -server-concurrency 4

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
