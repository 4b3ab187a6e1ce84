# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell scripts that print their own TAP (guest suites in
# /suites, and tests/lint.sh on the host): "ok RC NAME" prints test line
# n+1, "ok" when RC is 0, and counts the others in $fails.

n=0
fails=0

ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}
