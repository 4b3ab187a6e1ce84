#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh: what "make lint" checks, printed as TAP.
#  - checkpatch.pl --strict (from the 7.2 tree) on every C file and header;
#  - the module built with sparse (C=2, through sparse-compat.sh) and W=1
#    against 7.2 and 6.12, which must print no warning at all;
#  - the module built with W=1 against 7.2 as if it were Debian's kernel
#    without our export patches (kernel/build-stock-module.sh: stock 7.2 exports
#    cma_alloc and cma_release, not the frozen API nor the area
#    statistics): it must build warning-free in its reduced mode, LEGACY
#    and DMA, and need no symbol that only the patched kernel exports;
#    and as if it exported nothing of CMA either (Debian's 6.1 and 6.12,
#    build-stock-module.sh ... nocma): DMA only, no CMA symbol needed;
#  - every figure of docs/benchmarks.md against the runs it names;
#  - the DT binding against the dt-schema meta-schema, and the generated
#    device tree against the binding, where Debian's dt-schema runs here.

set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/kernel/common.sh"

src=$CMABUF_BUILD/src/7.2
. "$top/tests/suites/tap-lib.sh"

echo "TAP version 13"
kernels=()
for k in 7.2 6.12; do
	[ -f "$CMABUF_BUILD/kernel/$k/Module.symvers" ] && kernels+=("$k")
done
binding=$top/Documentation/devicetree/bindings/misc/linux,cmabuf.yaml
reduced=0
[ -f "$CMABUF_BUILD/kernel/7.2/Module.symvers" ] && reduced=1
echo "1..$((1 + ${#kernels[@]} + 2 * reduced + 1 + 1))"

# checkpatch: every C source and header we wrote. Userspace programs call
# libdrm (drmGetVersion, ...), whose names are CamelCase, and have no
# kernel __printf macro to use, so those two checks are off for them only.
# docs/bench/ keeps one-off programs as they ran for the figures beside
# them: not checked.
checkpatch() {
	(cd "$top" && "$src/scripts/checkpatch.pl" --no-tree --strict --terse \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG"${1:+,$1}" -f "${@:2}" 2>&1 |
		grep -E '(ERROR|WARNING|CHECK):')
}
kfiles=$(cd "$top" && git ls-files 'drivers/*.[ch]' 'include/*.h' 'tests/kunit/*.[ch]' \
	'tests/importer/*.[ch]' 'tests/edu/*.[ch]')
ufiles=$(cd "$top" && git ls-files '*.[ch]' | grep -v -e '^drivers/' -e '^include/' \
	-e '^tests/kunit/' -e '^tests/importer/' -e '^tests/edu/' -e '^docs/bench/')
out=$(checkpatch "" $kfiles; checkpatch CAMELCASE,PREFER_DEFINED_ATTRIBUTE_MACRO $ufiles)
[ -z "$out" ]
ok $? "checkpatch --strict on $(echo $kfiles $ufiles | wc -w) files"
[ -n "$out" ] && sed 's/^/# /' <<<"$out"

# sparse and W=1: a full rebuild of the module, warnings only.
for k in "${kernels[@]}"; do
	mod=$CMABUF_BUILD/lint/$k
	rm -rf "$mod"
	mkdir -p "$mod"
	(cd "$top" && rsync -a --relative VERSION Kbuild drivers include \
		$(ls -d tests/importer tests/edu tests/kunit 2>/dev/null) "$mod/")
	out=$(make -C "$CMABUF_BUILD/kernel/$k" M="$mod" ARCH=arm64 \
		CROSS_COMPILE="$CROSS_COMPILE" CHECK="$top/tests/sparse-compat.sh" \
		C=2 W=1 TESTS=1 modules 2>&1)
	rc=$?
	warnings=$(grep -E 'warning:|error:' <<<"$out")
	[ $rc -eq 0 ] && [ -z "$warnings" ]
	ok $? "sparse and W=1 clean on $k"
	if [ $rc -ne 0 ] || [ -n "$warnings" ]; then
		sed 's/^/# /' <<<"${warnings:-$out}" | head -n 40
	fi
done

# The reduced mode: the 7.2 tree with the symbols our patches export
# taken out of the Module.symvers the build reads (CMABUF_SYMVERS, Kbuild).
if [ $reduced -eq 1 ]; then
	mod=$CMABUF_BUILD/lint/7.2-stock
	rm -rf "$mod"
	out=$(bash "$top/kernel/build-stock-module.sh" 7.2 "$mod" 2>&1)
	rc=$?
	warnings=$(grep -E 'warning:|error:' <<<"$out")
	# What the module needs that only the patched kernel exports.
	undefined=$(${CROSS_COMPILE}nm -u "$mod/cmabuf.ko" 2>/dev/null | awk '{ print $2 }')
	needs=$(grep -vxF -f <(awk '{ print $2 }' "$mod/stock.symvers") <<<"$undefined" || true)
	[ $rc -eq 0 ] && [ -z "$warnings" ] && [ -z "$needs" ] &&
		grep -qx cma_alloc <<<"$undefined"
	ok $? "W=1 clean without the export patches (stock 7.2: LEGACY and DMA)"
	[ -n "$warnings$needs" ] && sed 's/^/# /' <<<"$warnings${needs:+
needs $needs}" | head -n 40
	[ $rc -ne 0 ] && [ -z "$warnings" ] && tail -n 20 <<<"$out" | sed 's/^/# /'

	# As if the kernel exported nothing of CMA: DMA only.
	mod=$CMABUF_BUILD/lint/7.2-nocma
	rm -rf "$mod"
	out=$(bash "$top/kernel/build-stock-module.sh" 7.2 "$mod" nocma 2>&1)
	rc=$?
	warnings=$(grep -E 'warning:|error:' <<<"$out")
	undefined=$(${CROSS_COMPILE}nm -u "$mod/cmabuf.ko" 2>/dev/null | awk '{ print $2 }')
	needs=$(grep -vxF -f <(awk '{ print $2 }' "$mod/stock.symvers") <<<"$undefined" || true)
	[ $rc -eq 0 ] && [ -z "$warnings" ] && [ -z "$needs" ] &&
		grep -qx dma_alloc_pages <<<"$undefined" &&
		! grep -qE '^(cma_|dev_get_cma_area$)' <<<"$undefined"
	ok $? "W=1 clean as for a kernel without CMA exports (Debian 6.1, 6.12: DMA only)"
	[ -n "$warnings$needs" ] && sed 's/^/# /' <<<"$warnings${needs:+
needs $needs}" | head -n 40
	[ $rc -ne 0 ] && [ -z "$warnings" ] && tail -n 20 <<<"$out" | sed 's/^/# /'
fi

# Every figure docs/benchmarks.md quotes still comes out of the runs it
# names (docs/gen-benchmarks.py rewrites them; --check only compares).
out=$(cd "$top" && python3 docs/gen-benchmarks.py --check 2>&1)
ok $? "docs/benchmarks.md matches the committed runs"
[ -n "$out" ] && sed 's/^/# /' <<<"$out" | head -n 20

# The DT binding.
if [ ! -f "$binding" ]; then
	ok 1 "DT binding exists"
elif ! command -v dt-doc-validate >/dev/null; then
	skip "DT binding validates (dt-schema is not installed)"
else
	out=$(dt-doc-validate -u "$top/Documentation/devicetree/bindings" "$binding" 2>&1)
	[ $? -eq 0 ] && [ -z "$out" ]
	ok $? "DT binding validates against the dt-schema meta-schema"
	[ -n "$out" ] && sed 's/^/# /' <<<"$out"
fi
[ $fails -eq 0 ]
