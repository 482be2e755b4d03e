package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/strata-hpc/strata/internal/munge"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// Remote commands: users on login nodes reach the TCP API with a MUNGE
// credential (server/api/remote.go has the client's side and the binding).
// Only what munged decoded identifies them: the uid and gid the credential
// carries and the host that encoded it. Nothing in the request's headers or
// body is believed; the credential must carry the hash of this connection's
// TLS exporter and of this very request, so it cannot be moved to another
// request or connection; munged refuses expired and replayed credentials.

// MungeConfig is the [munge] table (docs/configuration.md).
type MungeConfig struct {
	// Enable accepts MUNGE-authenticated commands on api_addr. Off, the
	// TCP API refuses every request without an agent or server
	// certificate with "Unauthorized Request".
	Enable bool `toml:"enable"`
	// Socket is the local munged's socket ("" is MUNGE's default,
	// /run/munge/munge.socket.2).
	Socket string `toml:"socket"`
	// Unmunge is the unmunge program ("" finds it in PATH).
	Unmunge string `toml:"unmunge"`
	// MaxDecoders bounds unmunge processes running at once (default 8):
	// requests beyond wait, so unauthenticated callers cannot fork
	// without bound.
	MaxDecoders int `toml:"max_decoders"`
}

// openMunge prepares the decoder when [munge] enable is set; a server
// asked to accept credentials it cannot decode does not start.
func (s *Server) openMunge() error {
	m := s.cfg.Munge
	if !m.Enable {
		return nil
	}
	n := m.MaxDecoders
	if n <= 0 {
		n = 8
	}
	d, err := munge.NewDecoder(m.Unmunge, m.Socket, n)
	if err != nil {
		return fmt.Errorf("config [munge]: %w", err)
	}
	s.munge = d
	return nil
}

// mungeIdentity authenticates a TCP request by its MUNGE credential.
func (s *Server) mungeIdentity(r *http.Request, conn net.Conn, auth string) (*Identity, error) {
	if s.munge == nil {
		return nil, model.Errorf(model.PBSEPerm, "(this server accepts no MUNGE credentials: [munge] enable is off)")
	}
	scheme, cred, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, api.MungeScheme) {
		return nil, model.Errorf(model.PBSEPerm, "(unknown authorization scheme)")
	}
	tc, ok := conn.(*tls.Conn)
	if !ok {
		return nil, model.Errorf(model.PBSEPerm, "(MUNGE credentials are accepted over TLS only)")
	}
	ekm, err := api.ChannelBinding(tc.ConnectionState())
	if err != nil {
		return nil, model.Errorf(model.PBSEPerm, "(%v)", err)
	}
	// The body is in memory already (limitRequests read it, bounded); it
	// is hashed and put back for the handler.
	var body []byte
	if r.Body != nil {
		if body, err = io.ReadAll(io.LimitReader(r.Body, maxBody+1)); err != nil {
			return nil, fmt.Errorf("read request: %w", err)
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	want := api.RequestBinding(ekm, r.Method, r.RequestURI, body)
	c, err := s.munge.Decode(r.Context(), strings.TrimSpace(cred))
	if err != nil {
		var me *munge.Error
		if errors.As(err, &me) {
			if me.Status == munge.StatusSocket {
				s.logger.Printf("munge: cannot decode credentials: %v", me)
			}
			return nil, model.Errorf(model.PBSEPerm, "(%v)", me)
		}
		return nil, fmt.Errorf("munge: %w", err)
	}
	if subtle.ConstantTimeCompare(c.Payload, want) != 1 {
		return nil, model.Errorf(model.PBSEPerm, "(MUNGE credential is not bound to this request)")
	}
	u, err := user.LookupId(strconv.Itoa(c.UID))
	if err != nil {
		return nil, model.Errorf(model.PBSEPerm, "(uid %d has no account on the server)", c.UID)
	}
	id := &Identity{User: u.Username, UID: c.UID, GID: c.GID, Host: hostOf(r.Context(), c.Addr), Remote: true}
	id.Group = strconv.Itoa(id.GID)
	if g, err := user.LookupGroupId(id.Group); err == nil {
		id.Group = g.Name
	}
	// PBS: with acl_host_enable, a host not in acl_hosts may request
	// nothing of the server (the server's own host always may: local
	// commands use the socket).
	if snap := s.state(); snap.Configured() {
		if cfg := snap.Config(); cfg.ACLHostEnable && !hostACLMatch(cfg.ACLHosts, id.Host) {
			return nil, model.Errorf(model.PBSEPerm, "(host %s is not in acl_hosts)", id.Host)
		}
	}
	return id, nil
}

// rootMaySubmit reports whether root may submit: root of the server's
// host as the configuration says (acl_roots, allow_root_jobs); root of a
// login host only when acl_roots names root@that-host, as PBS requires,
// whatever allow_root_jobs says (its jobs would run as root on the
// compute hosts).
func rootMaySubmit(id *Identity, cfg *model.ServerConfig) bool {
	if !id.Remote {
		return cfg.RootMaySubmit()
	}
	for _, r := range cfg.ACLRoots {
		name, host, ok := strings.Cut(r, "@")
		if name == "root" && ok && hostACLMatch([]string{host}, id.Host) {
			return true
		}
	}
	return false
}

// hostOf names the host whose munged encoded a credential: the name its
// address resolves to on the server, or the address itself.
func hostOf(ctx context.Context, ip net.IP) string {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if names, err := net.DefaultResolver.LookupAddr(ctx, ip.String()); err == nil && len(names) > 0 {
		return strings.ToLower(strings.TrimSuffix(names[0], "."))
	}
	return ip.String()
}
