package server

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/model"
)

// API hardening: timeouts, header and body limits, and per-caller caps on
// open connections and on requests in flight. Without them one local user
// holding thousands of half-open connections made the server refuse
// everyone (issue 9). Callers are told apart by a key computed from the
// connection when it is accepted: the peer uid on the Unix socket
// (SO_PEERCRED), the remote IP on TCP.

// Limits is the [limits] table of the server configuration
// (docs/configuration.md).
type Limits struct {
	// ReadHeaderTimeout bounds the time to read a request's headers;
	// a connection that sends nothing is closed after it.
	ReadHeaderTimeout Duration `toml:"read_header_timeout"`
	// ReadTimeout bounds the time to read a request's body. It is applied
	// per request while the body is read, not to the connection, so that
	// agents' long polls (GET /v1/agent/work) are not cut.
	ReadTimeout Duration `toml:"read_timeout"`
	// IdleTimeout closes a keep-alive connection without requests.
	IdleTimeout Duration `toml:"idle_timeout"`
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes int `toml:"max_header_bytes"`
	// MaxBodyBytes bounds a request's body (a job script travels in one).
	MaxBodyBytes int64 `toml:"max_body_bytes"`
	// MaxSnapshotBytes bounds a snapshot restore (strata operator
	// snapshot restore), the one body that is streamed instead of read
	// into memory, for managers only (operator.go).
	MaxSnapshotBytes int64 `toml:"max_snapshot_bytes"`
	// MaxConnsPerUser caps the connections one uid holds open on the Unix
	// socket, MaxInflightPerUser its requests being served at once (more
	// wait for a slot). Root and the server's own uid are not capped.
	MaxConnsPerUser    int `toml:"max_conns_per_user"`
	MaxInflightPerUser int `toml:"max_inflight_per_user"`
	// MaxConnsPerHost and MaxInflightPerHost are the same caps per remote
	// IP address on the TCP listener.
	MaxConnsPerHost    int `toml:"max_conns_per_host"`
	MaxInflightPerHost int `toml:"max_inflight_per_host"`
}

// DefaultLimits are the documented defaults.
func DefaultLimits() Limits {
	return Limits{
		ReadHeaderTimeout:  Duration{10 * time.Second},
		ReadTimeout:        Duration{60 * time.Second},
		IdleTimeout:        Duration{120 * time.Second},
		MaxHeaderBytes:     64 << 10,
		MaxBodyBytes:       maxBody,
		MaxSnapshotBytes:   16 << 30,
		MaxConnsPerUser:    128,
		MaxInflightPerUser: 32,
		MaxConnsPerHost:    512,
		MaxInflightPerHost: 128,
	}
}

// withDefaults fills unset (zero) fields with the defaults, for servers
// built from a Config that did not come from DefaultConfig.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, def *time.Duration }{
		{&l.ReadHeaderTimeout.Duration, &d.ReadHeaderTimeout.Duration},
		{&l.ReadTimeout.Duration, &d.ReadTimeout.Duration},
		{&l.IdleTimeout.Duration, &d.IdleTimeout.Duration}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	for _, f := range []struct{ v, def *int }{
		{&l.MaxHeaderBytes, &d.MaxHeaderBytes}, {&l.MaxConnsPerUser, &d.MaxConnsPerUser},
		{&l.MaxInflightPerUser, &d.MaxInflightPerUser}, {&l.MaxConnsPerHost, &d.MaxConnsPerHost},
		{&l.MaxInflightPerHost, &d.MaxInflightPerHost}} {
		if *f.v == 0 {
			*f.v = *f.def
		}
	}
	if l.MaxBodyBytes == 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxSnapshotBytes == 0 {
		l.MaxSnapshotBytes = d.MaxSnapshotBytes
	}
	return l
}

// validate reports the first bad key of the table.
func (l *Limits) validate() error {
	for _, d := range []struct {
		key string
		v   time.Duration
	}{{"read_header_timeout", l.ReadHeaderTimeout.Duration}, {"read_timeout", l.ReadTimeout.Duration}, {"idle_timeout", l.IdleTimeout.Duration}} {
		if d.v <= 0 {
			return fmt.Errorf("config key limits.%s: must be positive", d.key)
		}
	}
	for _, n := range []struct {
		key string
		v   int64
	}{{"max_header_bytes", int64(l.MaxHeaderBytes)}, {"max_body_bytes", l.MaxBodyBytes}, {"max_snapshot_bytes", l.MaxSnapshotBytes},
		{"max_conns_per_user", int64(l.MaxConnsPerUser)}, {"max_inflight_per_user", int64(l.MaxInflightPerUser)},
		{"max_conns_per_host", int64(l.MaxConnsPerHost)}, {"max_inflight_per_host", int64(l.MaxInflightPerHost)}} {
		if n.v <= 0 {
			return fmt.Errorf("config key limits.%s: must be positive", n.key)
		}
	}
	if l.MaxBodyBytes > maxBody {
		return fmt.Errorf("config key limits.max_body_bytes: at most %d", maxBody)
	}
	return nil
}

// callerKey names the caller a connection belongs to for the caps, and
// the caps that apply to it (0: not capped). It runs once per accepted
// connection. A TLS listener can later key on the certificate's host.
type callerKey func(c net.Conn) (key string, maxConns, maxInflight int)

