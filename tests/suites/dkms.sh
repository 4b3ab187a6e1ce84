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
swap_in "$dkms" "the DKMS build"

# cmabufctl was built from the same VERSION as the module should have been.
want=$(cmabufctl --version | sed -n 's/^cmabufctl //p')
have=$(cat /sys/module/cmabuf/version 2>/dev/null)
[ -n "$want" ] && [ "$have" = "$want" ]
ok $? "its version is the project's ($have, cmabufctl $want)"

devices=0
for d in /dev/cmabuf /dev/cmabuf-*; do
	[ -c "$d" ] && devices=$((devices + 1))
done
out=$(cmabufctl info 2>&1)
[ "$devices" -eq 3 ] && [ "$(echo "$out" | grep -c '^/dev/cmabuf')" -eq 3 ] &&
	echo "$out" | grep -q "^  driver      $want$"
r=$?; ok $r "it serves the 3 instances, and INFO says $want"
[ $r -eq 0 ] || echo "$out" | sed 's/^/# /'

r=0
for d in default general large; do
	out=$(cmabufctl alloc 2M --device $d --fill 0x3c --verify 2>&1) ||
		{ r=1; echo "$out" | sed 's/^/# /'; }
done
ok $r "2 MiB on each instance reads zero, then the fill"

swap_back
[ $fails -eq 0 ]
