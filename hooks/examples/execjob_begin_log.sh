#!/bin/sh
# execjob_begin hook: record each job start on the execution host. No JSON
# parser needed: the simple fields are in the environment.
#   qmgr -c "create hook beginlog event=execjob_begin"
#   qmgr -c "import hook beginlog application/x-executable default execjob_begin_log.sh"
echo "$(date '+%F %T') $STRATA_HOOK_JOBID owner=$STRATA_HOOK_JOBOWNER" >> /var/log/strata-job-starts.log
exit 0
