#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cmabuf reloaded with its default parameters, as a user would load it, so
# that the suites after this one find the dma-heaps. The first suites run
# with heap=0 because a registered dma-heap can never be removed and so
# pins the module, and the lifecycle and security suites must unload it.

ko=/lib/modules/cmabuf/cmabuf.ko
params=/sys/module/cmabuf/parameters

echo "TAP version 13"
echo "1..3"
if [ -d $params ] && [ "$(cat $params/heap)" = Y ]; then
	echo "ok 1 cmabuf is loaded with its defaults # SKIP already loaded with heap=Y"
else
	if [ -d $params ]; then
		rmmod cmabuf
	fi
	insmod "$ko"
	rc=$?
	[ $rc -eq 0 ] && echo "ok 1 cmabuf is loaded with its defaults" ||
		echo "not ok 1 cmabuf is loaded with its defaults (insmod exit $rc)"
fi

# Which instances exist decides which heaps must: cmabuf for the default
# instance, cmabuf-<label> for a labelled one. A module built against a
# kernel that does not export dma_heap_add (6.12) has none and does not
# refer to it.
if ! grep -q dma_heap_add "$ko"; then
	echo "ok 2 a dma-heap per instance # SKIP cmabuf.ko was built without dma_heap_add"
else
	missing=
	for dev in /dev/cmabuf /dev/cmabuf-*; do
		[ -e "$dev" ] || continue
		[ -e "/dev/dma_heap/${dev#/dev/}" ] || missing="$missing ${dev#/dev/}"
	done
	[ -z "$missing" ] && echo "ok 2 a dma-heap per instance" ||
		echo "not ok 2 a dma-heap per instance (missing:$missing)"
fi

# With a heap registered, the module must refuse to go.
if [ -e /dev/dma_heap/cmabuf ]; then
	if rmmod cmabuf 2>/dev/null; then
		echo "not ok 3 rmmod is refused while dma-heaps exist"
		insmod "$ko"
	else
		echo "ok 3 rmmod is refused while dma-heaps exist"
	fi
else
	echo "ok 3 rmmod is refused while dma-heaps exist # SKIP no heap"
fi
