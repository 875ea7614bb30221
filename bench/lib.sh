# Shared by the bench/*.sh scripts: source it after cd to the repository.

# median reads numbers, one a line, and prints their median.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "NaN"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# machine prints what the figures were measured on; other work on the
# machine inflates them, so the load average is part of it.
machine() {
	echo "== machine"
	echo "cores (nproc): $(nproc)"
	echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "$(go version)"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
}
