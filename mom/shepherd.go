package mom

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
	"github.com/strata-hpc/strata/server/api"
)

// Shepherd modes, the first argument of ShepherdMain.
const (
	shepherdRun     = "run"     // run <jobdir>: supervise one job
	shepherdDeliver = "deliver" // deliver <dst> <name-in-dir>: copy stdin to dst as the user
	// transfer: copy job files as the user (stage_helper.go); the
	// request on stdin, the results on stdout.
	shepherdTransfer = "transfer"
)

// ShepherdMain is the entry point of the per-job shepherd process (the
// hidden "strata mom-shepherd" subcommand); args are the arguments after the
// subcommand. It returns the process exit status.
func ShepherdMain(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "mom-shepherd: missing mode")
		return 2
	}
	switch {
	case args[0] == shepherdRun && len(args) == 2:
		return shepherdRunMain(args[1], os.Stdin)
	case args[0] == shepherdDeliver && len(args) == 3:
		return deliverMain(args[1], args[2], os.Stdin)
	case args[0] == shepherdTransfer && len(args) == 1:
		return transferMain(os.Stdin, os.Stdout)
	}
	fmt.Fprintf(os.Stderr, "mom-shepherd: bad arguments %q\n", args)
	return 2
}

// shepherdRunMain supervises the job in dir and writes its result.
//
// The agent writes the shepherd's pid record and only then sends 'g' on
// stdin. If the agent dies before that, stdin reaches EOF and the shepherd
// exits without running anything: a job never runs without a record that a
// restarted agent can find.
func shepherdRunMain(dir string, goSignal io.Reader) int {
	logger := log.New(os.Stderr, "shepherd: ", log.LstdFlags|log.Lmicroseconds)
	// Kill requests (SIGTERM from the agent) are caught from the very start:
	// a delete racing the job's start must end the job, not the shepherd.
	// A pending request makes the job terminate as soon as it starts.
	// pokeSignal (new signal requests in signals.json) shares the channel.
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, syscall.SIGTERM, pokeSignal)
	// SIGHUP and SIGINT are caught and dropped rather than ignored: an
	// ignored disposition would be inherited by the job across exec.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP, syscall.SIGINT)
	buf := make([]byte, 1)
	if n, _ := io.ReadFull(goSignal, buf); n != 1 || buf[0] != 'g' {
		logger.Printf("agent went away before the job was started; not running it")
		return 1
	}
	res := superviseJob(dir, sigs, logger)
	if err := writeJSONAtomic(filepath.Join(dir, fileResult), res, 0o600); err != nil {
		logger.Printf("cannot record the result: %v", err)
		return 1
	}
	logger.Printf("job ended: kind=%s exit=%d", res.Kind, res.Exit)
	return 0
}

// superviseJob loads the job and runs it; any setup failure becomes a failed
// result rather than an error, since the agent must report something.
func superviseJob(dir string, sigs <-chan os.Signal, logger *log.Logger) *Result {
	j, err := readJob(dir)
	if err != nil {
		return failed(model.ExitFail1, "cannot read job: %v", err)
	}
	var lp launchParams
	if err := readJSON(filepath.Join(dir, fileLaunch), &lp); err != nil {
		return failed(model.ExitFail1, "cannot read launch parameters: %v", err)
	}
	sh := &jobRunner{
		dir:       dir,
		job:       j,
		params:    lp,
		killDelay: time.Duration(lp.KillDelayMs) * time.Millisecond,
		logger:    logger,
	}
	return sh.run(sigs)
}

// failed builds the result of a job that could not be started.
func failed(exit int, format string, args ...any) *Result {
	return &Result{Kind: api.EventFailed, Exit: exit, Comment: fmt.Sprintf(format, args...)}
}

// deliverMain runs as the job's owner: it copies src (stdin, opened by the
// shepherd) to dst, creating or truncating it with the user's permissions.
// Delivery now goes through the transfer helper; this mode stays for
// shepherds started by the previous release, which re-execute the
// (upgraded) binary to deliver.
// When dst is a directory the file is named nameInDir inside it (qsub -o
// naming a directory). Errors go to stderr, which the shepherd puts in the
// job's comment.
func deliverMain(dst, nameInDir string, src io.Reader) int {
	if st, err := os.Stat(dst); err == nil && st.IsDir() {
		dst = filepath.Join(dst, nameInDir)
	}
	// 0666 less the umask the shepherd started this helper with: the
	// job's (-W umask, default 077).
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "write %s: %v\n", dst, err)
		return 1
	}
	return 0
}
