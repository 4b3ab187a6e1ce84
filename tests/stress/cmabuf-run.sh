#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cmabuf-run [--importer] [--restore] [--time NAME] COMMAND [ARG...]
# cmabuf-run --params
#
# Run a reliability program in the guest, with what it needs around it:
#   --importer  the test importer (/dev/cmabuf_importer) loaded for the
#               run, loaded here if it is not and then unloaded, which
#               also proves that nothing is left held;
#   --restore   cmabuf loaded afterwards exactly as it was before (same
#               parameters), for programs that unload and reload it;
#   --time      "# NAME suite: N s" printed at the end;
#   --params    only print cmabuf's parameters as insmod takes them
#               (for the suites that swap builds, swap-lib.sh).
# The exit status is COMMAND's, or 1 when a module could not be loaded,
# unloaded or restored. Installed into the guest's /usr/bin by
# tests/stress/Makefile.

importer_ko=/lib/modules/cmabuf/cmabuf_importer.ko
cmabuf_ko=/lib/modules/cmabuf/cmabuf.ko
params=/sys/module/cmabuf/parameters

# cmabuf's parameters as insmod takes them: those this build has.
cmabuf_params() {
	[ -d $params ] || return 1
	for p in "$params"/*; do
		printf '%s=%s ' "${p##*/}" "$(cat "$p")"
	done
}

importer=
restore=
name=
while [ $# -gt 0 ]; do
	case $1 in
	--importer) importer=1 ;;
	--restore) restore=1 ;;
	--time) name=$2; shift ;;
	--params) cmabuf_params; exit ;;
	*) break ;;
	esac
	shift
done

# The CMA areas' page counts the programs compare live in debugfs.
[ -d /sys/kernel/debug/cma ] ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

before=$(cmabuf_params)
loaded=
if [ -n "$importer" ] && [ ! -e /dev/cmabuf_importer ]; then
	if ! insmod "$importer_ko"; then
		echo "TAP version 13"
		echo "Bail out! insmod $importer_ko failed"
		exit 1
	fi
	loaded=1
fi

start=$(date +%s)
"$@"
rc=$?

if [ -n "$loaded" ] && ! rmmod cmabuf_importer; then
	echo "# rmmod cmabuf_importer failed: something is still held"
	rc=1
fi
if [ -n "$restore" ] && [ "$(cmabuf_params)" != "$before" ]; then
	echo "# loading cmabuf back with $before"
	[ -d $params ] && rmmod cmabuf
	# shellcheck disable=SC2086 # one word per parameter
	if ! insmod "$cmabuf_ko" $before; then
		echo "# could not load cmabuf back as it was"
		rc=1
	fi
fi
[ -n "$name" ] && echo "# $name suite: $(($(date +%s) - start)) s"
exit $rc
