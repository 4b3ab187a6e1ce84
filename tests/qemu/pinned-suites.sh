#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# pinned-suites.sh [KERNEL...]: compare the suites boot.sh boots for each
# kernel (its first guest, the guests of suites booted apart, its second
# guest: what check.sh runs) with those tests/suites/EXPECTED pins, for the
# kernels given or for every kernel EXPECTED or SUITES names. Prints one
# line per kernel that differs ("KERNEL: not run: A B; not pinned: C") and
# exits 1 then, or when SUITES names a kernel EXPECTED does not pin.
# CMABUF_SUITES_FILE reads another SUITES (the runner's own tests), and
# CMABUF_EXPECTED_FILE another EXPECTED.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
suites_file=${CMABUF_SUITES_FILE:-$top/tests/suites/SUITES}
expected_file=${CMABUF_EXPECTED_FILE:-$top/tests/suites/EXPECTED}

# The pinned suites of a kernel, one a line, sorted.
pinned() {
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
	p=$(pinned "$k")
	b=$(booted "$k")
	missing=$(comm -23 <(echo "$p") <(echo "$b") | xargs)
	extra=$(comm -13 <(echo "$p") <(echo "$b") | xargs)
	if [ -n "$missing$extra" ]; then
		echo "$k: not run: ${missing:-none}; not pinned: ${extra:-none}"
		rc=1
	fi
done
exit $rc
