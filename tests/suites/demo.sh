#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make demo" in the guest: what the instances are, one buffer allocated,
# checked and shared, and a short benchmark for the host's table.

. /suites/bench-lib.sh

echo "TAP version 13"
echo "1..5"
# step NAME CMD...: one test; the command and its output as TAP comments.
step() {
	name=$1
	shift
	n=$((n + 1))
	echo "# \$ $*"
	"$@" >/tmp/step.out 2>&1
	rc=$?
	sed 's/^/#   /' /tmp/step.out
	if [ $rc -eq 0 ]; then
		echo "ok $n $name"
	else
		echo "not ok $n $name (exit $rc)"
		fails=$((fails + 1))
	fi
}

step "instances and their areas" cmabufctl info
step "64 MiB buffer zeroed, filled and read back" \
	cmabufctl alloc 64M --device general --fill 0x5a --verify
step "shared with vgem" cmabufctl share
if have_frozen; then
	bench "contig-64m, short" contig-64m --strategy compound,frozen,legacy --iterations 10
	bench "gigantic-1g, short" gigantic-1g --strategy compound,frozen,legacy --iterations 5
else
	bench "contig-64m, short" contig-64m --strategy legacy --iterations 10
	bench "gigantic-1g, short" gigantic-1g --strategy legacy --iterations 5
fi
[ $fails -eq 0 ]
