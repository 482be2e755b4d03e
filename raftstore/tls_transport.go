package raftstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	hclog "github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/strata-hpc/strata/pki"
)

// Bounds of the inbound side of the stream layer. A handshake that does not
// finish in handshakeTimeout is dropped; at most maxHandshakes run at once,
// so a flood of idle connections costs bounded memory and never delays a
// peer whose handshake completes.
const (
	handshakeTimeout = 5 * time.Second
	maxHandshakes    = 128
)

// tlsStream is Raft's stream layer over mutual TLS. Both ends must hold a
// certificate of the cluster CA with the server role: Raft messages carry
// the replicated state itself, so nothing else may speak on this port.
//
// Accept returns only connections whose handshake has completed and whose
// client certificate was verified. Handshakes run in their own goroutines
// (with a deadline) and verified connections are handed over through a
// channel, so one slow or silent client does not hold up the others, and a
// connection that fails verification is closed before Raft reads a byte.
type tlsStream struct {
	ln     net.Listener
	src    *pki.Source
	cfg    *tls.Config
	logger hclog.Logger

	conns  chan net.Conn
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
}

var _ raft.StreamLayer = (*tlsStream)(nil)

// newTLSStream listens on bind and starts accepting.
func newTLSStream(bind string, src *pki.Source, logger hclog.Logger) (*tlsStream, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, fmt.Errorf("raft listen on %s: %w", bind, err)
	}
	// Peers dial the listening address (it is what the Raft
	// configuration records), so it must be one they can reach, as
	// raft's own TCP transport requires.
	if a, ok := ln.Addr().(*net.TCPAddr); !ok || a.IP.IsUnspecified() {
		ln.Close()
		return nil, fmt.Errorf("raft_addr %s: listen on a specific address other servers can reach, not a wildcard", bind)
	}
	s := &tlsStream{
		ln:     ln,
		src:    src,
		cfg:    src.ServerConfig(tls.RequireAndVerifyClientCert, pki.RoleServer),
		logger: logger,
		conns:  make(chan net.Conn),
		slots:  make(chan struct{}, maxHandshakes),
		closed: make(chan struct{}),
	}
	go s.acceptLoop()
	return s, nil
}

func (s *tlsStream) acceptLoop() {
	var delay time.Duration
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.closed:
				return
			default:
			}
			// Out of file descriptors and the like: back off.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			s.logger.Warn("raft accept", "error", err)
			select {
			case <-time.After(delay):
			case <-s.closed:
				return
			}
			continue
		}
		delay = 0
		select {
		case s.slots <- struct{}{}:
			go s.handshake(c)
		default:
			s.logger.Warn("raft: too many TLS handshakes in progress, dropping connection", "remote", c.RemoteAddr().String())
			c.Close()
		}
	}
}

// handshake completes the TLS handshake of one inbound connection and hands
// it to Accept, or closes it.
func (s *tlsStream) handshake(c net.Conn) {
	defer func() { <-s.slots }()
	tc := tls.Server(c, s.cfg)
	tc.SetDeadline(time.Now().Add(handshakeTimeout))
	if err := tc.Handshake(); err != nil {
		s.logger.Warn("raft: refused connection", "remote", c.RemoteAddr().String(), "error", err)
		c.Close()
		return
	}
	tc.SetDeadline(time.Time{})
	select {
	case s.conns <- tc:
	case <-s.closed:
		tc.Close()
	}
}

// Accept returns the next verified connection.
func (s *tlsStream) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.closed:
		return nil, net.ErrClosed
	}
}

// Close stops listening; handshakes in progress end with their deadline.
func (s *tlsStream) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.ln.Close()
	})
	return err
}

// Addr is the listening address, which peers dial.
func (s *tlsStream) Addr() net.Addr { return s.ln.Addr() }

// Dial connects to another server and verifies it holds a server
// certificate of the cluster CA; this side presents its own.
func (s *tlsStream) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	d := &net.Dialer{Timeout: timeout}
	c, err := s.src.DialPeer(context.Background(), d, "tcp", string(address), pki.RoleServer, timeout)
	if err != nil {
		return nil, fmt.Errorf("raft dial %s: %w", address, err)
	}
	return c, nil
}

// newTLSTransport is Raft's network transport over the TLS stream layer.
func newTLSTransport(bind string, src *pki.Source, logger hclog.Logger) (*raft.NetworkTransport, error) {
	if src == nil {
		return nil, errors.New("raft transport: TLS configuration missing (the raft port requires mutual TLS)")
	}
	stream, err := newTLSStream(bind, src, logger)
	if err != nil {
		return nil, err
	}
	return raft.NewNetworkTransportWithConfig(&raft.NetworkTransportConfig{
		Stream:  stream,
		MaxPool: 3,
		Timeout: 10 * time.Second,
		Logger:  logger,
	}), nil
}
