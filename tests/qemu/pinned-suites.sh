#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pinned-suites.sh [KERNEL...]: compare the suites boot.sh boots for each
# kernel (its first guest, the guests of suites booted apart, its second
# guest: what check.sh runs) with those tests/suites/EXPECTED pins, for the
# kernels given or for every kernel EXPECTED or SUITES names. Prints one
# line per kernel that differs ("KERNEL: not run: A B; not pinned: C") and
# exits 1 then, or when SUITES names a kernel EXPECTED does not pin. Both
# tiers: "make check" against "KERNEL:", and "make check-full"
# (CMABUF_FULL=1, SUITES' "@full" lines run) against "KERNEL full:" where
# it is pinned, "KERNEL:" where not ("KERNEL full: ..." in the output).
# CMABUF_SUITES_FILE reads another SUITES (the runner's own tests), and
# CMABUF_EXPECTED_FILE another EXPECTED.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
suites_file=${CMABUF_SUITES_FILE:-$top/tests/suites/SUITES}
expected_file=${CMABUF_EXPECTED_FILE:-$top/tests/suites/EXPECTED}

# The pinned suites of a kernel, one a line, sorted: with "full" as $2,
# its "KERNEL full:" line if it has one.
pinned() {
	if [ "${2:-}" = full ] && grep -q "^$1 full:" "$expected_file"; then
		awk -v k="$1" '!/^#/ && $1 == k && $2 == "full:" { for (i = 3; i <= NF; i++) print $i }' \
			"$expected_file" | sort -u
		return
	fi
	awk -v k="$1:" '!/^#/ && $1 == k { for (i = 2; i <= NF; i++) print $i }' \
		"$expected_file" | sort -u
}

# What boot.sh boots for a kernel, one a line, sorted.
booted() {
	{
		bash "$here/boot.sh" --list "$1"
		bash "$here/boot.sh" --list-apart "$1"
		bash "$here/boot.sh" --list --second "$1" 2>/dev/null
	} | tr ' ' '\n' | grep . | sort -u
}

# Every kernel either file names: EXPECTED's "KERNEL:", SUITES' kernel
# lists and its "@cmdline KERNEL" and "@second KERNEL" lines.
all_kernels() {
	{
		awk '!/^#/ && $1 ~ /:$/ { sub(/:$/, "", $1); print $1 }' "$expected_file"
		awk '!/^[#@]/ && NF > 1 { for (i = 2; i <= NF; i++) print $i }
			$1 == "@cmdline" || $1 == "@second" { print $2 }' "$suites_file"
	} | awk '!seen[$0]++'
}

if [ $# -eq 0 ]; then
	mapfile -t kernels < <(all_kernels)
	set -- "${kernels[@]}"
fi
export CMABUF_SUITES_FILE=$suites_file
rc=0
for k in "$@"; do
	if ! grep -q "^$k:" "$expected_file"; then
		echo "$k: not pinned in $(basename "$expected_file")"
		rc=1
		continue
	fi
	last=
	for tier in check full; do
		p=$(pinned "$k" $tier)
		b=$(CMABUF_FULL=$([ $tier = full ] && echo 1 || echo 0) booted "$k")
		missing=$(comm -23 <(echo "$p") <(echo "$b") | xargs)
		extra=$(comm -13 <(echo "$p") <(echo "$b") | xargs)
		diff=
		[ -z "$missing$extra" ] || diff="not run: ${missing:-none}; not pinned: ${extra:-none}"
		# A kernel the tiers run alike is named once.
		if [ -n "$diff" ] && [ "$diff" != "$last" ]; then
			label=$k
			[ $tier = check ] || label="$k full"
			echo "$label: $diff"
			rc=1
		fi
		last=$diff
	done
done
exit $rc
