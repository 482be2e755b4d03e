package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// connFlood is the attacker of TestConnFloodByOneUserLeavesOthersServed:
// it opens STRATA_FLOOD_N connections that send nothing, reports how many
// the server left open, and holds them until its stdin closes.
func connFlood(socket string) {
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
	// Count the connections the server has not closed; poll until the
	// count settles on what the test expects or time runs out.
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
	io.Copy(io.Discard, os.Stdin)
}

// Issue 9 item 8: one user opening many connections that send nothing
// made the server refuse everyone. With a descriptor budget smaller than
// the flood, the flooding uid is held to its cap and another user's qstat
// is still answered.
func TestConnFloodByOneUserLeavesOthersServed(t *testing.T) {
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
	ts := startTestServer(t, func(cfg *Config) {
		cfg.Limits.MaxConnsPerUser = capConns
		cfg.Limits.ReadHeaderTimeout = Duration{5 * time.Minute} // only the cap closes them here
	})
	attacker := ts.helperCmd(65534, "flood", "STRATA_FLOOD_N="+strconv.Itoa(flood), "STRATA_FLOOD_WANT="+strconv.Itoa(capConns))
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
	out, err := ts.helperCmd(1, "qstat").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "qstat ok") {
		t.Fatalf("other user's qstat during the flood: %v\n%s", err, out)
	}
}

// A connection that never finishes its headers is closed after
// read_header_timeout, so half-open connections do not pile up.
func TestHalfOpenConnectionIsClosed(t *testing.T) {
	ts := startTestServer(t, func(cfg *Config) { cfg.Limits.ReadHeaderTimeout = Duration{200 * time.Millisecond} })
	c, err := net.Dial("unix", ts.cfg.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("GET /v1/jobs HTTP/1.1\r\nHost: x\r\n")) // never ends the headers
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("connection not closed by the server: %v", err)
	}
}

// A body over max_body_bytes is refused before any handler sees it.
func TestBodyLimit(t *testing.T) {
	ts := startTestServer(t, func(cfg *Config) { cfg.Limits.MaxBodyBytes = 1024 })
	r := sendRaw(unixHTTP(ts.cfg.Socket), "http://strata", rawReq{Method: "POST", Path: "/v1/jobs", Body: `{"script":"` + strings.Repeat("x", 2048) + `"}`}, "")
	if r.Status != 413 || r.Code != 15004 {
		t.Fatalf("oversized body: %+v", r)
	}
}

// At most max_inflight requests of one caller are served at once; the next
// waits for a slot, and gives up when its client goes away.
func TestInflightCapPerCaller(t *testing.T) {
	l := newLimiter(func(net.Conn) (string, int, int) { return "uid:1000", 0, 1 }, log.New(io.Discard, "", 0))
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	l.connState(a, http.StateNew)
	req := func(ctx context.Context) *http.Request {
		r, _ := http.NewRequestWithContext(context.WithValue(ctx, connKey{}, a), "GET", "/", nil)
		return r
	}
	release, ok := l.slot(req(context.Background()))
	if !ok {
		t.Fatal("first request refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan bool, 1)
	go func() { _, ok := l.slot(req(ctx)); got <- ok }()
	select {
	case <-got:
		t.Fatal("second request served while the first holds the only slot")
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if <-got {
		t.Fatal("a request whose client went away was served")
	}
	release()
	if r, ok := l.slot(req(context.Background())); !ok {
		t.Fatal("slot not given back")
	} else {
		r()
	}
	l.connState(a, http.StateClosed)
	if len(l.caller) != 0 || len(l.conns) != 0 {
		t.Fatalf("limiter keeps closed connections: %v %v", l.caller, l.conns)
	}
}

func TestLimitsConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "server.toml")
		if err := os.WriteFile(p, []byte("[tls]\nca_file = \"ca.pem\"\ncert_file = \"s.pem\"\nkey_file = \"k.pem\"\n"+body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg, err := LoadConfig(write("[limits]\nmax_conns_per_user = 8\nread_header_timeout = \"3s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultLimits()
	want.MaxConnsPerUser, want.ReadHeaderTimeout = 8, Duration{3 * time.Second}
	if cfg.Limits != want {
		t.Fatalf("limits %+v, want %+v", cfg.Limits, want)
	}
	for body, key := range map[string]string{
		"[limits]\nmax_conns_per_user = 0\n":     "limits.max_conns_per_user",
		"[limits]\nread_timeout = \"0s\"\n":      "limits.read_timeout",
		"[limits]\nmax_body_bytes = 999999999\n": "limits.max_body_bytes",
	} {
		if _, err := LoadConfig(write(body)); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%q: %v, want an error naming %s", body, err, key)
		}
	}
}
