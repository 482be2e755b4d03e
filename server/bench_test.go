package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-hpc/strata/server/api"
)

func freeTCP(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startServer runs a real server (Raft on disk, both listeners) in-process.
func startServer(t testing.TB) *api.Client {
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.Name, cfg.FastRaft, cfg.AllowRootJobs = "bench", true, true
	cfg.TLS = testTLS(t, dir)
	cfg.DataDir, cfg.Socket = dir, filepath.Join(dir, "s.sock")
	cfg.APIAddr, cfg.RaftAddr = freeTCP(t), freeTCP(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { New(cfg, io.Discard).Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	c := api.NewUnixClient(cfg.Socket, "bench")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := c.Submit(ctx, heldReq(), 0); err == nil {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not come up")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func heldReq() *api.SubmitRequest {
	var b [16]byte
	rand.Read(b[:])
	return &api.SubmitRequest{Token: hex.EncodeToString(b[:]), Name: "b", Hold: "u", Argv: []string{"/bin/true"}, Workdir: "/tmp", SubmitHost: "h"}
}

// BenchmarkSubmitAPI64 measures durable submissions through the whole
// server (HTTP over the Unix socket, identity, rules, Raft with fsync) with
// 64 requests in flight from one client.
func BenchmarkSubmitAPI64(b *testing.B) {
	c := startServer(b)
	var next int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for atomic.AddInt64(&next, 1) <= int64(b.N) {
				if _, err := c.Submit(context.Background(), heldReq(), 0); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
