# execjob_begin hook: log each job start on the execution host and refuse
# to start jobs on a host an administrator marked as draining (touch
# /etc/strata/draining); PBS requeues the refused job.
#   qmgr -c "create hook begincheck event=execjob_begin"
#   qmgr -c "import hook begincheck application/x-python default execjob_begin_check.py"
import os
import pbs

e = pbs.event()
j = e.job
host = pbs.get_local_nodename()
pbs.logjobmsg(j.id, "execjob_begin on %s: job %s of %s, vnodes %s" % (
    host, j.Job_Name, j.euser, ",".join(sorted(e.vnode_list.keys()))))
if os.path.exists("/etc/strata/draining"):
    e.reject("host %s is draining" % host)
e.accept()
