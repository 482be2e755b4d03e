# queuejob hook: refuse jobs asking for more than 64 cpus in workq, and
# jobs without a project (OpenPBS style: reject by rule; qsub prints
# "qsub: <message>").
#   qmgr -c "create hook ncpulimit event=queuejob"
#   qmgr -c "import hook ncpulimit application/x-python default queuejob_limit_ncpus.py"
import pbs

MAX_NCPUS = 64

e = pbs.event()
j = e.job
try:
    ncpus = j.Resource_List["ncpus"]
    queue = j.queue.name if j.queue else ""
    if ncpus is not None and ncpus > MAX_NCPUS and queue in ("", "workq"):
        e.reject("Job %s requests %d cpus; workq allows at most %d" % (j.Job_Name, ncpus, MAX_NCPUS))
    if j.project in (None, "", "_pbs_project_default"):
        e.reject("Please submit with a project: qsub -P <project>")
except SystemExit:
    pass
except Exception as exc:
    e.reject("ncpulimit hook failed: %s" % exc)
