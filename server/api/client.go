package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
)

// Client talks to one Strata server over its Unix socket (commands) or TCP
// address (agents, over mutual TLS with their host certificate).
type Client struct {
	// ServerName is used in "cannot connect to server NAME" messages.
	ServerName string
	base       string
	http       *http.Client
	// servers are the bases of every server of a multi-server cluster
	// (failover.go); base is then the one in use.
	servers failover
}

// NewUnixClient returns a client for the server's local socket. socket may
// list the sockets of several servers of one cluster separated by commas:
// the client uses the first that answers and moves on when it cannot
// connect (any server accepts commands; followers forward writes).
func NewUnixClient(socket, serverName string) *Client {
	sockets := SplitServers(socket)
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, addr string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sockets[unixIndex(addr)])
		},
		// Keep connections for concurrent callers (bench, qsub -W block
		// pollers) instead of redialling per request.
		MaxIdleConnsPerHost: 64,
	}
	c := &Client{ServerName: serverName, base: "http://strata", http: &http.Client{Transport: tr}}
	if len(sockets) > 1 {
		for i := range sockets {
			c.servers.bases = append(c.servers.bases, fmt.Sprintf("http://s%d", i))
		}
		c.servers.names = sockets
		// A server without a leader says so; another may have one.
		c.servers.onNotLeader = true
		c.servers.probeAfter = commandProbeAfter // stall.go
	}
	return c
}

// NewTCPClient returns a client for a server's TCP address. It speaks
// HTTPS, presents the certificate of certs (the agent's, reloaded when its
// files change) and accepts only a peer whose certificate has the server
// role and comes from the cluster CA.
func NewTCPClient(addr string, certs *pki.Source) *Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	tr := &http.Transport{
		MaxIdleConnsPerHost: 4,
		// Dialled by hand so every connection takes the current CA pool
		// (pki.Source reloads it on change) and a handshake failure is
		// told apart from a lost reply.
		DialTLSContext: func(ctx context.Context, network, address string) (net.Conn, error) {
			return certs.DialPeer(ctx, dialer, network, address, pki.RoleServer, 10*time.Second)
		},
	}
	addrs := SplitServers(addr)
	c := &Client{ServerName: addrs[0], base: "https://" + addrs[0], http: &http.Client{Transport: tr}}
	if len(addrs) > 1 {
		for _, a := range addrs {
			c.servers.bases = append(c.servers.bases, "https://"+a)
		}
		c.servers.names = addrs
		c.servers.probeAfter = agentProbeAfter // stall.go
		// Agents must reach the leader: a follower answers them "not
		// leader" and they move on to the next server.
		c.servers.onNotLeader = true
	}
	return c
}

// rawBody is a request body sent as it is (not JSON), opened anew for each
// server a request is sent to.
type rawBody struct {
	contentType string
	open        func() (io.ReadCloser, error)
}

// ConnectError is returned when the server cannot be reached at all; the
// request was certainly not processed.
type ConnectError struct {
	Server string
	Errno  int
	Err    error
}

func (e *ConnectError) Error() string {
	var he *pki.HandshakeError
	if errors.As(e.Err, &he) {
		return fmt.Sprintf("cannot connect to server %s: %v", e.Server, he)
	}
	var ae *AuthError // remote.go: no credential, nothing sent
	if errors.As(e.Err, &ae) {
		return fmt.Sprintf("cannot connect to server %s: %v", e.Server, ae)
	}
	return fmt.Sprintf("cannot connect to server %s (errno=%d)", e.Server, e.Errno)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// LostReplyError is returned when the request was sent but no reply came
// back: it may or may not have been processed. Idempotent requests retry.
type LostReplyError struct{ Err error }

func (e *LostReplyError) Error() string { return "lost reply from server: " + e.Err.Error() }
func (e *LostReplyError) Unwrap() error { return e.Err }

// Do sends a request and decodes a JSON reply into out (when out is non-nil).
// A server-side refusal comes back as *model.PBSError.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	if len(c.servers.bases) > 1 {
		return c.doFailover(ctx, method, path, query, in, out)
	}
	return c.doOne(ctx, c.base, method, path, query, in, out)
}

// doOne sends one request to the server at base.
func (c *Client) doOne(ctx context.Context, base, method, path string, query url.Values, in, out any) error {
	var body io.Reader
	contentType := "application/json"
	if raw, ok := in.(rawBody); ok {
		rc, err := raw.open()
		if err != nil {
			return err
		}
		defer rc.Close()
		body, contentType = rc, raw.contentType
	} else if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	u := base + Version + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return c.classify(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return &LostReplyError{Err: err}
	}
	if resp.StatusCode/100 != 2 {
		var pe model.PBSError
		if json.Unmarshal(data, &pe) == nil && pe.Code != 0 {
			return &pe
		}
		pe = model.PBSError{Code: model.PBSESystem, Msg: fmt.Sprintf("server replied %s: %s", resp.Status, bytes.TrimSpace(data))}
		if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed {
			return &RouteError{Status: resp.StatusCode, Err: &pe}
		}
		return &pe
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("decode reply: %w", err)
		}
	}
	return nil
}

