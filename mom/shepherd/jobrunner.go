package shepherd

import (
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
)

// jobRunner runs one job inside the shepherd process.
type jobRunner struct {
	dir       string
	job       *model.Job
	params    LaunchParams
	killDelay time.Duration
	logger    *log.Logger

	asRoot   bool
	id       Identity
	tmpdir   string
	auxFiles []string // the job's node file and script (auxfiles.go)

	clock *runClock   // walltime, suspended time excluded
	meter *usageMeter // sampled usage of the job's session
	cg    *JobCgroup  // the run's cgroup; nil: contained by process group only

	stagedIn []string            // files stage-in created, removed when the job ends
	session  *interactiveSession // qsub -I's terminal; nil for a batch job
}

// run sets the job up, runs it to completion and delivers its output.
func (r *jobRunner) run(sigs <-chan os.Signal) *Result {
	j := r.job
	r.asRoot = os.Geteuid() == 0
	if !r.asRoot && j.UID != os.Getuid() {
		return Failed(model.ExitFailUID, "agent runs as uid %d and cannot run jobs of uid %d", os.Getuid(), j.UID)
	}
	r.id = r.identity()
	if res := r.startHooks("execjob_begin"); res != nil {
		return res
	}
	if res := r.stageIn(); res != nil {
		return res
	}

	cmd, stdout, stderr, err := r.prepare()
	if err != nil {
		r.removeStagedIn()
		r.cleanup()
		return Failed(model.ExitFail1, "%v", err)
	}
	if res := r.startHooks("execjob_prologue"); res != nil {
		if r.session != nil {
			r.session.abandon()
		}
		stdout.Close()
		if stderr != stdout {
			stderr.Close()
		}
		r.removeStagedIn()
		r.cleanup()
		return res
	}
	r.setupCgroup()
	start := time.Now()
	// The job runs with its umask (-W umask, default 077); the shepherd's
	// own is restored right after the fork.
	err = withUmask(j.JobUmask(), func() error { return r.start(cmd) })
	// stderr stays open for the agent's own last word to the job's owner
	// (the walltime kill message), as PBS's MoM writes it.
	if stderr != stdout {
		stdout.Close()
	}
	defer stderr.Close()
	if r.session != nil {
		if err != nil {
			r.session.abandon()
		} else {
			r.session.relay()
		}
	}
	if err != nil {
		r.removeStagedIn()
		r.cleanup()
		return Failed(model.ExitFail2, "cannot start job: %v", err)
	}
	pid := cmd.Process.Pid
	if err := WriteJSONRun(filepath.Join(r.dir, FileJobPid), JobPidRecord{Pid: pid, StartUnix: start.Unix()}, 0o600); err != nil {
		r.logger.Printf("record job pid: %v", err)
	}

	r.clock = &runClock{start: start}
	r.meter = &usageMeter{sid: pid, ncpus: allocatedNcpus(j), cg: r.cg}
	walltimeExceeded, killed := r.wait(cmd, pid, sigs)
	end := time.Now()
	// Leftover background processes of the job die with it, as under PBS:
	// the process group, and with a cgroup every process the job started.
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	r.killCgroup()

	res := &Result{Kind: model.JobEventEnded, SessionID: pid}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case walltimeExceeded:
		// The server words the comment from the exit status; the owner
		// learns it from the job's stderr, in PBS's words.
		res.Exit = model.ExitKillWalltime
		limit, _ := model.ParseDuration(j.ResourceList["walltime"])
		msg := fmt.Sprintf("=>> PBS: job killed: walltime %d exceeded limit %d", int64(r.clock.elapsed(end).Seconds()), limit)
		if r.session != nil {
			r.session.say(msg)
		} else {
			fmt.Fprintln(stderr, msg)
		}
	case ws.Signaled():
		res.Exit = 256 + int(ws.Signal())
	default:
		res.Exit = ws.ExitStatus()
	}
	if killed {
		r.logger.Printf("job %s was killed on request", j.ID)
	}
	res.Used = r.usage(cmd.ProcessState, r.clock.elapsed(end))
	if r.cg != nil && r.cg.OOMKills() > 0 {
		res.Comment = joinComment(res.Comment, "job exceeded its memory limit (mem): processes were killed")
	}
	if r.session != nil {
		r.session.finish(res.Exit)
	}
	r.endHooks("execjob_epilogue", res)
	// PBS order: stage-out, then output delivery (an interactive job has
	// no output files), then staged-in files go.
	if note := r.stageOut(); note != "" {
		res.Comment = joinComment(res.Comment, note)
	}
	if r.session == nil {
		if note := r.deliverOutputs(); note != "" {
			res.Comment = joinComment(res.Comment, note)
		}
	}
	r.removeStagedIn()
	r.endHooks("execjob_end", res)
	r.cleanup()
	return res
}

