package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"
)

// ProfileDirEnv names a directory where `strata server` and `strata mom`
// write profiles for the performance work (docs/performance.md): a CPU
// profile of the whole run (<role>-<pid>.cpu.pprof, written when the
// daemon stops) and a heap profile at every SIGUSR1
// (<role>-<pid>.heap.N.pprof). Only whoever starts the daemon sets its
// environment, so this opens nothing to other users.
const ProfileDirEnv = "STRATA_PROFILE_DIR"

// startProfiles starts profiling when ProfileDirEnv is set; the returned
// function ends it.
func startProfiles(role string) func() {
	dir := os.Getenv(ProfileDirEnv)
	if dir == "" {
		return func() {}
	}
	base := filepath.Join(dir, fmt.Sprintf("%s-%d", role, os.Getpid()))
	cpu, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ProfileDirEnv, err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", ProfileDirEnv, err)
	}
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	done := make(chan struct{})
	go func() {
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-usr1:
			}
			if f, err := os.Create(fmt.Sprintf("%s.heap.%d.pprof", base, n)); err == nil {
				pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
		}
	}()
	return func() {
		signal.Stop(usr1)
		close(done)
		pprof.StopCPUProfile()
		cpu.Close()
	}
}
