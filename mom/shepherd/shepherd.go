package shepherd

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
)

// shepherdTransfer is the helper mode of the agent's executable ("strata
// mom-shepherd transfer", stage_helper.go in package mom) that copies job
// files as the job's owner; launchParams.SelfCommand is its prefix.
const shepherdTransfer = "transfer"

// Main is the entry point of the shepherd executable (cmd/strata-shepherd):
// "run <jobdir>" supervises one job. It returns the process exit status.
func Main(args []string) int {
	if len(args) == 2 && args[0] == "run" {
		return Run(args[1], os.Stdin)
	}
	fmt.Fprintf(os.Stderr, "strata-shepherd: bad arguments %q (it is started by the node agent: strata-shepherd run <jobdir>)\n", args)
	return 2
}

// Run supervises the job in dir and writes its result.
//
// The agent writes the shepherd's pid record and only then sends 'g' on
// goSignal (stdin). If the agent dies before that, stdin reaches EOF and
// the shepherd exits without running anything: a job never runs without a
// record that a restarted agent can find.
func Run(dir string, goSignal io.Reader) int {
	// The shepherds of an agent share one log (stderr, <spool>/shepherd.log):
	// each line names its run. Only what is worth an operator's attention
	// goes there (kills, failures, hooks' words); the start and the end of
	// each job are in the agent's log and the job's record.
	logger := log.New(logLines{os.Stderr}, "shepherd "+filepath.Base(dir)+": ", log.LstdFlags|log.Lmicroseconds)
	// Kill requests (SIGTERM from the agent) are caught from the very start:
	// a delete racing the job's start must end the job, not the shepherd.
	// A pending request makes the job terminate as soon as it starts.
	// PokeSignal (new signal requests in signals.json) shares the channel.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, PokeSignal)
	// SIGHUP and SIGINT are caught and dropped rather than ignored: an
	// ignored disposition would be inherited by the job across exec.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP, syscall.SIGINT)
	buf := make([]byte, 1)
	if n, _ := io.ReadFull(goSignal, buf); n != 1 || buf[0] != 'g' {
		logger.Printf("agent went away before the job was started; not running it")
		return 1
	}
	res := superviseJob(dir, sigs, logger)
	if err := WriteJSONAtomic(filepath.Join(dir, FileResult), res, 0o600); err != nil {
		logger.Printf("cannot record the result: %v", err)
		return 1
	}
	return 0
}

// superviseJob loads the job and runs it; any setup failure becomes a failed
// result rather than an error, since the agent must report something.
func superviseJob(dir string, sigs <-chan os.Signal, logger *log.Logger) *Result {
	j, lp, err := ReadRecord(dir)
	if err != nil {
		return Failed(model.ExitFail1, "cannot read job: %v", err)
	}
	if lp == nil {
		return Failed(model.ExitFail1, "cannot read launch parameters: the record has none")
	}
	sh := &jobRunner{
		dir:       dir,
		job:       j,
		params:    *lp,
		killDelay: time.Duration(lp.KillDelayMs) * time.Millisecond,
		logger:    logger,
	}
	return sh.run(sigs)
}

// Failed builds the result of a job that could not be started.
func Failed(exit int, format string, args ...any) *Result {
	return &Result{Kind: model.JobEventFailed, Exit: exit, Comment: fmt.Sprintf(format, args...)}
}
