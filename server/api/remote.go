package api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/strata-hpc/strata/pki"
)

// Remote commands (login nodes). A command on a host without the server's
// socket speaks HTTPS to the server's TCP API (api_addr, PBS's port 15001
// by default). It verifies the server's certificate against the cluster CA
// (the same check agents make: the server role, the cluster CA) and
// presents no certificate of its own; the user is identified by a MUNGE
// credential sent with every request:
//
//	Authorization: MUNGE <credential>
//
// The credential's payload binds it to one request on one connection: it
// is the hex SHA-256 of the TLS exporter of the connection (RFC 9266's
// tls-exporter, 32 bytes), the method, the request URI and the SHA-256 of
// the body. A credential seen by anyone (a log, a proxy) is worthless for
// another request or on another connection, and munged refuses to decode
// the same credential twice. Each request gets a fresh credential and a new
// connection, so the exporter is known before the request is written.

const (
	// MungeScheme is the Authorization scheme of a MUNGE credential.
	MungeScheme = "MUNGE"
	// ExporterLabel is the TLS exporter label of the channel binding.
	ExporterLabel = "EXPORTER-Channel-Binding"
	// DefaultPort is the TCP API's port when PBS_SERVER names none
	// (PBS's server port).
	DefaultPort = "15001"
)

// Encoder obtains a credential carrying payload from the local munged
// (*munge.Client).
type Encoder interface {
	Encode(ctx context.Context, payload []byte) (string, error)
}

// AuthError is a failure to obtain a credential: the request was not sent.
type AuthError struct{ Err error }

func (e *AuthError) Error() string { return "cannot authenticate: " + e.Err.Error() }
func (e *AuthError) Unwrap() error { return e.Err }

// RequestBinding is the payload a request's credential must carry.
func RequestBinding(exporter []byte, method, requestURI string, body []byte) []byte {
	bodySum := sha256.Sum256(body)
	h := sha256.New()
	fmt.Fprintf(h, "strata-munge-v1\n%x\n%s\n%s\n%x\n", exporter, method, requestURI, bodySum)
	return []byte(hex.EncodeToString(h.Sum(nil)))
}

// ChannelBinding returns a TLS 1.3 connection's exporter value.
func ChannelBinding(cs tls.ConnectionState) ([]byte, error) {
	if cs.Version != tls.VersionTLS13 {
		return nil, fmt.Errorf("channel binding needs TLS 1.3")
	}
	return cs.ExportKeyingMaterial(ExporterLabel, nil, 32)
}

// WithPort returns addr with the default port when it names none.
func WithPort(addr string) string {
	if _, _, err := net.SplitHostPort(addr); err == nil {
		return addr
	}
	return net.JoinHostPort(strings.Trim(addr, "[]"), DefaultPort)
}

// NewRemoteClient returns a client for the servers at addrs (host[:port],
// comma-separated for several servers of one cluster) that verifies them
// with the CA bundle in caFile and authenticates every request with a
// credential from enc.
func NewRemoteClient(addrs, caFile string, enc Encoder) *Client {
	rt := &mungeTransport{caFile: caFile, enc: enc}
	list := SplitServers(addrs)
	for i := range list {
		list[i] = WithPort(list[i])
	}
	c := &Client{ServerName: list[0], base: "https://" + list[0], http: &http.Client{Transport: rt}}
	if len(list) > 1 {
		for _, a := range list {
			c.servers.bases = append(c.servers.bases, "https://"+a)
		}
	}
	return c
}

// mungeTransport sends each request on its own TLS connection, with a
// credential bound to that connection and the request.
type mungeTransport struct {
	caFile string
	enc    Encoder
}

func (t *mungeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("request body: %w", err)
		}
		body = b
	}
	conn, err := t.dial(ctx, req.URL.Host)
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	fail := func(err error) (*http.Response, error) {
		stop()
		conn.Close()
		return nil, err
	}
	ekm, err := ChannelBinding(conn.ConnectionState())
	if err != nil {
		return fail(&pki.HandshakeError{Err: err})
	}
	cred, err := t.enc.Encode(ctx, RequestBinding(ekm, req.Method, req.URL.RequestURI(), body))
	if err != nil {
		return fail(&AuthError{Err: err})
	}
	out := req.Clone(ctx)
	out.Header.Set("Authorization", MungeScheme+" "+cred)
	out.Body, out.ContentLength = http.NoBody, 0
	if len(body) > 0 {
		out.Body, out.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
	}
	out.Close = true
	if err := out.Write(conn); err != nil {
		return fail(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), out)
	if err != nil {
		return fail(err)
	}
	resp.Body = &closeBoth{ReadCloser: resp.Body, conn: conn, stop: stop}
	return resp, nil
}

// dial connects and verifies the server: a certificate of the cluster CA
// with the server role (checked as the host name, as pki.ClientConfig does).
func (t *mungeTransport) dial(ctx context.Context, addr string) (*tls.Conn, error) {
	// Read per connection: a rotated CA bundle applies at once.
	pem, err := os.ReadFile(t.caFile)
	if err != nil {
		return nil, &pki.HandshakeError{Err: fmt.Errorf("cluster CA: %w", err)}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, &pki.HandshakeError{Err: fmt.Errorf("cluster CA %s: no certificate", t.caFile)}
	}
	d := &net.Dialer{Timeout: 5 * time.Second}
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	tc := tls.Client(raw, &tls.Config{MinVersion: tls.VersionTLS13, RootCAs: pool, ServerName: pki.RoleServer.Name()})
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		raw.Close()
		return nil, &pki.HandshakeError{Err: err}
	}
	return tc, nil
}

type closeBoth struct {
	io.ReadCloser
	conn net.Conn
	stop func() bool
}

func (c *closeBoth) Close() error {
	c.stop()
	err := c.ReadCloser.Close()
	c.conn.Close()
	return err
}
