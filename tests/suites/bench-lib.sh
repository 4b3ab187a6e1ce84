# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmark suites: run cmabufctl workloads, pass their JSON
# results to the host as "# bench-json {...}" TAP comments, one test each.
# With bench_tag set (the memory load a suite runs them under), every
# result says so: "load": "<bench_tag>". The last test's results stay in
# $bench_out for checks made in the guest.

n=0
fails=0
bench_tag=
bench_out=${TMPDIR:-/tmp}/bench.jsonl

# bench NAME ARGS...: one TAP test that runs "cmabufctl bench ARGS --json".
bench() {
	name=$1
	shift
	out=$(cmabufctl bench "$@" --json 2>/tmp/bench.err)
	rc=$?
	n=$((n + 1))
	echo "$out" | grep '^{' |
		sed "${bench_tag:+s/^{\"format\": 1, /&\"load\": \"$bench_tag\", /}" \
		>"$bench_out"
	results=$(grep -c '^{' "$bench_out")
	sed 's/^/# bench-json /' "$bench_out"
	if [ $rc -eq 0 ] && [ "$results" -gt 0 ]; then
		echo "ok $n $name ($results results)"
	else
		echo "not ok $n $name (exit $rc)"
		fails=$((fails + 1))
	fi
	# What went wrong, and what a loaded run warns about (failed samples).
	sed 's/^/# /' /tmp/bench.err
}

# Does the running kernel's cmabuf have the frozen API (FROZEN, COMPOUND)?
have_frozen() {
	cmabufctl info 2>/dev/null | grep -q '^  strategies .*frozen'
}
