#!/usr/bin/env bash
# Measures `benchgate verify` on synthetic leaderboards (see docs/PERFORMANCE.md).
#
#   bash bench/verify.sh [RUNS]
#
# RUNS (default 7) is how many times each CLI measurement is repeated; the
# medians are reported. Environment: COUNT (default 5) is the -count of the
# Go benchmarks; PROFILE=1 also prints the top of a CPU profile of
# BenchmarkVerifyMCQ7440.
#
# Targets: the 7,440-question mcq submission in under 1 s wall and under
# 256 MiB peak RSS; the 50-question rubric submission in under 50 ms.
set -euo pipefail

runs=${1:-${RUNS:-7}}
count=${COUNT:-5}
if ! [[ $runs =~ ^[1-9][0-9]*$ && $count =~ ^[1-9][0-9]*$ ]]; then
	echo "bench/verify.sh: RUNS and COUNT must be positive integers (got RUNS=$runs COUNT=$count)" >&2
	exit 2
fi

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ! -x /usr/bin/time ]] || ! /usr/bin/time -f '%e %M' true >/dev/null 2>&1; then
	echo "bench/verify.sh: GNU time is needed at /usr/bin/time to measure peak RSS (with -f '%e %M')." >&2
	echo "Install it, for example with: apt-get install -y time   (as root; the package is named 'time')" >&2
	exit 2
fi
command -v go >/dev/null || { echo "bench/verify.sh: the go command is not on PATH" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/benchgate-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

. bench/lib.sh

machine

echo "== building benchgate and generating leaderboards in $tmp"
go build -o "$tmp/benchgate" ./cmd/benchgate
go run ./bench/gen -out "$tmp/mcq" -kind mcq
go run ./bench/gen -out "$tmp/rubric" -kind rubric
scores="$tmp/mcq/submissions/model-benchmark/synth-model-upstreambench/scores.json"
size=$(stat -c %s "$scores")
awk -v s="$size" 'BEGIN { printf "mcq scores.json: %d bytes (%.1f MB, %.1f MiB)\n", s, s / 1e6, s / 1048576 }'
echo

# measure NAME ROOT runs `benchgate verify --root ROOT` RUNS times and
# writes "wall_ms rss_kib" lines to $tmp/NAME.runs. It also prints the
# process's user+system CPU time: a wall time far above it means the run
# waited for the CPU (other work on the machine).
measure() {
	local name=$1 root=$2 i start end e rss u s ms
	: >"$tmp/$name.runs"
	echo "== benchgate verify --root <$name leaderboard>, $runs runs"
	for ((i = 1; i <= runs; i++)); do
		start=$(date +%s%N)
		if ! /usr/bin/time -f '%e %M %U %S' -o "$tmp/time.out" "$tmp/benchgate" verify --root "$root" >"$tmp/verify.out" 2>&1; then
			echo "benchgate verify failed on the $name leaderboard:" >&2
			cat "$tmp/verify.out" "$tmp/time.out" >&2
			exit 1
		fi
		end=$(date +%s%N)
		if ! grep -q '1 passed, 0 failed, 0 need review' "$tmp/verify.out"; then
			echo "the $name submission did not pass:" >&2
			cat "$tmp/verify.out" >&2
			exit 1
		fi
		read -r e rss u s <"$tmp/time.out"
		ms=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
		echo "$ms $rss" >>"$tmp/$name.runs"
		awk -v i="$i" -v ms="$ms" -v e="$e" -v r="$rss" -v u="$u" -v s="$s" 'BEGIN {
			printf "run %d: wall %7.1f ms (time: %s s, cpu user+sys %.2f s), max RSS %7d KiB (%.1f MiB)\n", i, ms, e, u + s, r, r / 1024 }'
	done
}

report() {
	local name=$1 wall_target_ms=$2 rss_target_mib=$3 wall rss
	wall=$(awk '{ print $1 }' "$tmp/$name.runs" | median)
	rss=$(awk '{ print $2 }' "$tmp/$name.runs" | median)
	awk -v w="$wall" -v r="$rss" -v wt="$wall_target_ms" -v rt="$rss_target_mib" -v n="$name" 'BEGIN {
		printf "%s MEDIAN wall: %.1f ms (target < %d ms: %s)\n", n, w, wt, (w < wt ? "met" : "MISSED")
		printf "%s MEDIAN max RSS: %d KiB = %.1f MiB = %.1f MB", n, r, r / 1024, r * 1024 / 1e6
		if (rt > 0) printf " (target < %d MiB: %s)", rt, (r / 1024 < rt ? "met" : "MISSED")
		printf "\n" }'
}

measure mcq "$tmp/mcq"
report mcq 1000 256
echo
measure rubric "$tmp/rubric"
report rubric 50 0
echo

bench='VerifyMCQ7440|DecodeScoresJSON7440|VerifyRubric50'
echo "== go test -run '^\$' -bench '$bench' -benchmem -count $count ./verify/"
go test -run '^$' -bench "$bench" -benchmem -count "$count" ./verify/ | tee "$tmp/bench.out"
nsop() {
	awk -v b="^Benchmark$1(-[0-9]+)?\$" '$1 ~ b { for (i = 2; i <= NF; i++) if ($i == "ns/op") print $(i - 1) }' "$tmp/bench.out" | median
}
verify_ns=$(nsop VerifyMCQ7440)
decode_ns=$(nsop DecodeScoresJSON7440)
rubric_ns=$(nsop VerifyRubric50)
echo
awk -v v="$verify_ns" -v d="$decode_ns" -v r="$rubric_ns" 'BEGIN {
	printf "MEDIAN BenchmarkVerifyMCQ7440:        %8.1f ms/op\n", v / 1e6
	printf "MEDIAN BenchmarkDecodeScoresJSON7440: %8.1f ms/op\n", d / 1e6
	printf "MEDIAN BenchmarkVerifyRubric50:       %8.2f ms/op\n", r / 1e6
	printf "ratio verify / bare encoding/json decode: %.2fx\n", v / d }'

echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ ${PROFILE:-0} == 1 ]]; then
	echo
	echo "== CPU profile of BenchmarkVerifyMCQ7440 (top 15)"
	go test -run '^$' -bench 'VerifyMCQ7440' -benchtime 20x -count 1 \
		-o "$tmp/verify.test" -cpuprofile "$tmp/cpu.out" ./verify/ >/dev/null
	go tool pprof -top -nodecount 15 "$tmp/verify.test" "$tmp/cpu.out" 2>/dev/null
fi
