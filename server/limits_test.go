package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

// The helper process of TestConnFloodByOneUserLeavesOthersServed: run as
// another uid, it either floods the socket with connections that send
// nothing (mode flood) or makes one qstat request (mode qstat).
func TestConnFloodHelper(t *testing.T) {
	mode, socket := os.Getenv("STRATA_FLOOD_MODE"), os.Getenv("STRATA_FLOOD_SOCKET")
	if mode == "" {
		t.Skip("helper process only")
	}
	switch mode {
	case "qstat":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := api.NewUnixClient(socket, "t").Jobs(ctx, nil, false); err != nil {
			fmt.Printf("qstat failed: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("qstat ok")
	case "flood":
		var rl syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
		rl.Cur = rl.Max
		syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl)
		n, _ := strconv.Atoi(os.Getenv("STRATA_FLOOD_N"))
		want, _ := strconv.Atoi(os.Getenv("STRATA_FLOOD_WANT"))
		var conns []net.Conn
		for i := 0; i < n; i++ {
			c, err := net.Dial("unix", socket)
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		// Count the connections the server has not closed; poll until
		// the count settles on what the test expects or time runs out.
		closed := make([]bool, len(conns))
		open := len(conns)
		deadline := time.Now().Add(10 * time.Second)
		for open != want && time.Now().Before(deadline) {
			for i, c := range conns {
				if closed[i] {
					continue
				}
				c.SetReadDeadline(time.Now().Add(time.Millisecond))
				var b [1]byte
				if _, err := c.Read(b[:]); err == io.EOF || (err != nil && !os.IsTimeout(err)) {
					closed[i] = true
					open--
				}
			}
		}
		fmt.Printf("open %d of %d\n", open, len(conns))
		io.Copy(io.Discard, os.Stdin) // hold the connections until told
	}
}

// Issue 9 item 8: one user opening many connections that send nothing
// made the server refuse everyone. With a descriptor budget smaller than
// the flood, the flooding uid is held to its cap and another user's qstat
// is still answered.
func TestConnFloodByOneUserLeavesOthersServed(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the helpers as other users")
	}
	dir, err := os.MkdirTemp("", "strata-flood-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	helper := filepath.Join(dir, "helper")
	if b, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(helper, b, 0o755) != nil {
		t.Fatalf("copy test binary: %v", err)
	}

	// A descriptor budget the flood would exhaust without the cap.
	var old syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old)
	low := old
	low.Cur = 256
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })

	const capConns, flood = 16, 600
	cfg := DefaultConfig()
	cfg.Name, cfg.Secret, cfg.FastRaft, cfg.AllowRootJobs = "flood", "s", true, true
	cfg.DataDir, cfg.Socket = filepath.Join(dir, "data"), filepath.Join(dir, "s.sock")
	cfg.APIAddr, cfg.RaftAddr = freeTCP(t), freeTCP(t)
	cfg.Limits.MaxConnsPerUser = capConns
	cfg.Limits.ReadHeaderTimeout = Duration{5 * time.Minute} // only the cap closes them here
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { New(cfg, io.Discard).Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	c := api.NewUnixClient(cfg.Socket, "flood")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := c.Jobs(ctx, nil, false); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
	os.Chmod(cfg.Socket, 0o666)

	helperCmd := func(uid uint32, mode string) *exec.Cmd {
		cmd := exec.Command(helper, "-test.run=^TestConnFloodHelper$")
		cmd.Env = append(os.Environ(), "STRATA_FLOOD_MODE="+mode, "STRATA_FLOOD_SOCKET="+cfg.Socket,
			"STRATA_FLOOD_N="+strconv.Itoa(flood), "STRATA_FLOOD_WANT="+strconv.Itoa(capConns))
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		return cmd
	}
	attacker := helperCmd(65534, "flood")
	stdin, _ := attacker.StdinPipe()
	stdout, _ := attacker.StdoutPipe()
	if err := attacker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); attacker.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if want := fmt.Sprintf("open %d of %d", capConns, flood); strings.TrimSpace(line) != want {
		t.Fatalf("attacker reports %q, want %q", strings.TrimSpace(line), want)
	}
	// While the attacker holds its connections, another user is served.
	out, err := helperCmd(1, "qstat").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "qstat ok") {
		t.Fatalf("other user's qstat during the flood: %v\n%s", err, out)
	}
}
