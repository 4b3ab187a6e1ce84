# SPDX-License-Identifier: GPL-2.0
#
# queue.sh, sourced: run_queue DIR WORKERS FUNC JOB...: call FUNC with the
# words of each JOB, WORKERS of them at a time. Each worker takes the
# next job nobody took (mkdir is the claim), so the jobs start in their
# order and a long one does not hold the jobs behind it in one lane.
# Returns once every job has ended. FUNC's status is its own business.

run_queue() {
	local dir=$1 workers=$2 func=$3 w
	shift 3
	local -a jobs=("$@")

	mkdir -p "$dir"
	for ((w = 0; w < workers; w++)); do
		(
			local i
			for i in "${!jobs[@]}"; do
				mkdir "$dir/claim.$i" 2>/dev/null || continue
				# shellcheck disable=SC2086 # a job is its words
				"$func" ${jobs[$i]}
			done
		) &
	done
	wait
}

# wait_done DIR NAME: until job NAME said it is done (mark_done).
wait_done() {
	until [ -e "$1/done.$2" ]; do
		sleep 1
	done
}

# mark_done DIR NAME: jobs waiting for NAME may go on.
mark_done() {
	: >"$1/done.$2"
}
