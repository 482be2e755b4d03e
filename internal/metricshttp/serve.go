// Package metricshttp serves a Prometheus handler on its own listener, as
// servers and agents both do (metrics_addr): a mux holding GET /metrics
// (and the server's web page when on, server/web), bounded timeouts and
// header size, closed with ctx.
package metricshttp

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"time"
)

// Serve listens on addr and serves h at GET /metrics until ctx ends. It
// returns the address listened on (addr may name port 0). Each mount adds
// routes of its own (the server's web page, /ui/).
func Serve(ctx context.Context, addr string, h http.Handler, logger *log.Logger, mounts ...func(*http.ServeMux)) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on metrics_addr %s: %w", addr, err)
	}
	// Its own mux: nothing of the API is reachable on this port.
	only := http.NewServeMux()
	only.Handle("GET /metrics", h)
	for _, m := range mounts {
		m(only)
	}
	srv := &http.Server{Handler: only, ErrorLog: logger, ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout: 10 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 16 << 10}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Printf("metrics: %v", err)
		}
	}()
	return ln.Addr(), nil
}
