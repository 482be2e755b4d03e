package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strata-hpc/strata/model"
)

// failover is a client's list of servers of one cluster and the one it
// currently uses. A request goes to the current server; when that server
// cannot be reached (or, for agents, is not the leader) the next one is
// tried, each at most once per request; the caller's own retry loop (qsub's
// token retries, the agent's loops) provides the backoff between rounds.
type failover struct {
	bases       []string
	names       []string // the sockets or addresses, for messages
	onNotLeader bool
	// probeAfter is how long a request may go without its reply before
	// the server is probed (stall.go); 0 never probes.
	probeAfter time.Duration
	mu         sync.Mutex
	cur        int
}

// SplitServers splits a comma-separated list of sockets or addresses.
func SplitServers(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		out = []string{s}
	}
	return out
}

// unixIndex maps the host of a Unix client's URL ("s2") to its socket.
func unixIndex(addr string) int {
	host, _, _ := strings.Cut(addr, ":")
	if n, err := strconv.Atoi(strings.TrimPrefix(host, "s")); err == nil && n >= 0 {
		return n
	}
	return 0
}

func (c *Client) doFailover(ctx context.Context, method, path string, query url.Values, in, out any) error {
	f := &c.servers
	f.mu.Lock()
	start := f.cur
	f.mu.Unlock()
	var err, answered error
	for i := 0; i < len(f.bases); i++ {
		n := (start + i) % len(f.bases)
		err = c.doWatched(ctx, f.bases[n], method, path, query, in, out)
		if !f.moveOn(method, err) {
			f.mu.Lock()
			f.cur = n
			f.mu.Unlock()
			return err
		}
		var ce *ConnectError
		if !errors.As(err, &ce) {
			answered = err
		}
	}
	// A server that answered (say, "no leader yet") tells more than one
	// that could not be reached: callers retry the former (qsub does) and
	// give up on the latter only when no server is reachable at all.
	if answered != nil {
		return answered
	}
	return err
}

// moveOn reports whether err says the request was not handled by this
// server and another may handle it. A read whose reply was lost (the
// server died while answering) is simply asked again elsewhere.
func (f *failover) moveOn(method string, err error) bool {
	var ce *ConnectError
	var se *StalledError
	var lost *LostReplyError
	if errors.As(err, &ce) || errors.As(err, &se) || (method == http.MethodGet && errors.As(err, &lost)) {
		return true
	}
	var pe *model.PBSError
	return f.onNotLeader && errors.As(err, &pe) && pe.Code == model.PBSENotLeader
}
