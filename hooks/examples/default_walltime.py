# queuejob hook: give jobs submitted without a walltime a default of one
# hour (an OpenPBS hook; runs unchanged under Strata's pbs module).
#   qmgr -c "create hook defwall event=queuejob"
#   qmgr -c "import hook defwall application/x-python default default_walltime.py"
import pbs

e = pbs.event()
j = e.job
if j.Resource_List["walltime"] is None:
    j.Resource_List["walltime"] = pbs.duration("01:00:00")
    pbs.logjobmsg(j.id or j.Job_Name, "walltime defaulted to 01:00:00")
e.accept()
