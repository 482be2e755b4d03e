// Package sshtest is a real SSH server with the SFTP subsystem for tests
// (golang.org/x/crypto/ssh and github.com/pkg/sftp), listening on
// loopback, as net/http/httptest is for HTTP. The tests of output
// delivery and file staging start one to play "another host"; it
// accepts only the public keys it is given and records who logged in.
package sshtest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Server is a running SSH server.
type Server struct {
	// Addr is the listening address (127.0.0.1:port).
	Addr string
	// HostKey is the server's host key.
	HostKey ssh.Signer

	ln  net.Listener
	dir string
	mu  sync.Mutex
	// logins lists the user names that authenticated, in order.
	logins     []string
	authorized map[string]bool
	wg         sync.WaitGroup
}

// Key is a generated ed25519 key pair.
type Key struct {
	Signer ssh.Signer
	// PEM is the private key in OpenSSH format, as ssh-keygen writes it.
	PEM []byte
}

// NewKey generates an ed25519 key.
func NewKey() (*Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "sshtest")
	if err != nil {
		return nil, err
	}
	return &Key{Signer: s, PEM: pem.EncodeToMemory(block)}, nil
}

// AuthorizedLine is the key as an authorized_keys / known_hosts key.
func (k *Key) AuthorizedLine() string {
	return string(bytes.TrimSpace(ssh.MarshalAuthorizedKey(k.Signer.PublicKey())))
}

// Start listens on 127.0.0.1 with a new host key. Clients authenticate
// with one of the authorized public keys (any user name); relative SFTP
// paths are relative to dir.
func Start(dir string, authorized ...ssh.PublicKey) (*Server, error) {
	hk, err := NewKey()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{Addr: ln.Addr().String(), HostKey: hk.Signer, ln: ln, dir: dir, authorized: map[string]bool{}}
	for _, k := range authorized {
		s.authorized[string(k.Marshal())] = true
	}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// Port is the listening port.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// KnownHostsLine is the known_hosts line for this server under name
// ("[name]:port", as OpenSSH writes it for a port other than 22).
func (s *Server) KnownHostsLine(name string) string {
	return fmt.Sprintf("[%s]:%d %s", name, s.Port(), bytes.TrimSpace(ssh.MarshalAuthorizedKey(s.HostKey.PublicKey())))
}

// Logins returns the user names that authenticated so far.
func (s *Server) Logins() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.logins...)
}

// Close stops the server and waits for its connections to end.
func (s *Server) Close() {
	s.ln.Close()
	s.wg.Wait()
}

func (s *Server) serve() {
	defer s.wg.Done()
	cfg := &ssh.ServerConfig{
		PublicKeyCallback: func(c ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if !s.authorized[string(k.Marshal())] {
				return nil, fmt.Errorf("key not authorized")
			}
			return nil, nil
		},
	}
	cfg.AddHostKey(s.HostKey)
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(conn, cfg)
		}()
	}
}

func (s *Server) handle(conn net.Conn, cfg *ssh.ServerConfig) {
	defer conn.Close()
	sc, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	defer sc.Close()
	s.mu.Lock()
	s.logins = append(s.logins, sc.User())
	s.mu.Unlock()
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		go s.session(ch, creqs)
	}
}

// session serves the sftp subsystem and refuses anything else (no
// shell, no exec: the client under test must not need one).
func (s *Server) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer ch.Close()
	for req := range reqs {
		if req.Type != "subsystem" || len(req.Payload) < 4 || string(req.Payload[4:]) != "sftp" {
			req.Reply(false, nil)
			continue
		}
		req.Reply(true, nil)
		srv, err := sftp.NewServer(ch, sftp.WithServerWorkingDirectory(s.dir))
		if err != nil {
			return
		}
		if err := srv.Serve(); err != nil && err != io.EOF {
			return
		}
		return
	}
}
