#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh: what "make lint" checks, printed as TAP.
#  - checkpatch.pl --strict (from the 7.2 tree) on every C file and header;
#  - the module built with sparse (C=2, through sparse-compat.sh) and W=1
#    against 7.2 and 6.12, which must print no warning at all;
#  - the DT binding against the dt-schema meta-schema, and the generated
#    device tree against the binding, where Debian's dt-schema runs here.

set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/common.sh"

src=$CMABUF_BUILD/src/7.2
n=0
fails=0

result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

echo "TAP version 13"
kernels=()
for k in 7.2 6.12; do
	[ -f "$CMABUF_BUILD/kernel/$k/Module.symvers" ] && kernels+=("$k")
done
binding=$top/Documentation/devicetree/bindings/misc/linux,cmabuf.yaml
echo "1..$((1 + ${#kernels[@]} + 1))"

# checkpatch: every C source and header we wrote. Userspace programs call
# libdrm (drmGetVersion, ...), whose names are CamelCase, and have no
# kernel __printf macro to use, so those two checks are off for them only.
checkpatch() {
	(cd "$top" && "$src/scripts/checkpatch.pl" --no-tree --strict --terse \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG"${1:+,$1}" -f "${@:2}" 2>&1 |
		grep -E '(ERROR|WARNING|CHECK):')
}
kfiles=$(cd "$top" && git ls-files 'drivers/*.[ch]' 'include/*.h' 'tests/kunit/*.[ch]' \
	'tests/importer/*.[ch]')
ufiles=$(cd "$top" && git ls-files '*.[ch]' | grep -v -e '^drivers/' -e '^include/' \
	-e '^tests/kunit/' -e '^tests/importer/')
out=$(checkpatch "" $kfiles; checkpatch CAMELCASE,PREFER_DEFINED_ATTRIBUTE_MACRO $ufiles)
[ -z "$out" ]
result $? "checkpatch --strict on $(echo $kfiles $ufiles | wc -w) files"
[ -n "$out" ] && sed 's/^/# /' <<<"$out"

# sparse and W=1: a full rebuild of the module, warnings only.
for k in "${kernels[@]}"; do
	mod=$CMABUF_BUILD/lint/$k
	rm -rf "$mod"
	mkdir -p "$mod"
	(cd "$top" && rsync -a --relative Kbuild drivers include \
		$(ls -d tests/importer tests/kunit 2>/dev/null) "$mod/")
	out=$(make -C "$CMABUF_BUILD/kernel/$k" M="$mod" ARCH=arm64 \
		CROSS_COMPILE="$CROSS_COMPILE" CHECK="$top/tests/sparse-compat.sh" \
		C=2 W=1 modules 2>&1)
	rc=$?
	warnings=$(grep -E 'warning:|error:' <<<"$out")
	[ $rc -eq 0 ] && [ -z "$warnings" ]
	result $? "sparse and W=1 clean on $k"
	if [ $rc -ne 0 ] || [ -n "$warnings" ]; then
		sed 's/^/# /' <<<"${warnings:-$out}" | head -n 40
	fi
done

# The DT binding.
if [ ! -f "$binding" ]; then
	result 1 "DT binding exists"
elif ! command -v dt-doc-validate >/dev/null; then
	echo "ok $((n + 1)) DT binding validates # SKIP dt-schema is not installed"
	n=$((n + 1))
else
	out=$(dt-doc-validate -u "$top/Documentation/devicetree/bindings" "$binding" 2>&1)
	[ $? -eq 0 ] && [ -z "$out" ]
	result $? "DT binding validates against the dt-schema meta-schema"
	[ -n "$out" ] && sed 's/^/# /' <<<"$out"
fi
[ $fails -eq 0 ]
