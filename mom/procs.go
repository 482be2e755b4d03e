package mom

import (
	"os"
	"runtime"
)

// OneProc runs the agent's Go code on one processor (GOMAXPROCS=1)
// unless GOMAXPROCS is set in its environment. The agent is a control
// plane: per job it answers a work poll, starts a shepherd, reads two
// records and sends a report, and never has CPU work worth running in
// parallel. With several processors every goroutine woken (a reply, a
// file event, a timer) also wakes an idle processor that spins looking for
// more work before it sleeps again; on 2 cores that was 12 % of the
// agents' CPU in figure b, and the agents' CPU per job fell by a fifth on
// one processor (docs/performance.md). A system call that blocks still
// hands the processor to the other goroutines, and a long-running one is
// preempted after 10 ms, so heartbeats keep their pace.
func OneProc() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
