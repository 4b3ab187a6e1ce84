# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmark suites: run the test bed's workloads
# (cmabuf_testctl bench), pass their JSON documents to the host as
# "# bench-json {...}" TAP comments, one test each.
# With bench_tag set (the memory load a suite runs them under), the
# document says so: "load": "<bench_tag>". The last test's document stays
# in $bench_out for checks made in the guest (bench_results).

n=0
fails=0
bench_tag=
bench_out=${TMPDIR:-/tmp}/bench.json

# bench_tap RC NAME: test line n+1, "ok" when RC is 0. A suite that sourced
# tap-lib.sh numbers its tests through the kernel's KTAP helpers: through
# its ok then, so that the numbers go on from one another.
bench_tap() {
	if command -v ktap_test_pass >/dev/null 2>&1; then
		ok "$1" "$2"
		return
	fi
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

# bench NAME ARGS...: one TAP test that runs "cmabuf_testctl bench ARGS --json".
bench() {
	name=$1
	shift
	out=$(cmabuf_testctl bench "$@" --json 2>/tmp/bench.err)
	rc=$?
	# One document, a result per path and phase in it.
	echo "$out" | grep '^{' |
		sed "${bench_tag:+s/^{\"format\": 1, /&\"load\": \"$bench_tag\", /}" \
		>"$bench_out"
	docs=$(grep -c '^{' "$bench_out")
	results=$(grep -o '"phase": ' "$bench_out" | wc -l)
	sed 's/^/# bench-json /' "$bench_out"
	# What went wrong, and what a loaded run warns about (failed samples).
	sed 's/^/# /' /tmp/bench.err
	if [ $rc -eq 0 ] && [ "$docs" -eq 1 ] && [ "$results" -gt 0 ]; then
		[ -n "$bench_quiet" ] || bench_tap 0 "$name ($results results)"
	else
		[ -n "$bench_quiet" ] || bench_tap 1 "$name (exit $rc)"
		return 1
	fi
}

# bench_results: the results of the last test's document, one a line, each
# starting with its "path" and "phase".
bench_results() {
	awk '{ gsub(/\{"path": "/, "\n{\"path\": \""); print }' "$bench_out" |
		grep '^{"path": '
}

# Does the running kernel's cmabuf have the frozen API (FROZEN, COMPOUND)?
have_frozen() {
	have_strategy frozen
}

# have_strategy NAME: does the running kernel's cmabuf offer strategy NAME?
have_strategy() {
	cmabufctl info 2>/dev/null | grep -qE "^  strategies .*[ ,]$1([ ,]|$)"
}
