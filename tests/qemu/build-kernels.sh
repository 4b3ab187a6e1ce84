#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-kernels.sh NAME...: fetch, patch and build the named test-bed kernels
# (7.2, 7.2-debug, 7.2-64k, 7.2-16k, 6.12). Each step does nothing when its
# inputs are unchanged.

set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)

[ $# -gt 0 ] || set -- 7.2 7.2-debug
fetched=
for name in "$@"; do
	series=${name%%-*}
	case " $fetched " in
	*" $series "*) ;;
	*)
		bash "$top/kernel/fetch-source.sh" "$series"
		fetched="$fetched $series"
		;;
	esac
	bash "$top/kernel/build-kernel.sh" "$name"
done
