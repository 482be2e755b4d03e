package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// A server that is stopped (SIGSTOP, a hung host, a partition that drops
// packets) still accepts connections into its kernel backlog, so a request
// to it neither fails nor ends: without a bound a command would wait until
// the server resumes. A client of several servers therefore watches each
// request: when no reply has come after probeAfter, it sends the server a
// ping on a separate connection. A live server answers at once, however
// long the request itself takes (a long poll, a large qstat, a submission
// running hooks), and the request goes on waiting; a server that answers
// neither is stalled, and the request moves on to the next server.
//
// Moving on may repeat a request the stalled server had already forwarded
// to the leader before it stopped; qsub's submission token makes that
// harmless for jobs, and other writes are idempotent in effect (a second
// qdel of a job reports it unknown or already exiting).

// Probe timings: commands ask for a reply within seconds; agents' long
// polls are probed less often (one ping per agent per interval).
const (
	commandProbeAfter = 2 * time.Second
	agentProbeAfter   = 5 * time.Second
	probeTimeout      = 2 * time.Second
)

// PingPath answers every caller at once: the liveness probe.
const PingPath = "/ping"

// StalledError says the server accepted a request but answered neither it
// nor a probe: it is stopped or hung. The request may have reached it.
type StalledError struct {
	Server string
	After  time.Duration
}

func (e *StalledError) Error() string {
	return fmt.Sprintf("server %s accepted the request but has not answered for %s (stopped or hung)", e.Server, e.After.Round(time.Millisecond))
}

// doWatched is doOne under the stall watchdog.
func (c *Client) doWatched(ctx context.Context, base, method, path string, query url.Values, in, out any) error {
	every := c.servers.probeAfter
	if every <= 0 {
		return c.doOne(ctx, base, method, path, query, in, out)
	}
	start := time.Now()
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if !c.alive(ctx, base) {
				cancel(&StalledError{Server: c.nameOf(base), After: time.Since(start)})
				return
			}
			t.Reset(every)
		}
	}()
	err := c.doOne(reqCtx, base, method, path, query, in, out)
	close(done)
	var se *StalledError
	if err != nil && errors.As(context.Cause(reqCtx), &se) {
		// Not a ConnectError: the request may have been received, so
		// callers that retry (qsub) do so with their token.
		return &LostReplyError{Err: se}
	}
	return err
}

// alive sends the probe; any HTTP answer within probeTimeout is life.
func (c *Client) alive(ctx context.Context, base string) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+Version+PingPath, nil)
	if err != nil {
		return false
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return ctx.Err() == nil // refused etc.: the request's own error tells
	}
	resp.Body.Close()
	return true
}

// nameOf names the server at base for messages.
func (c *Client) nameOf(base string) string {
	for i, b := range c.servers.bases {
		if b == base && i < len(c.servers.names) {
			return c.servers.names[i]
		}
	}
	return base
}
