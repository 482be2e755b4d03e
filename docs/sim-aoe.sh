#!/bin/sh
# Reproduces the AOE provisioning tables of docs/simulate.md, one
# `strata simulate` per row.
#
#   docs/sim-aoe.sh row TRACE AOES REIMAGE POLICY [WINDOW]   one row
#   docs/sim-aoe.sh grid [JOBS]                               every row of the grid
#
# STRATA names the binary (default: strata on PATH); TRACES the directory of
# the Parallel Workloads Archive traces (default ../shared/traces); the
# repository's own traces are in scheduler/sim/testdata/traces. Rows print
# as Markdown: trace, AOEs, reimage s, policy, reimages, provisioning
# node-seconds, average wait s, average bounded slowdown, utilization,
# estimate mean absolute error s (jobs estimated).
set -eu
STRATA=${STRATA:-strata}
TRACES=${TRACES:-../shared/traces}
here=$(dirname "$0")/..

row() {
	trace=$1 n=$2 r=$3 pol=$4 win=${5:-}
	set -- --trace "$trace" --aoes "$n" --reimage-time "$r" --provision-policy "$pol" -F json
	[ -n "$win" ] && set -- "$@" --window "$win"
	nice -n 10 "$STRATA" simulate "$@" | jq -r --arg t "$(basename "$trace")" --arg w "${win:-all}" \
		'"| \($t) | \($w) | \(.aoes) | \(.reimage_time) | \(.provision_policy) | \(.reimages) | \(.provisioning_node_seconds) | \(.avg_wait|round) | \(.avg_bounded_slowdown*100|round/100) | \(.utilization*1000|round/10)% | \(.estimate_mae|round) (\(.estimated_jobs)) |"'
}

case ${1:-} in
row)
	shift
	row "$@"
	;;
grid)
	jobs=${2:-1000}
	for t in "$here/scheduler/sim/testdata/traces/lublin_256.swf.gz" \
		"$here/scheduler/sim/testdata/traces/KTH-SP2-1996-2.1-cln.swf.gz" \
		"$TRACES/SDSC-SP2-1998-4.2-cln.swf.gz" "$TRACES/CTC-SP2-1996-3.1-cln.swf.gz" \
		"$TRACES/HPC2N-2002-2.2-cln.swf.gz" "$TRACES/SDSC-BLUE-2000-4.2-cln.swf.gz"; do
		[ -f "$t" ] || { echo "skipping $t: not found" >&2; continue; }
		for n in 2 4 8; do
			for r in 60 300 900; do
				for p in aggressive_provision avoid_provision lookahead_provision; do
					echo "$t $n $r $p 0:$jobs"
				done
			done
		done
	done | xargs -P "${PARALLEL:-2}" -L 1 "$0" row
	;;
*)
	sed -n '2,13p' "$0" >&2
	exit 2
	;;
esac
