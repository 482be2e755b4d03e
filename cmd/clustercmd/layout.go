// Package clustercmd implements `strata cluster start|stop|status`: a local
// cluster of real server and agent processes on loopback, used by make demo,
// the end-to-end tests and anyone trying Strata on one machine.
package clustercmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Layout is what `cluster start` decided for a directory; it is saved as
// DIR/cluster.json so a later start restarts the same processes on their
// existing data.
type Layout struct {
	ServerName string    `json:"server_name"`
	Socket     string    `json:"socket"`
	APIAddr    string    `json:"api_addr"`
	Procs      []Process `json:"processes"`
	// Remote is set for a cluster started with --remote-clients (remote.go).
	Remote *Remote `json:"remote,omitempty"`
}

// Process is one server or agent of the local cluster.
type Process struct {
	Name   string `json:"name"`
	Role   string `json:"role"` // "server" or "mom"
	Config string `json:"config"`
	Addr   string `json:"address"`
	// Socket is a server's Unix socket.
	Socket string `json:"socket,omitempty"`
	// Metrics is the loopback address of the process's Prometheus
	// metrics (metrics_addr); empty in clusters made before it existed.
	Metrics string `json:"metrics,omitempty"`
	Log     string `json:"log"`
	// Args follow --config on the command line; Hosts is how many hosts
	// an agent process carries (strata mom --simulate; 0 means one).
	Args  []string `json:"args,omitempty"`
	Hosts int      `json:"hosts,omitempty"`
}

func layoutPath(dir string) string { return filepath.Join(dir, "cluster.json") }

func loadLayout(dir string) (*Layout, error) {
	b, err := os.ReadFile(layoutPath(dir))
	if err != nil {
		return nil, err
	}
	var l Layout
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", layoutPath(dir), err)
	}
	return &l, nil
}

func (l *Layout) save(dir string) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(layoutPath(dir), append(b, '\n'), 0o644)
}

func pidFile(dir, name string) string { return filepath.Join(dir, name+".pid") }

// pidOf returns the pid of a running process of the cluster, or 0. A pid
// file whose process is gone, or now belongs to another program, counts as
// not running.
func pidOf(dir, name string) int {
	b, err := os.ReadFile(pidFile(dir, name))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	if err := syscall.Kill(pid, 0); err != nil {
		return 0
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !strings.Contains(string(cmdline), "strata") {
		return 0
	}
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// A zombie has exited; it only waits to be reaped.
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			return 0
		}
	}
	return pid
}

// sessionsUnder returns the session ids of processes whose command line
// names a path under dir: the cluster's daemons, the shepherds and the job
// scripts in its spools. Killing these sessions leaves nothing of the
// cluster running, including jobs' own child processes.
func sessionsUnder(dir string) map[int]bool { return SessionsMatching(dir + "/") }

// SessionsMatching returns the session ids of processes (other than this
// one) whose command line contains any of marks.
func SessionsMatching(marks ...string) map[int]bool {
	sessions := map[int]bool{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return sessions
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue
		}
		for _, m := range marks {
			if strings.Contains(string(cmdline), m) {
				if sid := sessionOf(pid); sid > 0 {
					sessions[sid] = true
				}
				break
			}
		}
	}
	return sessions
}

// sessionOf reads a process's session id from /proc/<pid>/stat.
func sessionOf(pid int) int {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(st), ')')
	if i < 0 {
		return 0
	}
	// After "pid (comm)": state ppid pgrp session ...
	f := strings.Fields(string(st[i+1:]))
	if len(f) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(f[3])
	return sid
}

// KillSessions sends sig to every process in the given sessions.
func KillSessions(sessions map[int]bool, sig syscall.Signal) {
	if len(sessions) == 0 {
		return
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		if sessions[sessionOf(pid)] {
			syscall.Kill(pid, sig)
		}
	}
}
