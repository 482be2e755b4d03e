package api

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"

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