// identity is the job owner as the agent resolved it; a launch record
// without one (or for another uid) is looked up here, without NSS in the
// static shepherd (os/user then reads /etc/passwd and /etc/group).
func (r *jobRunner) identity() Identity {
	j := r.job
	if id := r.params.Identity; id != nil && id.UID == j.UID && id.GID == j.GID {
		return *id
	}
	return LookupIdentity(j.UID, j.GID, j.User)
}

// prepare creates TMPDIR, the script and node files and the output spool
// files, and builds the command. The returned files are the job's stdout
// and stderr (the same file when joined); the caller closes them.
func (r *jobRunner) prepare() (*exec.Cmd, *os.File, *os.File, error) {
	j := r.job
	tmpdir, err := r.makeTmpdir()
	if err != nil {
		return nil, nil, nil, err
	}
	r.tmpdir = tmpdir
	aux, err := r.auxDir()
	if err != nil {
		return nil, nil, nil, err
	}
	nodefile := filepath.Join(aux, r.job.ID)
	nodes := strings.Join(j.NodeFile(), "\n")
	if nodes != "" {
		nodes += "\n"
	}
	if err := r.writeUserFile(nodefile, []byte(nodes), 0o400); err != nil {
		return nil, nil, nil, fmt.Errorf("write node file: %w", err)
	}
	env := jobEnvironment(j, jobEnvParams{ID: r.id, NodeFile: nodefile, TmpDir: tmpdir})
	if j.Interactive() {
		// The session is the job: no script, and the terminal stands for
		// stdout and stderr (PBS writes no .o or .e for it).
		cmd := &exec.Cmd{Env: env, Dir: r.id.Home,
			SysProcAttr: &syscall.SysProcAttr{Setsid: true, Credential: r.credential()}}
		if err := r.openInteractive(cmd); err != nil {
			return nil, nil, nil, err
		}
		return cmd, r.session.tty, r.session.tty, nil
	}

	var argv []string
	if len(j.Argv) > 0 {
		prog, err := lookPathIn(j.Argv[0], envValue(env, "PATH"))
		if err != nil {
			return nil, nil, nil, err
		}
		argv = append([]string{prog}, j.Argv[1:]...)
	} else {
		script := filepath.Join(aux, r.job.ID+".SC")
		if err := r.writeUserFile(script, []byte(j.Script), 0o500); err != nil {
			return nil, nil, nil, fmt.Errorf("write job script: %w", err)
		}
		argv = []string{jobShell(j, r.id), script}
	}

	stdout, stderr, err := r.openSpoolOutput()
	if err != nil {
		return nil, nil, nil, err
	}
	cmd := &exec.Cmd{
		Path:   argv[0],
		Args:   argv,
		Env:    env,
		Dir:    r.id.Home,
		Stdout: stdout,
		Stderr: stderr,
		// Setsid makes the job pid its own process group and session, so
		// signals reach everything it starts and session_id == job pid.
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Credential: r.credential()},
	}
	return cmd, stdout, stderr, nil
}

// credential is the identity to switch to, nil when the agent is not root
// (it then only runs its own user's jobs and cannot switch).
func (r *jobRunner) credential() *syscall.Credential {
	if !r.asRoot {
		return nil
	}
	groups := []uint32{uint32(r.id.GID)}
	for _, g := range r.id.Groups {
		if g != uint32(r.id.GID) {
			groups = append(groups, g)
		}
	}
	return &syscall.Credential{Uid: uint32(r.id.UID), Gid: uint32(r.id.GID), Groups: groups}
}

