package shepherd

import (
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/model"
)

// defaultPath is PATH when the job's Variable_List has none.
const defaultPath = "/usr/local/bin:/usr/bin:/bin"

// envList is an environment that keeps first-insertion order and lets later
// settings replace earlier ones, so the job sees Variable_List in submission
// order followed by what the agent adds.
type envList struct {
	names  []string
	values map[string]string
}

func (e *envList) set(name, value string) {
	if e.values == nil {
		e.values = map[string]string{}
	}
	if _, ok := e.values[name]; !ok {
		e.names = append(e.names, name)
	}
	e.values[name] = value
}

func (e *envList) has(name string) bool {
	_, ok := e.values[name]
	return ok
}

func (e *envList) environ() []string {
	out := make([]string, 0, len(e.names))
	for _, n := range e.names {
		out = append(out, n+"="+e.values[n])
	}
	return out
}

// jobEnvParams are the host-side facts the job environment needs.
type jobEnvParams struct {
	ID       Identity
	NodeFile string
	TmpDir   string
}

// jobEnvironment builds the job's environment (pbs-cli.md §13): the job's
// Variable_List, then the variables MoM sets at start.
func jobEnvironment(j *model.Job, p jobEnvParams) []string {
	var env envList
	for _, v := range j.Env {
		env.set(v.Name, v.Value)
	}
	env.set("HOME", p.ID.Home)
	env.set("USER", p.ID.Name)
	env.set("LOGNAME", p.ID.Name)
	env.set("SHELL", jobShell(j, p.ID))
	if !env.has("PATH") {
		env.set("PATH", defaultPath)
	}
	env.set("PBS_JOBID", j.ID)
	if j.IsSubjob() {
		env.set("PBS_ARRAY_INDEX", strconv.FormatInt(j.ArrayIndex, 10))
		env.set("PBS_ARRAY_ID", j.ArrayID)
	}
	env.set("PBS_JOBNAME", j.Name)
	env.set("PBS_QUEUE", j.Queue)
	if wd := j.EnvValue("PBS_O_WORKDIR"); wd != "" {
		env.set("PBS_O_WORKDIR", wd)
	}
	env.set("PBS_NODEFILE", p.NodeFile)
	if j.Interactive {
		env.set("PBS_ENVIRONMENT", "PBS_INTERACTIVE")
	} else {
		env.set("PBS_ENVIRONMENT", "PBS_BATCH")
	}
	env.set("PBS_JOBDIR", p.ID.Home)
	env.set("TMPDIR", p.TmpDir)
	ncpus, omp := firstChunkThreads(j)
	env.set("NCPUS", ncpus)
	env.set("OMP_NUM_THREADS", omp)
	if j.Account != "" {
		env.set("PBS_ACCOUNT", j.Account)
	}
	return env.environ()
}

// firstChunkThreads returns NCPUS and OMP_NUM_THREADS: ncpus and ompthreads
// of the first chunk, ompthreads defaulting to ncpus and ncpus to 1.
func firstChunkThreads(j *model.Job) (ncpus, omp string) {
	ncpus = "1"
	if len(j.Select) > 0 {
		if v, ok := j.Select[0].Get("ncpus"); ok {
			ncpus = v
		}
		if v, ok := j.Select[0].Get("ompthreads"); ok {
			return ncpus, v
		}
	}
	return ncpus, ncpus
}

// jobShell is the -S shell when set, else the user's login shell.
// Shell_Path_List may hold "path@host" entries; the first entry's path is
// used (per-host selection is not implemented yet).
func jobShell(j *model.Job, id Identity) string {
	for _, entry := range strings.Split(j.Shell, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		path, _, _ := strings.Cut(entry, "@")
		if path != "" {
			return path
		}
	}
	return id.Shell
}
