# SPDX-License-Identifier: GPL-2.0
# Sourced by the benchmark suites: run cmabufctl workloads, pass their JSON
# documents to the host as "# bench-json {...}" TAP comments, one test each.

n=0
fails=0

# bench NAME ARGS...: one TAP test that runs "cmabufctl bench ARGS --json".
bench() {
	name=$1
	shift
	out=$(cmabufctl bench "$@" --json 2>/tmp/bench.err)
	rc=$?
	n=$((n + 1))
	# One document, a result per path and phase in it.
	docs=$(echo "$out" | grep -c '^{')
	results=$(echo "$out" | grep '^{' | grep -o '"phase": ' | wc -l)
	echo "$out" | grep '^{' | sed 's/^/# bench-json /'
	if [ $rc -eq 0 ] && [ "$docs" -eq 1 ] && [ "$results" -gt 0 ]; then
		echo "ok $n $name ($results results)"
	else
		echo "not ok $n $name (exit $rc)"
		sed 's/^/# /' /tmp/bench.err
		fails=$((fails + 1))
	fi
}

# Does the running kernel's cmabuf have the frozen API (FROZEN, COMPOUND)?
have_frozen() {
	cmabufctl info 2>/dev/null | grep -q '^  strategies .*frozen'
}
