#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stress: cmabuf_stress (tests/stress/), processes x threads allocating,
# mapping, checking, sharing with the test importer and with each other
# and closing at once, as TAP.
#
#   CMABUF_STRESS_SECONDS  how long the workers run (default 30)
#   CMABUF_STRESS_PROCS    processes (default 3)
#   CMABUF_STRESS_THREADS  threads per process (default 3)
#
# The program prints "# record: stress seconds=S ops=N enomem=E pages_lost=P (enomem: ENOMEM and EBUSY)".

seconds=30

if ! command -v cmabuf_stress >/dev/null || ! command -v cmabuf-run >/dev/null
then
	echo "TAP version 13"
	echo "Bail out! cmabuf_stress is not installed"
	exit 1
fi

exec cmabuf-run --importer --time stress cmabuf_stress \
	--seconds "${CMABUF_STRESS_SECONDS:-$seconds}" \
	--procs "${CMABUF_STRESS_PROCS:-3}" \
	--threads "${CMABUF_STRESS_THREADS:-3}"
