#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-test.sh [KERNEL]: DKMS as a user runs it, on the host, against the
# test bed's KERNEL (7.2) tree, or a Debian image's headers package as
# "apt install linux-headers-$(uname -r)" installs it (stock-6.12, fetched
# by kernel/stock-image.sh), in a DKMS tree of its own (nothing under
# /var/lib/dkms or /usr/src is touched): add, build, what it built, and a
# kernel without CMA refused. The module DKMS built goes to
# build/module-dkms/KERNEL/cmabuf.ko, which the guest's "dkms" suite
# loads in place of the test bed's build. Prints TAP.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"
. "$top/tests/suites/tap-lib.sh"

kernel=${1:-7.2}
kdir=$(kernel_out_dir "$kernel")
is_stock "$kernel" && kdir=$(cat "$CMABUF_BUILD/stock/$kernel/kdir" 2>/dev/null)
work=$CMABUF_BUILD/dkms-test
out_ko=$CMABUF_BUILD/module-dkms/$kernel/cmabuf.ko
version=$(cat "$top/VERSION")

diag() {
	[ "$1" -eq 0 ] || sed 's/^/# /' <<<"$2" | tail -n 30
}

echo "TAP version 13"
rm -f "$out_ko"
if [ ! -f "$kdir/Module.symvers" ]; then
	echo "1..0 # SKIP kernel $kernel is not built or fetched"
	exit 0
fi
echo "1..6"

rm -rf "$work"
mkdir -p "$work/dkms" "$work/src/cmabuf-$version"
git -C "$top" ls-files -z --cached --others --exclude-standard |
	rsync -a --from0 --files-from=- --ignore-missing-args "$top/" \
		"$work/src/cmabuf-$version/"
release=$(cat "$kdir/include/config/kernel.release")
dkms=(dkms --dkmstree "$work/dkms" --sourcetree "$work/src" -m cmabuf -v "$version")

# ARCH and CROSS_COMPILE reach the module's make through the environment.
export ARCH=arm64 CROSS_COMPILE

out=$("${dkms[@]}" add 2>&1)
r=$?; ok $r "dkms add: cmabuf/$version (PACKAGE_VERSION read from VERSION)"; diag $r "$out"

out=$("${dkms[@]}" build -k "$release" -a arm64 --kernelsourcedir "$kdir" 2>&1)
rc=$?
log=$(cat "$work/dkms/cmabuf/$version/$release/arm64/log/make.log" 2>/dev/null)
[ $rc -eq 0 ]
r=$?; ok $r "dkms build -k $release against the $kernel tree"; diag $r "$out
$log"

built=$work/dkms/cmabuf/$version/$release/arm64/module
kos=$(cd "$built" 2>/dev/null && ls | xargs)
[ "$kos" = "cmabuf.ko" ] && ! grep -q 'cmabuf_kunit\|cmabuf_importer' <<<"$log"
r=$?; ok $r "DKMS built cmabuf.ko and nothing else (got: $kos)"; diag $r "$log"

vermagic=$(modinfo -F vermagic "$built/cmabuf.ko" 2>/dev/null)
modver=$(modinfo -F version "$built/cmabuf.ko" 2>/dev/null)
[ "${vermagic%% *}" = "$release" ] && [ "$modver" = "$version" ]
ok $? "its vermagic is $release and its version $version ($vermagic, $modver)"

"${dkms[@]}" status 2>/dev/null | grep -q "^cmabuf/$version, $release, arm64: built"
ok $? "dkms status: built for $release"

# A kernel whose .config has no CMA: DKMS must refuse it before building.
fake=$work/nocma-kernel
mkdir -p "$fake"
grep -v -e '^CONFIG_CMA=' -e '^CONFIG_DMA_CMA=' "$kdir/.config" >"$fake/.config"
cp "$kdir/Makefile" "$fake/Makefile"
out=$("${dkms[@]}" build -k "$release-nocma" -a arm64 --kernelsourcedir "$fake" 2>&1)
rc=$?
[ $rc -eq 77 ] && grep -q BUILD_EXCLUSIVE <<<"$out" &&
	[ ! -d "$work/dkms/cmabuf/$version/$release-nocma/arm64/module" ]
r=$?; ok $r "a kernel without CONFIG_CMA is refused (exit $rc, BUILD_EXCLUSIVE_CONFIG)"
diag $r "$out"

if [ -f "$built/cmabuf.ko" ]; then
	mkdir -p "$(dirname "$out_ko")"
	cp "$built/cmabuf.ko" "$out_ko"
fi
[ $fails -eq 0 ]
