# SPDX-License-Identifier: GPL-2.0
# Sourced by the suites that run under memory load: start cmabuf_load
# (tests/load) before cmabuf_testctl bench and stop it after, have every
# sample start from a refilled area (--prepare), and pass to the host what the
# load said ("# load-json {...}": where the pages were before each
# sample) and the CMA trace events of the run ("# trace-json {...}").
# Needs bench-lib.sh.

load_sock=${TMPDIR:-/tmp}/cmabuf-load.sock
load_log=${TMPDIR:-/tmp}/cmabuf-load.log
load_records=${TMPDIR:-/tmp}/cmabuf-load.jsonl
load_trace=${TMPDIR:-/tmp}/cmabuf-load.trace
load_refill="cmabuf_load refill --socket $load_sock >>$load_records"
# tests/qemu/test-runner.sh runs the suites on the host with these
# elsewhere, where nothing is ever mounted.
trace=${CMABUF_TRACEFS:-/sys/kernel/tracing}
debugfs=${CMABUF_DEBUGFS:-/sys/kernel/debug}

# mount_once TYPE DIR: mount TYPE on DIR unless it is there, in the guest.
mount_once() {
	[ -z "$CMABUF_TRACEFS$CMABUF_DEBUGFS" ] || return 0
	awk -v d="$2" '$2 == d { found = 1 } END { exit !found }' /proc/mounts ||
		mount -t "$1" "$1" "$2" 2>/dev/null
}

# The CMA areas' debugfs files are what the load reads.
mount_once debugfs "$debugfs"

# load_emit: the load's records so far, tagged, as TAP comments.
load_emit() {
	[ -s "$load_records" ] &&
		sed "s/^{\"format\": 1, /&\"load\": \"$bench_tag\", /; s/^/# load-json /" \
			"$load_records"
	: >"$load_records"
}

# load_start TAG ARGS...: start the load (cmabuf_load start ARGS) and tag
# what follows with TAG; 0 once it holds its fill.
load_start() {
	bench_tag=$1
	shift
	: >"$load_records"
	: >"$load_log"
	cmabuf_load start --socket "$load_sock" --log "$load_log" "$@" >>"$load_records"
}

# load_stop: end the load, and return once its memory is free.
load_stop() {
	cmabuf_load stop --socket "$load_sock" >>"$load_records"
	rc=$?
	load_emit
	sed 's/^/# load log: /' "$load_log"
	bench_tag=
	return $rc
}

# load_around TAG SUITE VAR=VALUE...: suite SUITE of $lib, its TAP as it
# is, with each VAR=VALUE in its environment, under 512 MiB of 4 KiB
# anonymous pages (which fill large-pool, the guest's ZONE_NORMAL, first:
# half of it) of which 16 MiB/s are replaced meanwhile, so that its
# allocations migrate pages and race with new ones. No more: on the debug
# kernel filling and freeing 1 GiB took 130-150 s of a suite's 156-309 s.
load_around() {
	if ! load_start "$1" --size 512M --churn 16M; then
		echo "TAP version 13"
		echo "Bail out! the memory load did not start: $(cat "$load_log")"
		return 1
	fi
	s=$2
	shift 2
	env "$@" sh "$lib/$s.sh"
	rc=$?
	load_stop || rc=1
	return $rc
}

# load_set TAG ARGS...: change the running load (cmabuf_load set ARGS:
# --churn, --splice) and tag what follows with TAG.
load_set() {
	load_emit
	bench_tag=$1
	shift
	cmabuf_load set --socket "$load_sock" "$@" >>"$load_records"
}

# load_bench NAME ARGS...: bench NAME ARGS, every sample after a refill.
load_bench() {
	name=$1
	shift
	bench "$name" "$@" --prepare "$load_refill"
	load_emit
	[ -z "$trace_event" ] || cp $trace/trace "$load_trace"
	trace_emit
}

# trace_on: record 7.2's cma_alloc_busy_retry events (an allocation found
# a window busy and tried the next) on the clock cmabuf_testctl's samples use,
# where the kernel has the event.
trace_on() {
	mount_once tracefs "$trace"
	trace_event=$trace/events/cma/cma_alloc_busy_retry
	if [ ! -d "$trace_event" ]; then
		echo "# no cma_alloc_busy_retry trace event on this kernel"
		trace_event=
		return 0
	fi
	echo mono >$trace/trace_clock
	echo 4096 >$trace/buffer_size_kb
	echo >$trace/trace
	echo 1 >"$trace_event/enable"
	for e in cma_alloc_start cma_alloc_finish; do
		[ ! -d "$trace/events/cma/$e" ] || echo 1 >"$trace/events/cma/$e/enable"
	done
}

