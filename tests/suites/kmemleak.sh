#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Last suite on the debug kernel: ask kmemleak for a scan once everything
# else has run and fail on any leak whose allocation trace passes through
# cmabuf or its importer. Any other leak still shows up as a kmemleak
# report in the console log, which fails the run on the host.
#
# SUITES runs this only where kmemleak is built in: its absence fails. A
# "scan" written to kmemleak runs the scan before the write returns, and
# is refused once kmemleak has turned itself off, so the scans count only
# when both writes succeed.
#
#   CMABUF_KMEMLEAK  kmemleak's file (default /sys/kernel/debug/kmemleak)

km=${CMABUF_KMEMLEAK:-/sys/kernel/debug/kmemleak}

echo "TAP version 13"
if [ ! -f "$km" ]; then
	echo "Bail out! no $km: kmemleak is not in this kernel"
	exit 1
fi
echo "1..2"

# Objects younger than kmemleak's minimum age (5 s) are not reported yet;
# the second scan sees everything the suites left behind.
scanned=0
if echo scan >"$km" && sleep 6 && echo scan >"$km" &&
   cat "$km" >/tmp/kmemleak.txt; then
	scanned=1
fi
if [ $scanned -eq 0 ]; then
	echo "not ok 1 kmemleak scanned (writing scan to $km or reading it failed)"
	echo "not ok 2 no leak allocated by cmabuf or cmabuf_importer # nothing scanned"
	exit 1
fi
leaks=$(grep -c '^unreferenced object' /tmp/kmemleak.txt)
ours=$(awk '/^unreferenced object/ { obj = $0 }
	/cmabuf/ && obj { print obj; obj = "" }' /tmp/kmemleak.txt | grep -c .)

echo "ok 1 kmemleak scanned twice ($leaks unreferenced objects in all)"
echo "# record: kmemleak leaks=$ours"
if [ "$ours" -eq 0 ]; then
	echo "ok 2 no leak allocated by cmabuf or cmabuf_importer"
else
	echo "not ok 2 no leak allocated by cmabuf or cmabuf_importer ($ours)"
	sed 's/^/# /' /tmp/kmemleak.txt | head -n 80
	exit 1
fi
