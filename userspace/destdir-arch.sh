#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# destdir-arch.sh BINARY DESTDIR: refuse to install BINARY into a root file
# system (DESTDIR) whose programs are built for another machine, such as a
# host build into a board's arm64 root. The root's machine is read from
# the first of its usual programs that is there (a link is followed inside
# DESTDIR); a DESTDIR with none of them (a staging directory) is accepted.

bin=$1
root=$2

# The ELF machine (e_machine) of a file, or nothing for a file that is no ELF.
machine() {
	[ "$(od -An -c -N4 "$1" 2>/dev/null | tr -d ' ')" = "177ELF" ] || return 0
	od -An -tu2 -j18 -N2 "$1" | tr -d ' '
}

name() {
	case $1 in
	3) echo i386 ;;
	40) echo arm ;;
	62) echo x86_64 ;;
	183) echo arm64 ;;
	243) echo riscv ;;
	*) echo "machine $1" ;;
	esac
}

# A program of the root, with a link resolved inside it.
inside() {
	f=$root/$1
	[ -L "$f" ] || { echo "$f"; return; }
	t=$(readlink "$f")
	case $t in
	/*) echo "$root$t" ;;
	*) echo "$(dirname "$f")/$t" ;;
	esac
}

[ -n "$root" ] || exit 0
want=$(machine "$bin")
for p in bin/sh usr/bin/env bin/busybox sbin/init usr/lib/systemd/systemd; do
	f=$(inside $p)
	[ -f "$f" ] || continue
	have=$(machine "$f")
	[ -n "$have" ] || continue
	[ "$have" = "$want" ] && exit 0
	echo "cmabufctl is built for $(name "$want"), but $root/$p is $(name "$have"):" \
		"build for the root file system (make ARCH=arm64 install for arm64)" >&2
	exit 1
done
exit 0
