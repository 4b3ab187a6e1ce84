#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stress test (the stress suite) once more, with memory under load (load_around in
# load-lib.sh). Its TAP is the stress suite's: no CMA page may be lost, and on
# the debug kernel the console must stay clean.
#
#   CMABUF_STRESS_SECONDS  how long the workers run (default 15 here)
#   CMABUF_SUITE_LIB  where the suites and their libraries are (/suites)

lib=${CMABUF_SUITE_LIB:-/suites}
. "$lib/bench-lib.sh"
. "$lib/load-lib.sh"

load_around stress-load stress "CMABUF_STRESS_SECONDS=${CMABUF_STRESS_SECONDS:-15}"
