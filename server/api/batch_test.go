package api_test

import (
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/server/api"
)

// A server of an earlier release has no batched routes: Go's mux answers
// 404 (or 405 where another method is routed) in plain text, and the
// client says ErrNoBatch, on which qrls, qhold and qdel send one request
// per id. A real HTTP server on a Unix socket stands for that release.
func TestBatchOnServerWithoutTheRoute(t *testing.T) {
	for name, mux := range map[string]*http.ServeMux{"404": http.NewServeMux(), "405": http.NewServeMux()} {
		if name == "405" {
			mux.HandleFunc("GET "+api.Version+"/batch/", func(http.ResponseWriter, *http.Request) {})
		}
		sock := filepath.Join(t.TempDir(), "old.sock")
		l, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		srv := &http.Server{Handler: mux}
		go srv.Serve(l)
		t.Cleanup(func() { srv.Close() })
		c := api.NewUnixClient(sock, "old")
		if _, err := c.ReleaseMany(ctxFor(t), []string{"1.old", "2.old"}, "u"); !errors.Is(err, api.ErrNoBatch) {
			t.Errorf("%s: ReleaseMany: %v, want ErrNoBatch", name, err)
		}
		if _, err := c.DeleteMany(ctxFor(t), []string{"1.old"}, api.DeleteRequest{}); !errors.Is(err, api.ErrNoBatch) {
			t.Errorf("%s: DeleteMany: %v, want ErrNoBatch", name, err)
		}
	}
}
