#!/bin/sh
# make demo: start a local cluster of real processes, run a sample workload
# through the PBS commands, show the results, stop the cluster. The web page
# (docs/observability.md) is at $STRATA_WEB/ui/ meanwhile; with chromium
# installed a screenshot of it is saved; `make demo KEEP=1` leaves the
# cluster up afterwards so the page can be looked at, and says how to stop it.
set -eu
DIR=${1:-/tmp/strata-demo}
BIN=$(cd "$(dirname "$0")/../bin" && pwd)
HOOKS=$(cd "$(dirname "$0")/../hooks/examples" && pwd)

"$BIN/strata" cluster stop --dir "$DIR" >/dev/null 2>&1 || true
rm -rf "$DIR"
echo "== starting a local cluster in $DIR (1 server, 3 agents x 4 cpus)"
"$BIN/strata" cluster start --dir "$DIR" --moms 3 --ncpus 4 --mem 8gb
. "$DIR/env"
if [ -z "${KEEP:-}" ]; then
  trap 'strata cluster stop --dir "$DIR"' EXIT
fi
# shot FILE: a headless Chromium screenshot of the page, logged in as this
# user (strata web login), when chromium is installed.
shot() {
  command -v chromium >/dev/null || return 0
  link=$(strata web login 2>/dev/null) || return 0
  sandbox=; [ "$(id -u)" = 0 ] && sandbox=--no-sandbox
  chromium --headless --disable-gpu --no-first-run --hide-scrollbars $sandbox \
    --user-data-dir="$DIR/chromium" --virtual-time-budget=4000 --window-size=1280,1100 \
    --screenshot="$1" "$link" >/dev/null 2>&1 && echo "-- screenshot of the web page: $1"
}
echo "== web page (node map, queue, provisioning): $STRATA_WEB/ui/  (jobs after: strata web login)"
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
echo
echo "== AOE provisioning (docs/provisioning.md): one provision hook, run by the agents"
qmgr -c "create hook prov event=provision"
qmgr -c "set hook prov alarm = 60"
qmgr -c "import hook prov application/x-executable default $HOOKS/provision_local.sh"
qmgr -c 'set node node3 provision_enable = true, resources_available.aoe = "rhel9,app_gromacs"'
echo "-- a job that needs application provisioning (hook exits 1) and one that needs an OS image (exit 0 + reboot)"
app=$(qsub -N app -l select=1:ncpus=4:aoe=app_gromacs -- /bin/sleep 1)
echo "$app"
for _ in $(seq 1 50); do
  qstat -f "$app" 2>/dev/null | grep -q 'substate = 71' && break
  sleep 0.1
done
qstat -f "$app" | grep -E 'job_state|substate|exec_vnode' || true
pbsnodes node3 | grep -E ' state =|current_aoe' || true
os=$(qsub -N os -l select=1:ncpus=4:aoe=rhel9 -- /bin/sleep 1)
echo "$os"
for _ in $(seq 1 100); do
  qstat -f "$os" 2>/dev/null | grep -q 'substate = 71' && break
  sleep 0.1
done
echo "-- $os while node3 is reimaged (the agent restarts with a new boot id)"
qstat -f "$os" 2>/dev/null | grep -E 'job_state|substate|exec_vnode' || true
pbsnodes node3 | grep -E ' state =|current_aoe' || true
shot "$DIR/web-provisioning.png"
for _ in $(seq 1 150); do
  [ -z "$(qstat)" ] && break
  sleep 0.2
done
echo "-- after provisioning"
pbsnodes node3 | grep -E ' state =|current_aoe' || true
qstat -x "$app" "$os"
strata provision status
echo
if [ -n "${KEEP:-}" ]; then
  echo "demo finished; the cluster stays up: web page $STRATA_WEB/ui/ (strata web login for jobs), metrics $STRATA_WEB/metrics"
  echo "use it with: . $DIR/env      stop it with: $BIN/strata cluster stop --dir $DIR"
else
  echo "demo finished; the cluster is stopped, its files stay in $DIR (make demo KEEP=1 leaves it up to look at $STRATA_WEB/ui/)"
fi