// classify separates "never reached the server" from "reply lost".
func (c *Client) classify(err error) error {
	var he *pki.HandshakeError
	var ae *AuthError
	if errors.As(err, &he) || errors.As(err, &ae) {
		return &ConnectError{Server: c.ServerName, Errno: int(syscall.ECONNREFUSED), Err: err}
	}
	var errno syscall.Errno
	if errors.As(err, &errno) && (errno == syscall.ECONNREFUSED || errno == syscall.ENOENT || errno == syscall.EACCES || errno == syscall.ETIMEDOUT || errno == syscall.EHOSTUNREACH) {
		return &ConnectError{Server: c.ServerName, Errno: int(errno), Err: err}
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &ConnectError{Server: c.ServerName, Errno: int(syscall.ECONNREFUSED), Err: err}
	}
	return &LostReplyError{Err: err}
}

// Submit sends a job. When a reply is lost the request may have been
// committed, so Submit retries with the same token until retryFor has passed,
// waiting through a server restart; the token makes the retries idempotent.
// A server that was never reached fails at once with a ConnectError.
func (c *Client) Submit(ctx context.Context, req *SubmitRequest, retryFor time.Duration) (string, error) {
	deadline := time.Now().Add(retryFor)
	backoff := 50 * time.Millisecond
	mayHaveReached := false
	for {
		var resp SubmitResponse
		err := c.Do(ctx, http.MethodPost, "/jobs", nil, req, &resp)
		if err == nil {
			return resp.JobID, nil
		}
		var lost *LostReplyError
		var pe *model.PBSError
		var ce *ConnectError
		switch {
		case errors.As(err, &lost):
			mayHaveReached = true
		case errors.As(err, &pe) && pe.Code == model.PBSENotLeader:
		case errors.As(err, &ce) && mayHaveReached:
		default:
			return "", err
		}
		if req.Token == "" || time.Now().After(deadline) {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(backoff):
		}
		// Capped low: during a failover the cluster typically answers again
		// within a second, and a long last wait would add most of itself
		// to the client's outage.
		if backoff < 200*time.Millisecond {
			backoff *= 2
		}
	}
}

// Jobs queries jobs. ids may be empty for all jobs; history includes
// finished jobs.
func (c *Client) Jobs(ctx context.Context, ids []string, history bool) (*JobsResponse, error) {
	q := url.Values{}
	for _, id := range ids {
		q.Add("id", id)
	}
	if history {
		q.Set("history", "1")
	}
	var out JobsResponse
	err := c.Do(ctx, http.MethodGet, "/jobs", q, nil, &out)
	return &out, err
}

// Delete deletes one job.
func (c *Client) Delete(ctx context.Context, id string, req DeleteRequest) error {
	return c.Do(ctx, http.MethodPost, "/jobs/"+url.PathEscape(id)+"/delete", nil, req, nil)
}

// Nodes queries all vnodes.
func (c *Client) Nodes(ctx context.Context) (*NodesResponse, error) {
	var out NodesResponse
	err := c.Do(ctx, http.MethodGet, "/nodes", nil, nil, &out)
	return &out, err
}

// Server queries the server's description.
func (c *Client) Server(ctx context.Context) (*ServerInfo, error) {
	var out ServerInfo
	err := c.Do(ctx, http.MethodGet, "/server", nil, nil, &out)
	return &out, err
}

// Register registers an agent's host and vnodes.
func (c *Client) Register(ctx context.Context, req *RegisterRequest) (*RegisterResponse, error) {
	var out RegisterResponse
	err := c.Do(ctx, http.MethodPost, "/agent/register", nil, req, &out)
	return &out, err
}

// Heartbeat tells the server the host is alive.
func (c *Client) Heartbeat(ctx context.Context, req *HeartbeatRequest) error {
	return c.Do(ctx, http.MethodPost, "/agent/heartbeat", nil, req, nil)
}

// Work long-polls for the jobs the host should run; it returns when the
// state index passes index or wait elapses.
func (c *Client) Work(ctx context.Context, host string, index uint64, wait time.Duration) (*WorkResponse, error) {
	q := url.Values{"host": {host}, "index": {strconv.FormatUint(index, 10)}, "wait": {wait.String()}}
	var out WorkResponse
	err := c.Do(ctx, http.MethodGet, "/agent/work", q, nil, &out)
	return &out, err
}

// Events reports job events.
func (c *Client) Events(ctx context.Context, req *EventsRequest) error {
	return c.Do(ctx, http.MethodPost, "/agent/events", nil, req, nil)
}
