#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stock-symvers.sh KERNEL OUT [nocma]: write to OUT the Module.symvers of
# the built test-bed kernel KERNEL without the symbols that
# kernel/patches/<series>/ exports, i.e. what Debian's own kernel of that
# series exports. Building the module with CMABUF_SYMVERS=OUT (see Kbuild)
# gives the module a user of the stock kernel gets: the reduced mode.
#
# With "nocma", also without anything of CMA (cma_*, dev_get_cma_area,
# dma_contiguous_*) or of the dma-heaps (dma_heap_*): what Debian's 6.1
# and 6.12 arm64 kernels export (their linux-headers packages'
# Module.symvers: dma_alloc_pages and of_reserved_mem_* but no CMA symbol,
# and no DMABUF_HEAPS), for a module built as for them and loaded on 7.2.

set -euo pipefail
. "$(dirname "$0")/common.sh"

kernel=${1:?usage: stock-symvers.sh KERNEL OUT}
out=${2:?usage: stock-symvers.sh KERNEL OUT}
mode=${3:-}
case $mode in
''|nocma) ;;
*) die "usage: stock-symvers.sh KERNEL OUT [nocma]" ;;
esac
symvers=$(kernel_out_dir "$kernel")/Module.symvers
[ -f "$symvers" ] || die "kernel $kernel is not built"

# The "+EXPORT_SYMBOL_GPL(name);" and
# "+EXPORT_SYMBOL_FOR_MODULES(name, "cmabuf");" lines of the patches.
mapfile -t patches < <(series_patches "$(kernel_series "$kernel")")
[ ${#patches[@]} -gt 0 ] || die "no patches for $kernel"
added=$(sed -nE 's/^\+EXPORT_SYMBOL(_GPL|_FOR_MODULES)?\(([a-z_0-9]+)[,)].*$/\2/p' \
	"${patches[@]}" | sort -u)
[ -n "$added" ] || die "no exports found in the $kernel patches"
awk -v added="$added" -v nocma="$mode" '
	BEGIN { n = split(added, a, "\n"); for (i = 1; i <= n; i++) drop[a[i]] = 1 }
	nocma && ($2 ~ /^(cma_|dma_contiguous_|dma_heap_)/ || $2 == "dev_get_cma_area") { next }
	!($2 in drop)' "$symvers" >"$out"