// peerKey is the default callerKey: the uid on the Unix socket (root and
// the server's own uid uncapped), the remote IP otherwise.
func (l *Limits) peerKey(c net.Conn) (string, int, int) {
	if uc, ok := c.(*net.UnixConn); ok {
		uid, err := peerUID(uc)
		if err != nil {
			return "uid:?", l.MaxConnsPerUser, l.MaxInflightPerUser
		}
		if uid == 0 || uid == os.Geteuid() {
			return "uid:" + strconv.Itoa(uid), 0, 0
		}
		return "uid:" + strconv.Itoa(uid), l.MaxConnsPerUser, l.MaxInflightPerUser
	}
	if tc, ok := c.(*tls.Conn); ok {
		if key, mc, mi, ok := l.tlsPeerKey(tc); ok {
			return key, mc, mi
		}
	}
	host := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return "ip:" + host, l.MaxConnsPerHost, l.MaxInflightPerHost
}

func peerUID(uc *net.UnixConn) (int, error) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, credErr
	}
	return int(cred.Uid), nil
}

// callerState is what the limiter knows about one caller.
type callerState struct {
	conns    int
	inflight chan struct{} // a slot per request being served; nil: uncapped
}

// connInfo is one open connection's caller.
type connInfo struct {
	key string
	st  *callerState
}

// limiter enforces the per-caller caps.
type limiter struct {
	key    callerKey
	logger *log.Logger
	mu     sync.Mutex
	caller map[string]*callerState
	conns  map[net.Conn]connInfo
	// refused counts connections closed over the cap, per key, so the log
	// says so once per burst rather than once per connection.
	refused map[string]int
}

func newLimiter(key callerKey, logger *log.Logger) *limiter {
	return &limiter{key: key, logger: logger, caller: map[string]*callerState{}, conns: map[net.Conn]connInfo{}, refused: map[string]int{}}
}

// connState is the http.Server's ConnState hook. A new connection over its
// caller's cap is closed at once, before anything is read from it, so one
// caller cannot use up the server's descriptors or goroutines.
func (l *limiter) connState(c net.Conn, state http.ConnState) {
	switch state {
	case http.StateNew:
		key, maxConns, maxInflight := l.key(c)
		l.mu.Lock()
		st := l.caller[key]
		if st == nil {
			st = &callerState{}
			if maxInflight > 0 {
				st.inflight = make(chan struct{}, maxInflight)
			}
			l.caller[key] = st
		}
		st.conns++
		l.conns[c] = connInfo{key, st}
		over := maxConns > 0 && st.conns > maxConns
		first := false
		if over {
			l.refused[key]++
			first = l.refused[key] == 1
		}
		l.mu.Unlock()
		if over {
			if first {
				l.logger.Printf("limits: %s holds %d connections (cap %d); closing its new ones", key, maxConns, maxConns)
			}
			c.Close()
		}
	case http.StateClosed, http.StateHijacked:
		l.mu.Lock()
		if ci, ok := l.conns[c]; ok {
			delete(l.conns, c)
			ci.st.conns--
			if ci.st.conns == 0 {
				delete(l.caller, ci.key)
				delete(l.refused, ci.key)
			}
		}
		l.mu.Unlock()
	}
}

// slot waits for one of the caller's in-flight slots; release gives it
// back. Requests over the cap wait (their connection counts against the
// connection cap meanwhile) until a slot frees or the client goes away.
func (l *limiter) slot(r *http.Request) (release func(), ok bool) {
	c, _ := r.Context().Value(connKey{}).(net.Conn)
	l.mu.Lock()
	ci, known := l.conns[c]
	l.mu.Unlock()
	if !known || ci.st.inflight == nil {
		return func() {}, true
	}
	select {
	case ci.st.inflight <- struct{}{}:
		return func() { <-ci.st.inflight }, true
	case <-r.Context().Done():
		return nil, false
	}
}

// hardenHTTP sets srv's timeouts and header limit and puts the per-caller
// caps and the body limit in front of its handler.
func hardenHTTP(srv *http.Server, lim Limits, logger *log.Logger) {
	lim = lim.withDefaults()
	l := newLimiter(lim.peerKey, logger)
	srv.ReadHeaderTimeout = lim.ReadHeaderTimeout.Duration
	srv.IdleTimeout = lim.IdleTimeout.Duration
	srv.MaxHeaderBytes = lim.MaxHeaderBytes
	// No ReadTimeout or WriteTimeout on the server: either would cut
	// agents' long polls. The body deadline is set per request below.
	srv.ConnState = l.connState
	srv.Handler = limitRequests(srv.Handler, l, lim)
}

// limitRequests takes an in-flight slot, then reads the body (bounded in
// size and in time) into memory before the handler runs; the one streamed
// route bounds its body itself (streamedBody, operator.go).
func limitRequests(next http.Handler, l *limiter, lim Limits) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release, ok := l.slot(r)
		if !ok {
			return // the client went away while waiting
		}
		defer release()
		if r.Body != nil && r.Body != http.NoBody && !streamedBody(r) {
			rc := http.NewResponseController(w)
			rc.SetReadDeadline(time.Now().Add(lim.ReadTimeout.Duration))
			body, err := io.ReadAll(io.LimitReader(r.Body, lim.MaxBodyBytes+1))
			// Cleared at once: a deadline left on the connection would
			// cancel a long-running handler's context when it passes.
			rc.SetReadDeadline(time.Time{})
			switch {
			case err != nil:
				writeLimitError(w, http.StatusRequestTimeout, "Invalid request: request body not received in time")
				return
			case int64(len(body)) > lim.MaxBodyBytes:
				writeLimitError(w, http.StatusRequestEntityTooLarge, "Invalid request: body too large")
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		next.ServeHTTP(w, r)
	})
}

func writeLimitError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(&model.PBSError{Code: model.PBSEInvalidRequest, Msg: msg})
}
