#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# For the suites that load the kernel's own modules around a test program
# (v4l2, kms): kmod_begin checks that the program and the modules are
# there, kmod_load loads one with its parameters and kmod_end unloads them
# in reverse order, which fails while a driver still holds a buffer. Each
# bails out of the suite, as TAP, when it cannot go on.
#
#   CMABUF_MEDIA_TEST   the test program (the suite's own by default)
#   CMABUF_KMOD_DIR     the modules and their modules.dep
#                       (default /lib/modules/$(uname -r))

kmod_loaded=

kmod_bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

# kmod_begin PROGRAM: sets $kmod_test, the program to run.
kmod_begin() {
	kmod_test=${CMABUF_MEDIA_TEST:-$1}
	command -v "$kmod_test" >/dev/null || kmod_bail "$kmod_test is not installed"
	[ -f "${CMABUF_KMOD_DIR:-/lib/modules/$(uname -r)}/modules.dep" ] ||
		kmod_bail "the kernel's modules are not installed (kernel/configs/media.config)"
}

# kmod_has MODULE: the kernel has MODULE, as a module or built in.
kmod_has() {
	dir=${CMABUF_KMOD_DIR:-/lib/modules/$(uname -r)}
	grep -q "/$1\.ko[.a-z]*:" "$dir/modules.dep" ||
		grep -qs "/$1\.ko[.a-z]*\$" "$dir/modules.builtin"
}

# kmod_load MODULE [PARAM=VALUE...]
kmod_load() {
	modprobe "$@" || kmod_bail "modprobe $1 failed"
	kmod_loaded="$1 $kmod_loaded"
}

# kmod_end RC: unload what kmod_load loaded; exits with RC, or 1 when a
# module stays loaded.
kmod_end() {
	rc=$1
	for m in $kmod_loaded; do
		if ! rmmod "$m"; then
			echo "# rmmod $m failed"
			rc=1
		fi
	done
	exit "$rc"
}
