#!/bin/sh
# make demo-ha: a local cluster of three Raft servers; jobs go in through a
# follower, the leader is SIGKILLed, a new leader takes over, nothing is
# lost and queued work runs (docs/ha.md).
set -eu
DIR=${1:-/tmp/strata-demo-ha}
BIN=$(cd "$(dirname "$0")/../bin" && pwd)

"$BIN/strata" cluster stop --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
echo "== starting a local HA cluster in $DIR (3 servers, 2 agents x 2 cpus)"
"$BIN/strata" cluster start --dir "$DIR" --servers 3 --moms 2 --ncpus 2 --mem 4gb
. "$DIR/env"
trap 'strata cluster stop --dir "$DIR"' EXIT
strata cluster status --dir "$DIR"
echo
echo "== strata operator raft list-peers"
strata operator raft list-peers

leader=$(strata cluster status --dir "$DIR" | awk '$5 == "leader" { print $1 }')
follower=$(strata cluster status --dir "$DIR" | awk '$5 == "follower" { print $1; exit }')
mkdir -p "$DIR/work" && cd "$DIR/work"
printf '#!/bin/sh\n#PBS -N ha\nsleep 3\necho ran on $(hostname)\n' > job.sh
echo
echo "== six jobs submitted through $follower (a follower: it forwards to $leader)"
ids=""
for i in 1 2 3 4 5 6; do ids="$ids $(STRATA_SOCKET=$DIR/$follower/strata.sock qsub job.sh)"; done
echo "acknowledged:$ids"
STRATA_SOCKET=$DIR/$follower/strata.sock qstat -B
qstat

echo
echo "== SIGKILL the leader $leader"
kill -9 "$(cat "$DIR/$leader.pid")"
start=$(date +%s.%N)
new=$(qsub job.sh)
echo "first qsub after the kill: $new, $(echo "$(date +%s.%N) - $start" | bc) s after the kill"
strata cluster status --dir "$DIR"
qstat -B

echo
echo "== waiting for every job to finish"
for id in $ids $new; do
	while [ "$(qstat -x -f "$id" | awk '/job_state/ { print $3 }')" != F ]; do sleep 0.5; done
done
qstat -x
echo
echo "== $leader restarted: it rejoins as a follower and catches up"
strata cluster start --dir "$DIR" >/dev/null
# Its Raft role shows once it has heard from the leader (at most ~10 s).
for _ in $(seq 1 20); do
	strata cluster status --dir "$DIR" -F json | grep -q '"raft": *"down"' || break
	sleep 0.5
done
strata cluster status --dir "$DIR"
echo
echo "== backup: strata operator snapshot save"
strata operator snapshot save "$DIR/backup.snap"
