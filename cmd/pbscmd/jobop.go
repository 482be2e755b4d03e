package pbscmd

import (
	"context"
	"fmt"
	"sync"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// forEachJob runs op on every job operand, the way qhold, qrls, qsig,
// qalter and friends do: a malformed id is reported and skipped (code 1),
// short ids are expanded, a server refusal prints "<cmd>: <text> <id>", and
// the exit status is the last failure's. A connection failure stops at
// once.
func forEachJob(ctx context.Context, env *Env, cmd string, operands []string, op func(s *session, id string) error) int {
	return forEachJobN(ctx, env, cmd, operands, 1, op)
}

// parallelOps is how many requests a command keeps in flight when it
// sends one request per id (to a server without the batched routes), and
// the number of operands from which qhold, qrls and qdel batch them
// (jobop_batch.go): each request waits for its own Raft commit, and
// concurrent ones share an fsync.
const parallelOps = 16

func forEachJobN(ctx context.Context, env *Env, cmd string, operands []string, workers int, op func(s *session, id string) error) int {
	s := newSession(env)
	// Ids are parsed and expanded in order first (the first short id asks
	// for the server's name once); then the operations run.
	items := make([]jobItem, len(operands))
	run := func(i int) {
		if items[i].bad || items[i].err != nil {
			return
		}
		items[i].err = op(s, items[i].full)
	}
	rep := &opReporter{env: env, cmd: cmd}
	report := func(i int) (stop bool) { return rep.report(operands[i], items[i]) }
	for i, arg := range operands {
		items[i] = parseItem(ctx, s, arg)
		if workers <= 1 {
			// One at a time: report as it goes and stop at a connection
			// failure before touching the next job.
			run(i)
			if report(i) {
				return rep.code
			}
		}
	}
	if workers <= 1 {
		return rep.code
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				run(i)
			}
		}()
	}
	for i := range items {
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range items {
		if report(i) {
			break
		}
	}
	return rep.code
}

// jobItem is one job operand of forEachJob and its outcome.
type jobItem struct {
	full string
	err  error // parse, expansion or operation failure
	bad  bool  // malformed operand
}

// parseItem parses and expands one job operand.
func parseItem(ctx context.Context, s *session, arg string) jobItem {
	var it jobItem
	id, err := model.ParseJobID(arg)
	if err != nil || id.Prefix != "" {
		it.bad = true
	} else {
		it.full, it.err = expandJobID(ctx, s, id)
	}
	return it
}

// opReporter prints the outcome of each operand and keeps the exit
// status: the last failure's.
type opReporter struct {
	env  *Env
	cmd  string
	code int
}

// report prints the outcome of one operand; stop says a connection failed and the
// remaining operands are not reported.
func (r *opReporter) report(operand string, it jobItem) (stop bool) {
	switch {
	case it.bad:
		fmt.Fprintf(r.env.Stderr, "%s: illegally formed job identifier: %s\n", r.cmd, operand)
		r.code = 1
	case it.err == nil:
	case reportConnect(r.env.Stderr, r.cmd, it.err):
		r.code = 1
		return true
	default:
		if pe, ok := model.AsPBSError(it.err); ok {
			fmt.Fprintf(r.env.Stderr, "%s: %s %s\n", r.cmd, pe.Msg, it.full)
			r.code = pe.ExitCode()
		} else {
			fmt.Fprintf(r.env.Stderr, "%s: %v %s\n", r.cmd, it.err, it.full)
			r.code = 1
		}
	}
	return false
}

// printVersion handles the lone --version argument every command accepts.
func printVersion(env *Env, args []string) bool {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Fprintf(env.Stdout, "pbs_version = %s\n", api.PBSVersion)
		return true
	}
	return false
}
