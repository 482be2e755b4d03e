# modifyjob hook: qalter may not raise a job's walltime above 2 hours. As
# in OpenPBS, e.job holds what the qalter request changes and e.job_o the
# job as it is.
#   qmgr -c "create hook capwall event=modifyjob"
#   qmgr -c "import hook capwall application/x-python default modifyjob_cap_walltime.py"
import pbs

CAP = pbs.duration("02:00:00")

e = pbs.event()
new = e.job.Resource_List["walltime"]
if new is not None and new > CAP:
    old = e.job_o.Resource_List["walltime"]
    e.reject("walltime %s exceeds %s (job %s keeps %s)" % (new, CAP, e.job_o.id, old))
e.accept()