// makeTmpdir creates <tmpdir>/pbs.<jobid>, 0700 and owned by the user.
// Anything already at that path (a leftover, or a user's symlink planted in
// a sticky /var/tmp) is removed first; RemoveAll does not follow symlinks
// and Mkdir fails rather than reuse a path someone recreated meanwhile.
func (r *jobRunner) makeTmpdir() (string, error) {
	path := filepath.Join(r.params.TmpDir, "pbs."+r.job.ID)
	if err := os.RemoveAll(path); err != nil {
		return "", fmt.Errorf("clear TMPDIR %s: %w", path, err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		return "", fmt.Errorf("create TMPDIR: %w", err)
	}
	if r.asRoot {
		if err := os.Lchown(path, r.id.UID, r.id.GID); err != nil {
			return "", fmt.Errorf("chown TMPDIR: %w", err)
		}
	}
	return path, nil
}

// withUmask runs fn (which forks) with the process umask set to mask. The
// umask is per process; the shepherd does nothing else meanwhile.
func withUmask(mask int, fn func() error) error {
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	return fn()
}

// openSpoolOutput opens the files for stdout and stderr, honouring
// Join_Path ("oe" sends stderr into the stdout file, "eo" the reverse) and
// Keep_Files (kept and direct streams are opened at their final path, the
// others in the spool).
func (r *jobRunner) openSpoolOutput() (stdout, stderr *os.File, err error) {
	open := func(t outputTarget) (*os.File, error) {
		if t.direct {
			return r.openDirect(t)
		}
		f, err := os.OpenFile(filepath.Join(r.dir, t.spool), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open spool %s: %w", t.spool, err)
		}
		return f, nil
	}
	targets := r.outputTargets()
	if len(targets) == 1 {
		f, err := open(targets[0])
		return f, f, err
	}
	if stdout, err = open(targets[0]); err != nil {
		return nil, nil, err
	}
	if stderr, err = open(targets[1]); err != nil {
		stdout.Close()
		return nil, nil, err
	}
	return stdout, stderr, nil
}

// wait waits for the job, enforcing walltime (suspended time excluded),
// delivering signal requests and sampling usage. Kill requests (SIGTERM to
// the shepherd) and walltime both send SIGTERM to the job's process group
// and SIGKILL after the kill delay. sigs also carries pokeSignal, the
// agent's note that signals.json has new requests.
func (r *jobRunner) wait(cmd *exec.Cmd, pid int, sigs <-chan os.Signal) (walltimeExceeded, killed bool) {
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	clock := r.clock
	var limit time.Duration
	if wt, ok := r.job.ResourceList["walltime"]; ok {
		if secs, err := model.ParseDuration(wt); err == nil && secs > 0 {
			limit = time.Duration(secs) * time.Second
		}
	}
	// The walltime timer runs only while the job is not suspended; it is
	// re-armed with what is left of the limit on every resume.
	var wtTimer *time.Timer
	var walltime <-chan time.Time
	arm := func(now time.Time) {
		if wtTimer != nil {
			wtTimer.Stop()
			wtTimer, walltime = nil, nil
		}
		if limit == 0 || walltimeExceeded || clock.suspended {
			return
		}
		wtTimer = time.NewTimer(max(limit-clock.elapsed(now), 0))
		walltime = wtTimer.C
	}
	arm(time.Now())
	defer func() {
		if wtTimer != nil {
			wtTimer.Stop()
		}
	}()

	var hardKill <-chan time.Time
	terminating := false
	terminate := func(why string) {
		if terminating {
			return
		}
		terminating = true
		r.logger.Printf("job %s: %s; SIGTERM to process group %d", r.job.ID, why, pid)
		_ = syscall.Kill(-pid, syscall.SIGTERM)
		r.signalCgroup(pid, syscall.SIGTERM)
		if clock.suspended {
			// Stopped processes act on SIGTERM only once continued.
			_ = syscall.Kill(-pid, syscall.SIGCONT)
			r.signalCgroup(pid, syscall.SIGCONT)
			clock.resume(time.Now())
		}
		t := time.NewTimer(r.killDelay)
		hardKill = t.C
	}

	sd := &signalDeliverer{dir: r.dir, pgid: pid, clock: clock, done: readSignalsDone(r.dir), logf: r.logger.Printf, kill: syscall.Kill, cg: r.cg}
	sd.checkpoint = func() { // preemption by checkpoint (checkpoint.go)
		r.checkpoint(pid)
		killed = true
		terminate("preempted by checkpointing")
	}
	checkSignals := func() {
		if terminating {
			return // the job is being killed: a suspend would only delay that
		}
		if sd.deliverPending(time.Now()) {
			arm(time.Now())
		}
	}
	checkSignals() // requests made before the job started
	poll := time.NewTicker(signalPollInterval)
	defer poll.Stop()

	interval := time.Duration(r.params.UsageIntervalMs) * time.Millisecond
	if interval <= 0 {
		interval = DefaultUsageInterval
	}
	usageTimer := time.NewTimer(min(interval, time.Second))
	defer usageTimer.Stop()

	for {
		select {
		case <-done:
			return walltimeExceeded, killed
		case <-walltime:
			walltime, wtTimer = nil, nil
			walltimeExceeded = true
			terminate("walltime exceeded")
		case s := <-sigs:
			if s == PokeSignal {
				checkSignals()
				continue
			}
			killed = true
			terminate("kill requested")
		case <-poll.C:
			checkSignals()
		case <-usageTimer.C:
			r.meter.sample()
			if err := WriteJSONRun(filepath.Join(r.dir, FileUsage), r.meter.used(clock.elapsed(time.Now())), 0o600); err != nil {
				r.logger.Printf("record usage: %v", err)
			}
			usageTimer.Reset(interval)
		case <-hardKill:
			r.logger.Printf("job %s: still alive after %s; SIGKILL", r.job.ID, r.killDelay)
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			r.killCgroup()
			hardKill = nil
		}
	}
}

// usage builds the final resources_used from the job's rusage and the
// samples taken while it ran (which also saw processes the job did not
// wait for); wall excludes suspended time.
func (r *jobRunner) usage(ps *os.ProcessState, wall time.Duration) map[string]string {
	m := r.meter
	m.cgroupCounters()
	if ticks := uint64((ps.UserTime() + ps.SystemTime()) / (time.Second / clockTicks)); ticks > m.cpuTicks {
		m.cpuTicks = ticks
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 0 && uint64(ru.Maxrss) > m.maxRSSKB {
		m.maxRSSKB = uint64(ru.Maxrss) // Linux reports kilobytes
	}
	used := m.used(wall)
	if m.maxVmemKB == 0 {
		delete(used, "vmem") // never sampled: unknown rather than zero
	}
	return used
}

// allocatedNcpus is Resource_List.ncpus, or the select total.
func allocatedNcpus(j *model.Job) string {
	if v := j.ResourceList["ncpus"]; v != "" {
		return v
	}
	if n := j.Select.Total("ncpus"); n > 0 {
		return strconv.FormatFloat(n, 'f', -1, 64)
	}
	return "1"
}

// cleanup removes TMPDIR, the job's aux files and its cgroup; the spool
// directory stays until the agent has reported the result.
func (r *jobRunner) cleanup() {
	r.removeCgroup()
	if r.tmpdir != "" {
		if err := os.RemoveAll(r.tmpdir); err != nil {
			r.logger.Printf("remove %s: %v", r.tmpdir, err)
		}
	}
	for _, f := range r.auxFiles {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			r.logger.Printf("remove %s: %v", f, err)
		}
	}
}

// lookPathIn resolves a program name against the job's PATH rather than the
// shepherd's.
func lookPathIn(prog, path string) (string, error) {
	if strings.Contains(prog, "/") {
		return prog, nil
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			continue
		}
		p := filepath.Join(d, prog)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w", prog, exec.ErrNotFound)
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

func joinComment(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
