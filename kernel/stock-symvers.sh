#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stock-symvers.sh KERNEL OUT: write to OUT the Module.symvers of the built
# test-bed kernel KERNEL without the symbols that kernel/patches/<series>/
# exports, i.e. what Debian's own kernel of that series exports. Building
# the module with CMABUF_SYMVERS=OUT (see Kbuild) gives the module a user
# of the stock kernel gets: the reduced mode.

set -euo pipefail
. "$(dirname "$0")/common.sh"

kernel=${1:?usage: stock-symvers.sh KERNEL OUT}
out=${2:?usage: stock-symvers.sh KERNEL OUT}
symvers=$(kernel_out_dir "$kernel")/Module.symvers
[ -f "$symvers" ] || die "kernel $kernel is not built"

# The "+EXPORT_SYMBOL_GPL(name);" and
# "+EXPORT_SYMBOL_FOR_MODULES(name, "cmabuf");" lines of the patches.
mapfile -t patches < <(series_patches "$(kernel_series "$kernel")")
[ ${#patches[@]} -gt 0 ] || die "no patches for $kernel"
added=$(sed -nE 's/^\+EXPORT_SYMBOL(_GPL|_FOR_MODULES)?\(([a-z_0-9]+)[,)].*$/\2/p' \
	"${patches[@]}" | sort -u)
[ -n "$added" ] || die "no exports found in the $kernel patches"
awk -v added="$added" 'BEGIN { n = split(added, a, "\n"); for (i = 1; i <= n; i++) drop[a[i]] = 1 }
	!($2 in drop)' "$symvers" >"$out"
