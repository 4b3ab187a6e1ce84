#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Direct file I/O into and out of buffers: cmabuf_rw_test (tests/rw/) as
# TAP, on the guest's disks (tests/qemu/boot.sh): the raw one, which the
# test overwrites, as CMABUF_RW_BLOCK, and the ext4 one mounted at
# /mnt/rw-ext4 as CMABUF_RW_FS. A kernel without a block layer, or a
# guest without the disks, runs the tmpfs cases and SKIPs the others,
# saying why. After the run the ext4 file system must unmount (nothing of
# the test left open).
#
#   CMABUF_RW_ARGS  harness options that pick a subset (-f FIXTURE,
#                   -v VARIANT, -t TEST), commas for blanks, for a run by
#                   hand (boot.sh --env)

mnt=/mnt/rw-ext4

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

command -v cmabuf_rw_test >/dev/null || bail "cmabuf_rw_test is not installed"

# The disk whose serial number is $1: its /dev node, or nothing.
disk() {
	for s in /sys/block/*/serial; do
		[ -f "$s" ] && [ "$(cat "$s")" = "$1" ] || continue
		d=${s%/serial}
		echo "/dev/${d##*/}"
		return
	done
}

raw=$(disk cmabuf-raw)
ext4=$(disk cmabuf-ext4)
if [ -n "$raw" ]; then
	export CMABUF_RW_BLOCK="$raw"
else
	echo "# no raw disk (serial cmabuf-raw): the block device cases skip" >&2
fi
mounted=
if [ -n "$ext4" ]; then
	mkdir -p $mnt
	mount -t ext4 "$ext4" $mnt || bail "mount -t ext4 $ext4 $mnt failed"
	mounted=1
	export CMABUF_RW_FS=$mnt
else
	echo "# no ext4 disk (serial cmabuf-ext4): the ext4 cases skip" >&2
fi

# Pieces of 4 MiB (rw_piece_mib, default 256), so that the 16 MiB
# buffers' ranges and a 64 MiB transfer span several: the test reads it.
param=/sys/module/cmabuf/parameters/rw_piece_mib
piece=$(cat $param 2>/dev/null)
[ -n "$piece" ] && echo 4 >$param

# shellcheck disable=SC2046 # one word per option
cmabuf-run --time "${CMABUF_SUITE:-rw}" cmabuf_rw_test \
	$(echo "${CMABUF_RW_ARGS:-}" | tr , ' ')
rc=$?
[ -n "$piece" ] && echo "$piece" >$param
if [ -n "$mounted" ] && ! umount $mnt; then
	echo "# umount $mnt failed: something of the test is still open" >&2
	rc=1
fi
exit $rc
