# SPDX-License-Identifier: GPL-2.0
# Sourced by the suites that load another build of cmabuf.ko in place of
# the test bed's (stock, dkms) and then put the test bed's back. Unloading
# cmabuf is only possible while it has registered no dma-heap, so they run
# while it is loaded with heap=0 (see SUITES). Needs tap-lib.sh.

swap_ko=/lib/modules/cmabuf/cmabuf.ko
swap_params=/sys/module/cmabuf/parameters

# swap_begin KO WHAT PLAN: the TAP header, or a bail-out when KO (WHAT) is
# missing or cmabuf is not loaded; then remember cmabuf's parameters
# (cmabuf-run, tests/stress/cmabuf-run.sh).
swap_begin() {
	echo "TAP version 13"
	if [ ! -f "$1" ] || [ ! -d $swap_params ]; then
		echo "Bail out! no $2, or cmabuf is not loaded"
		exit 1
	fi
	echo "1..$3"
	swap_args=$(cmabuf-run --params)
	swap_args=${swap_args% }
}

# swap_in KO WHAT: two tests, the test bed's build out and KO in, with the
# same parameters.
swap_in() {
	rmmod cmabuf
	ok $? "the test bed's build unloads"
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$1" $swap_args
	ok $? "$2 loads with the same parameters ($swap_args)"
}

# swap_back: one test, the test bed's build back as it was.
swap_back() {
	# shellcheck disable=SC2086
	rmmod cmabuf && insmod "$swap_ko" $swap_args
	ok $? "the test bed's build is back"
}
