#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-stock-module.sh KERNEL DIR [nocma]: build the modules in DIR
# against the test-bed kernel KERNEL as if it were the stock kernel of its
# series, without our patches (its exports from stock-symvers.sh,
# CMABUF_STOCK=1 for what they add to headers), at W=1; with "nocma", as if
# it exported nothing of CMA either, as Debian's 6.1 and 6.12 do (DMA is
# then cmabuf's only strategy). Exit status 2, and nothing built, when the
# kernel exports neither cma_alloc nor dma_alloc_pages: no cmabuf is
# possible there.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"

kernel=${1:?usage: build-stock-module.sh KERNEL DIR}
dir=${2:?usage: build-stock-module.sh KERNEL DIR [nocma]}
mode=${3:-}

mkdir -p "$dir"
bash "$here/stock-symvers.sh" "$kernel" "$dir/stock.symvers" $mode
if ! awk '$2 == "cma_alloc" || $2 == "dma_alloc_pages" { found = 1 } END { exit !found }' \
	"$dir/stock.symvers"; then
	echo "stock $kernel exports neither cma_alloc nor dma_alloc_pages"
	exit 2
fi
(cd "$CMABUF_TOP" && rsync -a --delete --exclude='*.o' --exclude='*.ko' \
	--exclude='.*.cmd' --exclude=stock.symvers --relative VERSION Kbuild drivers include \
	$(ls -d tests/importer tests/edu tests/kunit 2>/dev/null) "$dir/")
make -C "$(kernel_out_dir "$kernel")" M="$dir" ARCH=arm64 \
	CROSS_COMPILE="$CROSS_COMPILE" CMABUF_SYMVERS="$dir/stock.symvers" CMABUF_STOCK=1 W=1 TESTS=1 modules
