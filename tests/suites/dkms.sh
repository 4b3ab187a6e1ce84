#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The module DKMS built on the host (tests/install/dkms-test.sh), loaded in
# place of the test bed's build with the same parameters: it must carry
# the project's version and serve every instance, zeroed buffers included;
# then the test bed's build is loaded back as it was (swap-lib.sh).

dkms=/lib/modules/cmabuf-dkms/cmabuf.ko
. /suites/tap-lib.sh
. /suites/swap-lib.sh

swap_begin "$dkms" "module built by DKMS" 6
# The instances the test bed's build serves (Debian's 6.12 has no default).
nodes=
for d in /dev/cmabuf /dev/cmabuf-*; do
	[ -c "$d" ] && nodes="$nodes $d"
done
swap_in "$dkms" "the DKMS build"

# cmabufctl was built from the same VERSION as the module should have been.
want=$(cmabufctl --version | sed -n 's/^cmabufctl //p')
have=$(cat /sys/module/cmabuf/version 2>/dev/null)
[ -n "$want" ] && [ "$have" = "$want" ]
ok $? "its version is the project's ($have, cmabufctl $want)"

now=
for d in /dev/cmabuf /dev/cmabuf-*; do
	[ -c "$d" ] && now="$now $d"
done
count=$(echo $nodes | wc -w)
out=$(cmabufctl info 2>&1)
[ -n "$nodes" ] && [ "$now" = "$nodes" ] &&
	[ "$(echo "$out" | grep -c '^ *driver      '"$want"'$')" -eq "$count" ]
r=$?; ok $r "it serves the $count instances the test bed's build served, and INFO says $want"
[ $r -eq 0 ] || echo "$nodes / $now" "$out" | sed 's/^/# /'

r=0
for d in $nodes; do
	out=$(cmabufctl alloc 2M --device "$d" --fill 0x3c --verify 2>&1) ||
		{ r=1; echo "$out" | sed 's/^/# /'; }
done
ok $r "2 MiB on each instance reads zero, then the fill"

swap_back
[ $fails -eq 0 ]
