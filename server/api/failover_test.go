package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// serveUnix answers every request on a Unix socket with h.
func serveUnix(t *testing.T, path string, h http.HandlerFunc) {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
}

func TestUnixFailover(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, "dead.sock") // nothing listens: connect fails
	noLeader := filepath.Join(dir, "noleader.sock")
	good := filepath.Join(dir, "good.sock")
	serveUnix(t, noLeader, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
		json.NewEncoder(w).Encode(model.Err(model.PBSENotLeader))
	})
	serveUnix(t, good, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(ServerInfo{Name: "good"})
	})
	ctx := context.Background()

	// The first server is gone, the second has no leader: the third answers.
	info, err := NewUnixClient(dead+","+noLeader+","+good, "c").Server(ctx)
	if err != nil || info.Name != "good" {
		t.Fatalf("failover to the answering server: %+v %v", info, err)
	}
	// No server can do it: the answer of a server that was reached ("not
	// leader": retry) is returned, not the unreachable one's.
	_, err = NewUnixClient(noLeader+","+dead, "c").Server(ctx)
	var pe *model.PBSError
	if !errors.As(err, &pe) || pe.Code != model.PBSENotLeader {
		t.Fatalf("want the not-leader answer, got %v", err)
	}
	// Every server unreachable: a connect error, as with one server.
	_, err = NewUnixClient(dead+","+filepath.Join(dir, "also-dead.sock"), "c").Server(ctx)
	var ce *ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("want a connect error, got %v", err)
	}
	// One socket keeps the single-server behaviour.
	if _, err := NewUnixClient(good, "c").Server(ctx); err != nil {
		t.Fatal(err)
	}
}

// A stopped server accepts connections (the kernel's backlog) but answers
// nothing: the request moves on once the server fails the probe, while a
// slow server that answers the probe is waited for.
func TestStalledServerIsSkipped(t *testing.T) {
	dir := t.TempDir()
	stalled := filepath.Join(dir, "stalled.sock")
	ln, err := net.Listen("unix", stalled) // listens, never accepts: SIGSTOP's view
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	good := filepath.Join(dir, "good.sock")
	serveUnix(t, good, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(ServerInfo{Name: "good"})
	})
	release := make(chan struct{})
	var probes atomic.Int32
	slow := filepath.Join(dir, "slow.sock")
	serveUnix(t, slow, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Version+PingPath {
			if probes.Add(1) == 3 {
				close(release) // probed three times: now answer the request
			}
			w.Write([]byte("{}"))
			return
		}
		<-release // a long request
		json.NewEncoder(w).Encode(ServerInfo{Name: "slow"})
	})
	ctx := context.Background()

	c := NewUnixClient(stalled+","+good, "c")
	c.servers.probeAfter = 100 * time.Millisecond
	start := time.Now()
	info, err := c.Server(ctx)
	if err != nil || info.Name != "good" {
		t.Fatalf("after a stalled server: %+v %v", info, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("moving past the stalled server took %s", d)
	}

	// The only server stalls: the command ends with the reason.
	c = NewUnixClient(stalled+","+stalled, "c")
	c.servers.probeAfter = 100 * time.Millisecond
	var se *StalledError
	if _, err := c.Server(ctx); !errors.As(err, &se) {
		t.Fatalf("want a stalled-server error, got %v", err)
	}

	// Slow but alive: probed several times, still waited for.
	c = NewUnixClient(slow+","+good, "c")
	c.servers.probeAfter = 20 * time.Millisecond
	info, err = c.Server(ctx)
	if err != nil || info.Name != "slow" {
		t.Fatalf("a slow live server must be waited for: %+v %v", info, err)
	}
}

// A read whose reply is lost (the server dies while answering) is asked
// again of the next server; a write is not (it may have been done).
func TestLostReadMovesOn(t *testing.T) {
	dir := t.TempDir()
	dying := filepath.Join(dir, "dying.sock")
	serveUnix(t, dying, func(w http.ResponseWriter, r *http.Request) {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close() // the reply is lost
	})
	good := filepath.Join(dir, "good.sock")
	serveUnix(t, good, func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(ServerInfo{Name: "good"})
	})
	c := NewUnixClient(dying+","+good, "c")
	if info, err := c.Server(context.Background()); err != nil || info.Name != "good" {
		t.Fatalf("a lost read: %+v %v", info, err)
	}
	c = NewUnixClient(dying+","+good, "c") // starts again at the dying one
	var lost *LostReplyError
	if err := c.Delete(context.Background(), "1.svr", DeleteRequest{}); !errors.As(err, &lost) {
		t.Fatalf("a lost write must be reported, not repeated elsewhere: %v", err)
	}
}
