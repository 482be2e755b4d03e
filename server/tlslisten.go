package server

import (
	"crypto/tls"
	"errors"
	"log"
	"net"
	"sync"
	"time"

	"github.com/strata-hpc/strata/pki"
)

// handshakeListener completes each TLS handshake before handing the
// connection to the HTTP server, so the per-caller caps (limits.go) can key
// a connection by its verified certificate rather than by its remote IP.
// On one machine every agent and every server shares 127.0.0.1; keyed by IP,
// agents' long polls and a flood from anyone on the host could use up the
// slots a follower needs to forward writes. Handshakes in progress are
// capped per IP (they are the only pre-authentication cost) and bounded in
// time.
type handshakeListener struct {
	raw        net.Listener
	conf       *tls.Config
	timeout    time.Duration
	maxPending int
	logger     *log.Logger

	conns chan net.Conn
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	pending map[string]int
}

func newHandshakeListener(raw net.Listener, conf *tls.Config, timeout time.Duration, maxPending int, logger *log.Logger) *handshakeListener {
	l := &handshakeListener{raw: raw, conf: conf, timeout: timeout, maxPending: maxPending, logger: logger,
		conns: make(chan net.Conn), done: make(chan struct{}), pending: map[string]int{}}
	go l.acceptLoop()
	return l
}

func (l *handshakeListener) acceptLoop() {
	var delay time.Duration
	for {
		c, err := l.raw.Accept()
		if err != nil {
			select {
			case <-l.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				l.Close()
				return
			}
			// Out of descriptors and the like: wait and go on, as
			// net/http does, rather than stop serving.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			l.logger.Printf("api accept: %v; retrying in %s", err, delay)
			select {
			case <-time.After(delay):
			case <-l.done:
				return
			}
			continue
		}
		delay = 0
		ip, _, _ := net.SplitHostPort(c.RemoteAddr().String())
		l.mu.Lock()
		over := l.pending[ip] >= l.maxPending
		if !over {
			l.pending[ip]++
		}
		l.mu.Unlock()
		if over {
			c.Close()
			continue
		}
		go l.handshake(c, ip)
	}
}

func (l *handshakeListener) handshake(c net.Conn, ip string) {
	tc := tls.Server(c, l.conf)
	c.SetDeadline(time.Now().Add(l.timeout))
	err := tc.Handshake()
	c.SetDeadline(time.Time{})
	l.mu.Lock()
	if l.pending[ip]--; l.pending[ip] <= 0 {
		delete(l.pending, ip)
	}
	l.mu.Unlock()
	if err != nil {
		c.Close()
		return
	}
	select {
	case l.conns <- tc:
	case <-l.done:
		tc.Close()
	}
}

// Accept returns the next connection whose handshake succeeded.
func (l *handshakeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *handshakeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.raw.Close()
}

func (l *handshakeListener) Addr() net.Addr { return l.raw.Addr() }

// tlsPeerKey keys a handshaken TLS connection by its certificate: servers
// of the cluster (forwarding followers) are not capped, an agent is capped
// per host, a client without a certificate per IP.
func (l *Limits) tlsPeerKey(tc *tls.Conn) (string, int, int, bool) {
	cs := tc.ConnectionState()
	if !cs.HandshakeComplete {
		return "", 0, 0, false
	}
	role, host, ok := pki.PeerOf(&cs)
	switch {
	case ok && role == pki.RoleServer:
		return "cert:server", 0, 0, true
	case ok && role == pki.RoleAgent:
		return "agent:" + host, l.MaxConnsPerHost, l.MaxInflightPerHost, true
	}
	ip, _, _ := net.SplitHostPort(tc.RemoteAddr().String())
	return "ip:" + ip, l.MaxConnsPerHost, l.MaxInflightPerHost, true
}
