//go:build e2e

package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// oldServerProxy is a server that predates GET /jobs?view=summary: it
// forwards every request to the real server's socket without the view
// parameter (as an older server ignores it), so qstat gets full statuses.
// It records whether a view was asked for.
type oldServerProxy struct {
	mu     sync.Mutex
	viewed int
}

func startOldServerProxy(t *testing.T, socket, dir string) (string, *oldServerProxy) {
	t.Helper()
	p := &oldServerProxy{}
	path := filepath.Join(dir, "old.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: "http", Host: "strata"})
			q := r.In.URL.Query()
			if q.Get("view") != "" {
				p.mu.Lock()
				p.viewed++
				p.mu.Unlock()
				q.Del("view")
			}
			r.Out.URL.RawQuery = q.Encode()
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}},
	}
	srv := &http.Server{Handler: rp}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return path, p
}

// TestQstatSummaryAgainstOldServer runs every table form of qstat against
// the cluster (which sends job summaries) and against the same cluster
// behind a proxy that drops the view, as an older server would (full
// statuses): the output must be byte-identical. The jobs cover an array
// with running, queued and finished subjobs, a job on two hosts (-n), a
// finished job with a comment (-x, -s), a held job and a long name (-w).
func TestQstatSummaryAgainstOldServer(t *testing.T) {
	c := startCluster(t, 2, 4)
	done := c.submit("#!/bin/sh\ntrue\n")
	c.waitState(done, 30*time.Second, "F")
	long := c.submit("#!/bin/sh\nsleep 60\n", "-N", "a_job_name_longer_than_every_column", "-l", "select=2:ncpus=1", "-l", "place=scatter")
	c.waitState(long, 30*time.Second, "R")
	// 6 of the 8 cpus are left: subjobs 7 and 8 stay queued.
	arr := c.submit("#!/bin/sh\nsleep 60\n", "-J", "1-8")
	c.submit("#!/bin/sh\ntrue\n", "-h", "-l", "walltime=01:00:00", "-l", "mem=3gb")
	waitFor(t, 30*time.Second, "array subjobs running", func() bool {
		return strings.Contains(c.must("qstat", "-t", arr), " R ")
	})
	sock := filepath.Join(c.dir, "server1", "strata.sock")
	oldSock, proxy := startOldServerProxy(t, sock, filepath.Dir(c.dir))
	oldEnv := append(append([]string(nil), c.env...), "STRATA_SOCKET="+oldSock)
	newEnv := c.env
	forms := [][]string{
		{}, {"-x"}, {"-t"}, {"-t", "-x"}, {"-w", "-t", "-x"}, {"-p", "-t", "-x"}, {"-J", "-t"}, {"-J"},
		{"-a", "-t", "-x"}, {"-n", "-t"}, {"-n", "-1", "-w", "-x"}, {"-s", "-t", "-x"}, {"-s", "-w", "-x"},
		{"-n", "-s", "-1", "-t"}, {"-T", "-t"}, {"-i", "-t"}, {"-r", "-t"}, {"-H"}, {"-u", "root", "-t"},
		{"-G", "-a", "-t"}, {"-M", "-a"}, {"-x", done}, {"-t", arr}, {"-t", strings.Replace(arr, "[]", "[2-4]", 1)},
		{"-s", "-x", done}, {"workq"}, {"-t", "-x", "@e2e"},
	}
	for _, args := range forms {
		proxy.mu.Lock()
		before := proxy.viewed
		proxy.mu.Unlock()
		// Elap Time follows the clock: a second may pass between the two
		// runs, so they are compared up to three times.
		var got, want result
		for try := 0; try < 3; try++ {
			c.env = newEnv
			got = c.run("qstat", args...)
			c.env = oldEnv
			want = c.run("qstat", args...)
			c.env = newEnv
			if got == want {
				break
			}
		}
		if got != want {
			t.Errorf("qstat %v: summary differs from full statuses\n got (%d):\n%s%s\nwant (%d):\n%s%s",
				args, got.code, got.stdout, got.stderr, want.code, want.stdout, want.stderr)
		}
		proxy.mu.Lock()
		asked := proxy.viewed > before
		proxy.mu.Unlock()
		if !asked {
			t.Errorf("qstat %v did not ask for the summary view", args)
		}
	}
	if out := c.must("qstat", "-t", "-n", arr); !strings.Contains(out, "/0") {
		t.Errorf("qstat -t -n shows no exec host:\n%s", out)
	}
}
