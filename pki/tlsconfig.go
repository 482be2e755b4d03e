package pki

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// Files names the PEM files a daemon reads: the CA bundle (one or several
// CAs; several during a rotation), its own certificate and its key.
type Files struct {
	CA   string
	Cert string
	Key  string
}

// Source hands out the current CA pool and certificate of a daemon. It
// looks at the files' modification times on every handshake and reloads
// them when they changed, so replacing the files rotates the certificate
// (or the trusted CAs) without a restart. A reload that fails (a key and a
// certificate that do not match yet, half of a rotation) keeps the
// previous material and is tried again at the next handshake.
type Source struct {
	files Files

	mu     sync.Mutex
	stamps [3]stamp
	pool   *x509.CertPool
	cert   *tls.Certificate
}

type stamp struct {
	mod  time.Time
	size int64
}

// NewSource loads the files once, so a daemon with a wrong path or a
// mismatched key fails at start with the reason.
func NewSource(f Files) (*Source, error) {
	if f.CA == "" || f.Cert == "" || f.Key == "" {
		return nil, errors.New("tls: ca_file, cert_file and key_file must all be set")
	}
	s := &Source{files: f}
	st, err := s.stat()
	if err != nil {
		return nil, err
	}
	if err := s.load(st); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Source) stat() ([3]stamp, error) {
	var out [3]stamp
	for i, p := range []string{s.files.CA, s.files.Cert, s.files.Key} {
		fi, err := os.Stat(p)
		if err != nil {
			return out, fmt.Errorf("tls: %w", err)
		}
		out[i] = stamp{fi.ModTime(), fi.Size()}
	}
	return out, nil
}

// load reads the three files; on success they become current.
func (s *Source) load(st [3]stamp) error {
	cas, err := readCerts(s.files.CA)
	if err != nil {
		return fmt.Errorf("tls ca_file: %w", err)
	}
	pool := x509.NewCertPool()
	for _, c := range cas {
		pool.AddCert(c)
	}
	pair, err := tls.LoadX509KeyPair(s.files.Cert, s.files.Key)
	if err != nil {
		return fmt.Errorf("tls cert_file/key_file: %w", err)
	}
	s.pool, s.cert, s.stamps = pool, &pair, st
	return nil
}

// current returns the pool and certificate, reloading changed files.
func (s *Source) current() (*x509.CertPool, *tls.Certificate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, err := s.stat(); err == nil && st != s.stamps {
		_ = s.load(st) // on failure keep serving with what we have
	}
	return s.pool, s.cert
}

// Leaf returns the current certificate, parsed.
func (s *Source) Leaf() *x509.Certificate {
	_, c := s.current()
	return c.Leaf
}

// ServerConfig is the listening side's configuration. auth says whether a
// client certificate is required (tls.RequireAndVerifyClientCert) or only
// verified when given (tls.VerifyClientCertIfGiven); a certificate that is
// given must chain to the cluster CA and carry one of roles, or the
// handshake fails before any application byte is read.
func (s *Source) ServerConfig(auth tls.ClientAuthType, roles ...Role) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS13,
		// Evaluated per connection: the pool and certificate are the
		// current ones, so rotated files take effect at once.
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			pool, cert := s.current()
			return &tls.Config{
				MinVersion:       tls.VersionTLS13,
				Certificates:     []tls.Certificate{*cert},
				ClientCAs:        pool,
				ClientAuth:       auth,
				VerifyConnection: requireRole(roles),
			}, nil
		},
	}
}

// ClientConfig is the dialling side's configuration for one connection
// (call it per dial: it holds the current CA pool). The peer must present a
// certificate of role peer from the cluster CA; this side presents its
// own, reloaded on change.
func (s *Source) ClientConfig(peer Role) *tls.Config {
	pool, _ := s.current()
	return &tls.Config{
		MinVersion: tls.VersionTLS13,
		RootCAs:    pool,
		// The role is checked as the peer's host name: the standard
		// verification then refuses any other role.
		ServerName: peer.Name(),
		GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			_, cert := s.current()
			return cert, nil
		},
	}
}

// requireRole checks, after chain verification, that a client certificate
// (when there is one) has one of roles.
func requireRole(roles []Role) func(tls.ConnectionState) error {
	return func(cs tls.ConnectionState) error {
		if len(cs.PeerCertificates) == 0 {
			return nil // the ClientAuth type decided this is allowed
		}
		if len(cs.VerifiedChains) == 0 {
			return errors.New("tls: client certificate not verified")
		}
		r, _ := RoleOf(cs.VerifiedChains[0][0])
		if r != "" && slices.Contains(roles, r) {
			return nil
		}
		return fmt.Errorf("tls: client certificate %q has role %q, want %v", cs.PeerCertificates[0].Subject.CommonName, r, roles)
	}
}

// RoleOf returns the role and host a certificate carries. A server
// certificate's host is server.strata; an agent's is its CN; a
// simulator's is its CN, the prefix of the hosts it simulates. A
// certificate naming more than one role, or an agent whose CN is not among
// its names, has no role.
func RoleOf(c *x509.Certificate) (Role, string) {
	isServer := slices.Contains(c.DNSNames, RoleServer.Name())
	isAgent := slices.Contains(c.DNSNames, RoleAgent.Name())
	isSim := slices.Contains(c.DNSNames, RoleSimulator.Name())
	switch {
	case isServer && !isAgent && !isSim:
		return RoleServer, RoleServer.Name()
	case isAgent && !isServer && !isSim && validHost(c.Subject.CommonName) && slices.Contains(c.DNSNames, c.Subject.CommonName):
		return RoleAgent, c.Subject.CommonName
	case isSim && !isServer && !isAgent && validHost(c.Subject.CommonName) && len(c.DNSNames) == 1:
		return RoleSimulator, c.Subject.CommonName
	}
	return "", ""
}

// SimulatedHost reports whether host is one a simulator certificate with
// prefix may speak for: exactly <prefix>-<1 to 9 digits>. The rule is
// narrow on purpose: a simulator must not be able to name a real host.
func SimulatedHost(prefix, host string) bool {
	rest, ok := strings.CutPrefix(host, prefix+"-")
	if !ok || prefix == "" || len(rest) == 0 || len(rest) > 9 {
		return false
	}
	for _, c := range rest {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// PeerOf returns the verified role and host of a TLS connection's client,
// or ok false when the client presented no verified certificate.
func PeerOf(cs *tls.ConnectionState) (role Role, host string, ok bool) {
	if cs == nil || len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return "", "", false
	}
	role, host = RoleOf(cs.VerifiedChains[0][0])
	return role, host, role != ""
}

// HandshakeError is a TLS handshake that failed after the TCP connection
// was made: the peer received no request.
type HandshakeError struct{ Err error }

func (e *HandshakeError) Error() string { return "TLS handshake: " + e.Err.Error() }
func (e *HandshakeError) Unwrap() error { return e.Err }

// DialPeer connects to addr and completes the TLS handshake within
// handshake, presenting this side's certificate and accepting only a peer
// of role peer. Every dial takes the current CA pool and certificate, so
// a rotation applies to new connections. A failed handshake comes back as
// *HandshakeError, told apart from a connection that could not be made.
func (s *Source) DialPeer(ctx context.Context, dialer *net.Dialer, network, addr string, peer Role, handshake time.Duration) (*tls.Conn, error) {
	c, err := dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(c, s.ClientConfig(peer))
	hctx, cancel := context.WithTimeout(ctx, handshake)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		c.Close()
		return nil, &HandshakeError{err}
	}
	return tc, nil
}
