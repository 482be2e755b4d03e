#!/bin/sh
# make demo: start a local cluster of real processes, run a sample workload
# through the PBS commands, show the results, stop the cluster.
set -eu
DIR=${1:-/tmp/strata-demo}
BIN=$(cd "$(dirname "$0")/../bin" && pwd)

"$BIN/strata" cluster stop --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
echo "== starting a local cluster in $DIR (1 server, 3 agents x 4 cpus)"
"$BIN/strata" cluster start --dir "$DIR" --moms 3 --ncpus 4 --mem 8gb
. "$DIR/env"
trap 'strata cluster stop --dir "$DIR"' EXIT
strata cluster status --dir "$DIR"

mkdir -p "$DIR/work" && cd "$DIR/work"
cat > hello_mpi.sh <<'JOB'
#!/bin/sh
#PBS -N hello_mpi
#PBS -l select=2:ncpus=2:mem=1gb
#PBS -l place=scatter
#PBS -l walltime=00:05:00
#PBS -j oe
cd "$PBS_O_WORKDIR"
echo "job $PBS_JOBID ($PBS_JOBNAME) in queue $PBS_QUEUE"
echo "running on $(wc -l < "$PBS_NODEFILE") ranks:"
sort "$PBS_NODEFILE" | uniq -c
echo "NCPUS=$NCPUS TMPDIR=$TMPDIR"
sleep 2
echo done
JOB

echo
echo "== pbsnodes -a"
pbsnodes -a | head -20
echo "..."
echo
echo "== qsub hello_mpi.sh, plus three small jobs"
main=$(qsub hello_mpi.sh)
echo "$main"
for i in 1 2 3; do qsub -N small$i -l walltime=60 -- /bin/sleep 1; done
echo
echo "== qstat"
qstat
echo
echo "== waiting for the jobs to finish"
for _ in $(seq 1 100); do
  [ -z "$(qstat)" ] && break
  sleep 0.2
done
echo
echo "== qstat -x"
qstat -x
echo
seq=${main%%.*}
echo "== hello_mpi.o$seq"
cat "hello_mpi.o$seq"
echo
echo "== qstat -xf $main (excerpt)"
qstat -xf "$main" | grep -E 'job_state|exec_host|exec_vnode|Exit_status|resources_used|comment' || true
echo
echo "demo finished; the cluster is stopped, its files stay in $DIR"
