# SPDX-License-Identifier: GPL-2.0
# Sourced by the shell scripts that print their own TAP (guest suites in
# /suites, and tests/lint.sh and tests/install/ on the host): "ok RC NAME"
# prints test line n+1 through the kernel's KTAP helpers, "ok" when RC is
# 0, and counts the others in $fails; "skip NAME" prints a skipped one.
#
# The helpers are the kernel's tools/testing/selftests/kselftest/
# ktap_helpers.sh: in the guest as /suites/ktap_helpers.sh (packed by
# tests/qemu/mkinitramfs.sh), on the host from the test bed's 7.2 tree;
# KTAP_HELPERS names another.

if [ -z "${KTAP_HELPERS:-}" ]; then
	KTAP_HELPERS=/suites/ktap_helpers.sh
	[ -f "$KTAP_HELPERS" ] ||
		KTAP_HELPERS=${CMABUF_BUILD:-}/src/7.2/tools/testing/selftests/kselftest/ktap_helpers.sh
fi
. "$KTAP_HELPERS"

n=0
fails=0

ok() {
	# The helpers echo the name unquoted: no globbing of it.
	set -f
	if [ "$1" -eq 0 ]; then
		ktap_test_pass "$2"
	else
		ktap_test_fail "$2"
	fi
	set +f
	n=$((KTAP_TESTNO - 1))
	fails=$KTAP_CNT_FAIL
}

# skip NAME: test line n+1, skipped.
skip() {
	set -f
	ktap_test_skip "$1"
	set +f
	n=$((KTAP_TESTNO - 1))
}
