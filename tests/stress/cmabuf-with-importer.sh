#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cmabuf-with-importer COMMAND [ARG...]: run COMMAND with the test importer
# (/dev/cmabuf_importer) loaded, loading cmabuf_importer.ko first if it is
# not, and unloading it after if it was loaded here, which also proves that
# nothing is left held. The exit status is COMMAND's, or 1 when the module
# could not be loaded or unloaded. Installed into the guest's /usr/bin by
# tests/stress/Makefile; the reliability suites run their programs with it.

ko=${CMABUF_IMPORTER_KO:-/lib/modules/cmabuf/cmabuf_importer.ko}

# The CMA areas' page counts the programs compare live in debugfs.
[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

loaded=
if [ ! -e /dev/cmabuf_importer ] && [ -f "$ko" ]; then
	if ! insmod "$ko"; then
		echo "TAP version 13"
		echo "Bail out! insmod $ko failed"
		exit 1
	fi
	loaded=1
fi

"$@"
rc=$?

if [ -n "$loaded" ] && ! rmmod cmabuf_importer; then
	echo "# rmmod cmabuf_importer failed: something is still held"
	[ $rc -ne 0 ] || rc=1
fi
exit $rc
