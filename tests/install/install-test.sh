#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# install-test.sh [KERNEL]: what a user of a board does, on the host, from
# a copy of the sources: make against a missing kernel tree, make against
# the test bed's KERNEL (7.2) tree through KERNEL_SRC as Yocto passes it,
# the notes of a reduced kernel, modules_install and install into a
# DESTDIR, the tree they leave, and uninstall. Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"
. "$top/tests/suites/tap-lib.sh"

kernel=${1:-7.2}
# A user's shell: not the directories the top Makefile exports to its own
# sub-makes when this runs under "make check".
unset PREFIX DOCDIR
kdir=$(kernel_out_dir "$kernel")
work=$CMABUF_BUILD/install-test
src=$work/src
root=$work/root
version=$(cat "$top/VERSION")
kmake=(make -C "$src" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE")

# diag TEXT: the text as TAP comments, when the test before it failed.
diag() {
	[ "$1" -eq 0 ] || sed 's/^/# /' <<<"$2" | head -n 30
}

echo "TAP version 13"
if [ ! -f "$kdir/Module.symvers" ]; then
	echo "1..0 # SKIP kernel $kernel is not built"
	exit 0
fi
echo "1..24"

# The sources as a checkout has them: tracked and new files, no build/.
rm -rf "$work"
mkdir -p "$src" "$root"
git -C "$top" ls-files -z --cached --others --exclude-standard |
	rsync -a --from0 --files-from=- --ignore-missing-args "$top/" "$src/"

# 1. No kernel tree: one line that names the fix, not make's own error.
out=$(make -C "$src" --no-print-directory KDIR=/nonexistent/build 2>&1)
rc=$?
[ $rc -ne 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] &&
	grep -q "no kernel build tree at /nonexistent/build" <<<"$out" &&
	grep -q "linux-headers-" <<<"$out" && grep -q KDIR <<<"$out"
r=$?; ok $r "make without a kernel tree: one line naming linux-headers and KDIR"
diag $r "$out"

# 2. The module alone, as Yocto builds it (KERNEL_SRC), for a kernel that
#    has everything: nothing is left out, no test module is built.
out=$("${kmake[@]}" KERNEL_SRC="$kdir" 2>&1)
rc=$?
kos=$(cd "$src" && find . -name '*.ko' | sort | xargs)
[ $rc -eq 0 ] && [ "$kos" = "./cmabuf.ko" ] && ! grep -q '^cmabuf: ' <<<"$out"
r=$?; ok $r "make KERNEL_SRC=<$kernel tree>: cmabuf.ko only, nothing left out (built: $kos)"
diag $r "$out"

# The in-kernel benchmark is built only where wanted (CMABUF_BENCH=1, or
# TESTS=1 for the test bed): cmabuf_debugfs_add() is its entry point.
has_bench() {
	aarch64-linux-gnu-nm "$src/cmabuf.ko" | grep -w cmabuf_debugfs_add >/dev/null
}
! has_bench
ok $? "make KERNEL_SRC=<$kernel tree>: no in-kernel benchmark in cmabuf.ko"

modver=$(modinfo -F version "$src/cmabuf.ko" 2>/dev/null)
[ "$modver" = "$version" ]
ok $? "MODULE_VERSION is VERSION ($modver, $version)"

# 3. A kernel without the frozen API, dma-heaps, area statistics and KUnit
#    (their exports taken out of Module.symvers, CONFIG_KUNIT unset for
#    make), with TESTS=1: it builds what it can, says each gap once.
grep -vw -e cma_alloc_frozen_compound -e cma_alloc_frozen -e cma_release_frozen \
	-e dma_heap_add -e cma_get_available_pages "$kdir/Module.symvers" \
	>"$work/reduced.symvers"
out=$("${kmake[@]}" KDIR="$kdir" CMABUF_SYMVERS="$work/reduced.symvers" \
	TESTS=1 CONFIG_KUNIT= 2>&1)
rc=$?
notes=$(grep '^cmabuf: ' <<<"$out")
[ $rc -eq 0 ] && [ -f "$src/tests/importer/cmabuf_importer.ko" ] &&
	[ ! -f "$src/tests/kunit/cmabuf_kunit.ko" ] &&
	[ "$(grep -c 'strategies LEGACY DMA,' <<<"$notes")" -eq 1 ] &&
	[ "$(grep -c 'no COMPOUND or FROZEN' <<<"$notes")" -eq 1 ] &&
	[ "$(grep -c 'no dma-heaps' <<<"$notes")" -eq 1 ] &&
	[ "$(grep -c 'no free bytes' <<<"$notes")" -eq 1 ] &&
	[ "$(grep -c 'no cmabuf_kunit.ko' <<<"$notes")" -eq 1 ] &&
	[ "$(wc -l <<<"$notes")" -eq 5 ]
r=$?; ok $r "TESTS=1 on a reduced kernel without KUnit: importer built, its strategies and each of 4 gaps said once"
diag $r "$out"
! aarch64-linux-gnu-nm -u "$src/cmabuf.ko" | grep -qw -e dma_heap_add -e cma_alloc_frozen
ok $? "the reduced build uses neither dma_heap_add nor the frozen API"
has_bench
ok $? "TESTS=1 builds the in-kernel benchmark into cmabuf.ko"

# 4. A kernel that exports nothing of CMA (Debian's 6.1 and 6.12): DMA
#    only, through the DMA API, and no CMA symbol used; a board's build with
#    the in-kernel benchmark (CMABUF_BENCH=1).
grep -vE '\s(cma_[a-z_]*|dev_get_cma_area|dma_contiguous_[a-z_]*)\s' \
	"$kdir/Module.symvers" >"$work/nocma.symvers"
out=$("${kmake[@]}" KDIR="$kdir" CMABUF_SYMVERS="$work/nocma.symvers" \
	CMABUF_BENCH=1 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q "^cmabuf: strategies DMA, AUTO" <<<"$out" &&
	grep -q "^cmabuf: no LEGACY" <<<"$out" &&
	! aarch64-linux-gnu-nm -u "$src/cmabuf.ko" | grep -qE '^ *U (cma_|dev_get_cma_area|dma_contiguous_)'
r=$?; ok $r "a kernel that exports nothing of CMA builds DMA only, using no CMA symbol"
diag $r "$out"
has_bench
ok $? "CMABUF_BENCH=1 builds the in-kernel benchmark into cmabuf.ko"

# 5. Nor dma_alloc_pages: refused in one line.
grep -vw dma_alloc_pages "$work/nocma.symvers" >"$work/nothing.symvers"
out=$("${kmake[@]}" -s KDIR="$kdir" CMABUF_SYMVERS="$work/nothing.symvers" 2>&1)
rc=$?
[ $rc -ne 0 ] && grep -q "exports neither cma_alloc nor dma_alloc_pages" <<<"$out" &&
	[ "$(grep -c 'cmabuf:' <<<"$out")" -eq 1 ]
r=$?; ok $r "a kernel without cma_alloc and dma_alloc_pages is refused with the reason"
diag $r "$out"

# Back to the full module for installing.
"${kmake[@]}" KDIR="$kdir" clean >/dev/null 2>&1
out=$("${kmake[@]}" KDIR="$kdir" 2>&1)
r=$?; ok $r "make KDIR=<$kernel tree> again, for installing"; diag $r "$out"

# 6. modules_install: the module under updates/, found by depmod.
release=$(cat "$kdir/include/config/kernel.release")
out=$("${kmake[@]}" KDIR="$kdir" INSTALL_MOD_PATH="$root" modules_install 2>&1)
rc=$?
[ $rc -eq 0 ] && [ -f "$root/lib/modules/$release/updates/cmabuf.ko" ] &&
	grep -q '^updates/cmabuf.ko:' "$root/lib/modules/$release/modules.dep"
r=$?; ok $r "modules_install: lib/modules/$release/updates/cmabuf.ko, in modules.dep"
diag $r "$out"

# 7. install: the tool, its man page, the header, udev, modprobe.d, docs.
out=$(make -C "$src" DESTDIR="$root" PREFIX=/usr install 2>&1)
rc=$?
files=$(cd "$root" && find . -path ./lib/modules -prune -o -type f -print | sort)
want=$(printf '%s\n' ./etc/modprobe.d/cmabuf.conf ./etc/udev/rules.d/60-cmabuf.rules \
	./usr/bin/cmabufctl ./usr/include/linux/cmabuf.h \
	./usr/share/doc/cmabuf/CHANGELOG.md ./usr/share/doc/cmabuf/LICENSE \
	./usr/share/doc/cmabuf/README.md ./usr/share/doc/cmabuf/importers.md \
	./usr/share/man/man1/cmabufctl.1 | sort)
[ $rc -eq 0 ] && [ "$files" = "$want" ]
r=$?; ok $r "make install DESTDIR PREFIX=/usr: exactly the expected files"
diag $r "$out
installed:
$files"

bin=$root/usr/bin/cmabufctl
[ -x "$bin" ] && "$bin" --version | grep -qx "cmabufctl $version" &&
	! grep -q /dev/cmabuf_importer "$bin"
r=$?; ok $r "cmabufctl runs, says $version, holds no test importer code"

# share's explanations point to a file the install put there.
[ -f "$root/usr/share/doc/cmabuf/importers.md" ] &&
	grep -q "/usr/share/doc/cmabuf/importers.md" "$bin" &&
	! grep -q "docs/importers.md" "$bin"
ok $? "share's explanations name the installed importers.md (/usr/share/doc/cmabuf)"

# share is installed with the importers of a user's board (v4l2, kms);
# the test bed's (vgem, the test module) and bench's peers are only in the
# TESTS=1 build.
out=$("$bin" share --help 2>&1)
rc=$?
unknown=$("$bin" share --importer vgem 2>&1)
[ $rc -eq 0 ] && "$bin" --help | grep -qw share &&
	grep -q '^  v4l2 ' <<<"$out" && grep -q '^  kms ' <<<"$out" &&
	! grep -q 'vgem\|cmabuf_importer' <<<"$out" &&
	grep -q "unknown importer 'vgem'" <<<"$unknown" &&
	! "$bin" bench --help | grep -q 'cma-heap\|cma-debugfs\|--heap' &&
	grep -qw share "$root/usr/share/man/man1/cmabufctl.1" &&
	! grep -qw 'vgem\|cmabuf_importer\|cma\\-heap\|cma\\-debugfs' "$root/usr/share/man/man1/cmabufctl.1"
r=$?; ok $r "the installed cmabufctl offers share with v4l2 and kms, not the test bed's importers or bench's peers"
diag $r "$out
$unknown"

man=$root/usr/share/man/man1/cmabufctl.1
# The man page and --help agree: every command of --help has a synopsis,
# the options of each synopsis are in its --help and the other way round,
# and the man page names nothing of the test bed's that --help does not.
man_text=$(LC_ALL=C MANWIDTH=200 man -l "$man" 2>/dev/null)
all_help=$("$bin" --help)
bad=
for c in $("$bin" --help | awk '/^commands:/ { c = 1; next } c && !NF { exit } c { print $1 }'); do
	syn=$(grep -m1 "^ *cmabufctl $c " <<<"$man_text")
	help=$("$bin" "$c" --help)
	all_help="$all_help
$help"
	[ -n "$syn" ] || { bad="$bad $c(no synopsis)"; continue; }
	for o in $(grep -oE -- ' -{1,2}[a-zA-Z][a-z-]*' <<<"$syn"); do
		grep -qE -- "(^|[ ,])$o([ ,=]|$)" <<<"$help" || bad="$bad $c:$o(not in --help)"
	done
	while read -r s l; do
		s=${s%,}
		[ "$l" = --help ] && continue
		[ "$s" = - ] && s=$l
		grep -qE -- "[[ ]($s|$l)[] ]" <<<" $syn " || bad="$bad $c:$l(not in the man page)"
	done < <(grep -oE -- '^ +(-[a-zA-Z], )?--[a-z-]+' <<<"$help" | sed 's/^ *//; s/^--/- --/')
done
for w in cmabuf-limit cpu-ref contig-64m gigantic-1g blocks-2m e2e-64m zero-64m \
	load-64m camera fragment --prepare --conclude --procs --spread --steps --seed \
	--size --heap vgem; do
	grep -qw -- "$w" <<<"$man_text" && ! grep -qw -- "$w" <<<"$all_help" &&
		bad="$bad $w(man page only)"
done
[ -z "$bad" ]
r=$?; ok $r "the man page and --help agree on commands and options, and name nothing else"
diag $r "$bad"

out=$(MANWIDTH=80 man --warnings -l "$man" 2>&1 >/dev/null)
grep -q "cmabuf $version" "$man" && [ -z "$out" ]
r=$?; ok $r "the man page carries $version and renders without warnings"
diag $r "$out"

cat >"$work/uapi.c" <<'EOF'
#include <fcntl.h>
#include <sys/ioctl.h>
#include <linux/cmabuf.h>

int main(void)
{
	struct cmabuf_alloc_data data = { .size = 4096, .fd_flags = O_CLOEXEC };
	struct cmabuf_info info = { 0 };

	return ioctl(-1, CMABUF_IOC_ALLOC, &data) + (int)sizeof(info) +
	       CMABUF_VERSION_MAJOR(info.version) + CMABUF_VALID_FD_FLAGS;
}
EOF
out=$(gcc -Wall -Werror -I"$root/usr/include" -c -o "$work/uapi.o" "$work/uapi.c" 2>&1)
r=$?; ok $r "the installed uapi header compiles on its own"; diag $r "$out"

rules=$root/etc/udev/rules.d/60-cmabuf.rules
[ "$(grep -c '^SUBSYSTEM=="misc", KERNEL=="cmabuf-\*", GROUP="video", MODE="0660"$' "$rules")" -eq 1 ] &&
	[ "$(grep -c '^SUBSYSTEM=="dma_heap", KERNEL=="cmabuf-\*", GROUP="video", MODE="0660"$' "$rules")" -eq 1 ] &&
	[ "$(grep -c '^#SUBSYSTEM=="[a-z_]*", KERNEL=="cmabuf", GROUP="video", MODE="0660"$' "$rules")" -eq 2 ] &&
	[ "$(grep -c '^SUBSYSTEM==' "$rules")" -eq 2 ] &&
	! grep -v -e '^#' -e '^$' -e '^SUBSYSTEM==' "$rules" | grep -q .
ok $? "the udev rule gives the named instances' misc and dma-heap nodes to video, 0660; the default instance's only where uncommented"

# The modprobe.d example: comments only; uncommented, modprobe parses its
# options and each names a parameter of the module.
conf=$root/etc/modprobe.d/cmabuf.conf
mkdir -p "$work/modprobe.d"
sed -n 's/^#options /options /p' "$conf" >"$work/modprobe.d/cmabuf.conf"
parsed=$(/sbin/modprobe -C "$work/modprobe.d" --showconfig 2>/dev/null | grep '^options cmabuf ')
params=$(modinfo -F parm "$src/cmabuf.ko" | cut -d: -f1 | sort | xargs)
used=$(sed 's/^options cmabuf //' <<<"$parsed" | tr ' ' '\n' | cut -d= -f1 | sort -u | xargs)
! grep -v -e '^#' -e '^$' "$conf" | grep -q . &&
	[ "$(wc -l <<<"$parsed")" -eq "$(grep -c '^#options ' "$conf")" ] &&
	[ -z "$(comm -23 <(tr ' ' '\n' <<<"$used") <(tr ' ' '\n' <<<"$params"))" ]
r=$?; ok $r "modprobe.d example: commented out; its options ($used) are parameters ($params)"
diag $r "$parsed"

# 8. uninstall leaves nothing but the module (modules_install's).
out=$(make -C "$src" DESTDIR="$root" PREFIX=/usr uninstall 2>&1)
rc=$?
left=$(cd "$root" && find . -path ./lib/modules -prune -o -type f -print)
[ $rc -eq 0 ] && [ -z "$left" ]
r=$?; ok $r "make uninstall removes every file make install put"
diag $r "$out
left: $left"

# 9. A board's arm64 root file system (its /bin/sh a link to an arm64
#    busybox): the host's cmabufctl is refused, saying how to build the
#    board's; ARCH=arm64 installs an arm64 one.
arm=$work/arm64-root
mkdir -p "$arm/bin"
echo 'int main(void) { return 0; }' | aarch64-linux-gnu-gcc -x c -o "$arm/bin/busybox" -
ln -s /bin/busybox "$arm/bin/sh"
out=$(make -C "$src/userspace" DESTDIR="$arm" install 2>&1)
rc=$?
[ $rc -ne 0 ] && [ ! -e "$arm/usr/local/bin/cmabufctl" ] &&
	grep -q "cmabufctl is built for x86_64, but $arm/bin/sh is arm64: build for the root file system (make ARCH=arm64 install for arm64)" <<<"$out"
r=$?; ok $r "install of the host's cmabufctl into an arm64 root: refused, naming ARCH=arm64"
diag $r "$out"
out=$(make -C "$src/userspace" DESTDIR="$arm" ARCH=arm64 install 2>&1)
rc=$?
[ $rc -eq 0 ] && file "$arm/usr/local/bin/cmabufctl" | grep -q "ARM aarch64"
r=$?; ok $r "ARCH=arm64 install into it: an arm64 cmabufctl"
diag $r "$out"
[ $fails -eq 0 ]