# load_why PATH...: one comment line a path of the last load_bench: its
# ALLOC samples, cmabuf's busy retries, pages migrated and failures, and
# the time its samples spent between cma_alloc_start and cma_alloc_finish
# (where the kernel has those events): what a failed comparison needs.
load_why() {
	for p in "$@"; do
		samples=$(json_list samples_ns "$p" alloc)
		[ -n "$samples" ] || { echo "# $p: no result"; continue; }
		starts=$(json_list start_ns "$p" alloc)
		incma=
		if [ -s "$load_trace" ] && [ -n "$starts" ]; then
			incma=$(awk -v s="$starts" -v d="$samples" '
				BEGIN { n = split(s, st, ","); split(d, du, ",") }
				/cma_alloc_(start|finish):/ {
					for (i = 1; i <= NF; i++)
						if ($i ~ /^[0-9]+\.[0-9]+:$/)
							ts = substr($i, 1, length($i) - 1) * 1e9
					if ($0 ~ /cma_alloc_start:/) { t0[$1] = ts; next }
					if (!($1 in t0)) next
					for (k = 1; k <= n; k++)
						if (t0[$1] >= st[k] - 1e6 && ts <= st[k] + du[k] + 1e6)
							in_cma[k] += ts - t0[$1]
					delete t0[$1]
				}
				END {
					for (k = 1; k <= n; k++)
						printf "%s%d", (k > 1 ? "/" : ""), in_cma[k] / 1e6
				}' "$load_trace")
		fi
		ms=$(echo "$samples" | tr ',' '\n' |
			awk '{ printf "%s%d", (NR > 1 ? "/" : ""), $1 / 1e6 }')
		echo "# $p alloc ms $ms${incma:+, in cma_alloc $incma}," \
			"busy retries $(json_list cmabuf_busy_retries "$p" alloc | tr ',' '/')," \
			"migrated $(json_list pgmigrate_success "$p" alloc | tr ',' '/')," \
			"failures $(json_get failures "$p" alloc)"
	done
}

# trace_emit: the events since the last call, and any the buffer lost.
trace_emit() {
	[ -n "$trace_event" ] || return 0
	awk -v tag="$bench_tag" '/cma_alloc_busy_retry:/ {
		ts = ""; name = ""; pfn = ""; count = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^[0-9]+\.[0-9]+:$/) ts = substr($i, 1, length($i) - 1)
			else if ($i ~ /^name=/) name = substr($i, 6)
			else if ($i ~ /^pfn=/) pfn = substr($i, 5)
			else if ($i ~ /^count=/) count = substr($i, 7)
		}
		printf "# trace-json {\"format\": 1, \"record\": \"trace\", \"load\": \"%s\", " \
			"\"event\": \"cma_alloc_busy_retry\", \"ts\": \"%s\", \"area\": \"%s\", " \
			"\"pfn\": \"%s\", \"count\": %s}\n", tag, ts, name, pfn, count + 0
	}' $trace/trace
	lost=$(cat $trace/per_cpu/cpu*/stats 2>/dev/null |
		awk '/^overrun:/ { n += $2 } END { print n + 0 }')
	[ "$lost" -eq 0 ] || echo "# trace: the buffer lost $lost events"
	echo >$trace/trace
}

# json_get KEY PATH PHASE: KEY of the last test's result of PATH and PHASE.
json_get() {
	bench_results | grep "^{\"path\": \"$2\", \"phase\": \"$3\", " |
		sed -n "s/.*\"$1\": \\([0-9][0-9]*\\).*/\\1/p" | head -n 1
}

# json_list KEY PATH PHASE: the list of numbers KEY of the same result,
# comma-separated.
json_list() {
	bench_results | grep "^{\"path\": \"$2\", \"phase\": \"$3\", " |
		sed -n "s/.*\"$1\": \\[\\([0-9, ]*\\)\\].*/\\1/p" | head -n 1 | tr -d ' '
}
