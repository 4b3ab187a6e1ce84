#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-stock-module.sh KERNEL DIR: build the modules in DIR against the
# test-bed kernel KERNEL as if it were the stock kernel of its series,
# without our patches (its exports from stock-symvers.sh, CMABUF_STOCK=1
# for what they add to headers), at W=1. Exit status 2,
# and nothing built, when the stock kernel does not even export cma_alloc
# (6.12): no cmabuf is possible there.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

kernel=${1:?usage: build-stock-module.sh KERNEL DIR}
dir=${2:?usage: build-stock-module.sh KERNEL DIR}

mkdir -p "$dir"
bash "$here/stock-symvers.sh" "$kernel" "$dir/stock.symvers"
if ! awk '$2 == "cma_alloc" { found = 1 } END { exit !found }' "$dir/stock.symvers"; then
	echo "stock $kernel does not export cma_alloc"
	exit 2
fi
(cd "$CMABUF_TOP" && rsync -a --delete --exclude='*.o' --exclude='*.ko' \
	--exclude='.*.cmd' --exclude=stock.symvers --relative VERSION Kbuild drivers include \
	$(ls -d tests/importer tests/edu tests/kunit 2>/dev/null) "$dir/")
make -C "$(kernel_out_dir "$kernel")" M="$dir" ARCH=arm64 \
	CROSS_COMPILE="$CROSS_COMPILE" CMABUF_SYMVERS="$dir/stock.symvers" CMABUF_STOCK=1 W=1 TESTS=1 modules
