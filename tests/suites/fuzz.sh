#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fuzz: cmabuf_fuzz (tests/fuzz/) against every instance, the test
# importer and the dma-heaps, as TAP.
#
#   CMABUF_FUZZ_OPS      operations to run (default 100000, 30000 on the
#                        debug kernel, where the fuzzer's operations with
#                        PREPARE and deferred frees ran 82 a second beside
#                        two other guests, 25000 with 16 or 64 KiB pages,
#                        where every buffer is at least that page and
#                        73915 ran in 300 s beside a kernel build: these
#                        kernels' guests run in every make check, in the
#                        lane of the 4 KiB ones; "make soak" asks for
#                        10000000; 20000 on a stock Debian kernel, whose
#                        lanes run a short fuzz)
#   CMABUF_FUZZ_SCALE    times the default operations and budget (make
#                        check-full: 3)
#   CMABUF_FUZZ_SECONDS  time budget; fewer operations than asked fail the
#                        run (default: 600 on the debug kernel, 300
#                        elsewhere, none when more than the default
#                        operations are asked for)
#   CMABUF_FUZZ_MIN_OPS  fewer operations than this fail the run (default:
#                        CMABUF_FUZZ_OPS; fuzz-load asks for fewer, since
#                        under load one operation can take seconds)
#   CMABUF_FUZZ_SEED     replay a seed (default: a new one, printed)
#
# The program prints "# record: fuzz ops=N seed=S pages_lost=P".

case $CMABUF_KERNEL in
stock-*) ops=${CMABUF_FUZZ_OPS:-20000} budget=300 ;;
*-debug) ops=${CMABUF_FUZZ_OPS:-30000} budget=600 ;;
*-64k | *-16k) ops=${CMABUF_FUZZ_OPS:-25000} budget=300 ;;
*) ops=${CMABUF_FUZZ_OPS:-100000} budget=300 ;;
esac
# make check-full's long fuzz: CMABUF_FUZZ_SCALE times the operations
# and the time budget.
scale=${CMABUF_FUZZ_SCALE:-1}
ops=$((ops * scale)) budget=$((budget * scale))
[ "$ops" -gt $((100000 * scale)) ] && budget=0

if ! command -v cmabuf_fuzz >/dev/null || ! command -v cmabuf-run >/dev/null
then
	echo "TAP version 13"
	echo "Bail out! cmabuf_fuzz is not installed"
	exit 1
fi

set -- --ops "$ops" --min-ops "${CMABUF_FUZZ_MIN_OPS:-$ops}" \
	--seconds "${CMABUF_FUZZ_SECONDS:-$budget}"
[ -n "$CMABUF_FUZZ_SEED" ] && set -- "$@" --seed "$CMABUF_FUZZ_SEED"
exec cmabuf-run --importer --time fuzz cmabuf_fuzz "$@"
