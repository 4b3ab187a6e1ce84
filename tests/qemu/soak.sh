#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh [KERNEL]: "make soak": the fuzzer for at least 10 000 000
# operations (CMABUF_FUZZ_OPS overrides) on KERNEL (default 7.2-debug), then
# the kmemleak scan where the kernel has one. Results in build/results-soak.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/kernel/common.sh"

kernel=${1:-7.2-debug}
ops=${CMABUF_FUZZ_OPS:-10000000}
suites=fuzz
case $kernel in
*-debug) suites="fuzz kmemleak" ;;
esac

bash "$here/install-deps.sh"
bash "$here/build-kernels.sh" "$kernel"
make -s -C "$top" userspace
make -s -C "$top" module KERNEL="$kernel"

rc=0
run_id=soak-$(date +%s)-$$
CMABUF_RUN_ID=$run_id bash "$here/boot.sh" --suites "$suites" --timeout 86400 \
	--env CMABUF_TIMEOUT=86400 --env CMABUF_FUZZ_OPS="$ops" "$kernel" || rc=$?
results=$CMABUF_BUILD/results-soak
rm -rf "$results"
python3 "$here/collect.py" guest "$results/$kernel" "$CMABUF_BUILD/logs/$kernel" "$run_id" "$rc"
sed -n 's/^# record: /  /p' "$results/$kernel"/*.tap
python3 "$here/collect.py" summary "$results"
