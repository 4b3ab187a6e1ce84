#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzer (the fuzz suite) once more, with memory under load (load_around in
# load-lib.sh). Its TAP is the fuzz suite's: no CMA page may be lost, and on
# the debug kernel the console must stay clean.
#
#   CMABUF_FUZZ_OPS  operations (default 20000 here)
#   CMABUF_SUITE_LIB  where the suites and their libraries are (/suites)

lib=${CMABUF_SUITE_LIB:-/suites}
. "$lib/bench-lib.sh"
. "$lib/load-lib.sh"

load_around fuzz-load fuzz "CMABUF_FUZZ_OPS=${CMABUF_FUZZ_OPS:-20000}"
