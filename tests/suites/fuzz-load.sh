#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer (the fuzz suite) once more, with memory under load (load_around in
# load-lib.sh). Its TAP is the fuzz suite's: no CMA page may be lost, and on
# the debug kernel the console must stay clean. Under load an allocation
# from large-pool migrates up to 512 MiB (a minute on the debug kernel), so
# the run is bounded by time, and must still do a few hundred operations
# (7.2-debug did 16938 in 150 s under 1 GiB of load).
#
#   CMABUF_FUZZ_OPS      operations at most (default 20000 here)
#   CMABUF_FUZZ_SECONDS  time budget (default 90 here)
#   CMABUF_FUZZ_MIN_OPS  fewer operations fail the run (default 300 here)
#   CMABUF_SUITE_LIB     where the suites and their libraries are (/suites)

lib=${CMABUF_SUITE_LIB:-/suites}
. "$lib/bench-lib.sh"
. "$lib/load-lib.sh"

load_around fuzz-load fuzz "CMABUF_FUZZ_OPS=${CMABUF_FUZZ_OPS:-20000}" \
	"CMABUF_FUZZ_SECONDS=${CMABUF_FUZZ_SECONDS:-90}" \
	"CMABUF_FUZZ_MIN_OPS=${CMABUF_FUZZ_MIN_OPS:-300}"
