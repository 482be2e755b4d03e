package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os/user"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/pki"
)

// Identity is who made a request. Local users are identified by the kernel
// (SO_PEERCRED on the Unix socket), agents by their TLS client certificate
// (Host is the certificate's host, Agent is set, and the identity is no
// user: UID -1 and an empty User match no manager, operator or owner);
// nothing a client writes in a request body can change it.
type Identity struct {
	User  string
	UID   int
	GID   int
	Group string
	Host  string
	Agent bool
	// Remote is a user authenticated by a MUNGE credential from a login
	// host (remoteauth.go): uid 0 there is root of that host, not of the
	// cluster.
	Remote bool `json:"remote,omitempty"`
	// Simulator is set for `strata mom --simulate` (simulator
	// certificate): Host is then the prefix of the simulated hosts it
	// may speak for (pki.SimulatedHost); Agent is set too, so it has an
	// agent's routes and no user's rights.
	Simulator bool
	// Forwarded is set on the leader for a request a follower forwarded;
	// such a request is never forwarded again.
	Forwarded bool `json:"-"`
}

type connKey struct{}

// saveConn stores the connection in the request context so handlers can read
// the peer's credentials.
func saveConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// identify authenticates a request.
func (s *Server) identify(r *http.Request) (*Identity, error) {
	conn, _ := r.Context().Value(connKey{}).(net.Conn)
	role, host, verified := pki.PeerOf(r.TLS)
	onBehalf := r.Header.Get(OnBehalfHeader)
	// Only another server of the cluster may speak for a user: the
	// header from anyone else is an attempt to borrow an identity.
	if onBehalf != "" && !(verified && role == pki.RoleServer) {
		return nil, model.Errorf(model.PBSEPerm, "(only a server of the cluster may forward a request)")
	}
	if uc, ok := conn.(*net.UnixConn); ok {
		return peerIdentity(uc, s.hostname)
	}
	if verified && role == pki.RoleServer {
		if onBehalf == "" {
			return nil, model.Errorf(model.PBSEPerm, "(a server peer must name the user it forwards for)")
		}
		id, err := forwardedIdentity(onBehalf)
		if err == nil {
			id.Forwarded = true
		}
		return id, err
	}
	// TCP: only a client certificate of the cluster CA identifies the
	// caller (the TLS layer verified the chain and the role).
	if verified && role == pki.RoleAgent {
		return &Identity{UID: -1, GID: -1, Host: host, Agent: true}, nil
	}
	if verified && role == pki.RoleSimulator {
		return &Identity{UID: -1, GID: -1, Host: host, Agent: true, Simulator: true}, nil
	}
	// A user of a login host: only a MUNGE credential identifies one.
	if auth := r.Header.Get("Authorization"); auth != "" {
		return s.mungeIdentity(r, conn, auth)
	}
	return nil, model.Errorf(model.PBSEPerm, "(the TCP API needs an agent certificate or a MUNGE credential)")
}

// agentOf refuses a request in which an agent speaks for a host other
// than the one its certificate names, or a simulator for a host outside
// its prefix.
func agentOf(id *Identity, host string) error {
	if id.Agent && id.Simulator {
		if !pki.SimulatedHost(id.Host, host) {
			return model.Errorf(model.PBSEPerm, "(simulator %s may not act for host %s)", id.Host, host)
		}
		return nil
	}
	if !id.Agent || host != id.Host {
		return model.Errorf(model.PBSEPerm, "(agent %s may not act for host %s)", id.Host, host)
	}
	return nil
}

func peerIdentity(uc *net.UnixConn, host string) (*Identity, error) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	if credErr != nil {
		return nil, fmt.Errorf("peer credentials: %w", credErr)
	}
	id := &Identity{UID: int(cred.Uid), GID: int(cred.Gid), Host: host}
	if u, err := user.LookupId(strconv.Itoa(id.UID)); err == nil {
		id.User = u.Username
		if gid, err := strconv.Atoi(u.Gid); err == nil {
			id.GID = gid
		}
	} else {
		id.User = strconv.Itoa(id.UID)
	}
	if g, err := user.LookupGroupId(strconv.Itoa(id.GID)); err == nil {
		id.Group = g.Name
	} else {
		id.Group = strconv.Itoa(id.GID)
	}
	return id, nil
}

// isManager reports whether the identity may manage the server: root of
// the server's host, or a user named in managers (as user or user@host).
// Agents never are: they only have the rights of their own routes, for
// their own host. Root of a login host is a manager only when managers
// names it (root@host), as in PBS.
func isManager(id *Identity, cfg *model.ServerConfig) bool {
	if id.Agent {
		return false
	}
	if id.UID == 0 && !id.Remote {
		return true
	}
	return listed(id, cfg.Managers)
}

// isOperator reports operator (or manager) rights.
func isOperator(id *Identity, cfg *model.ServerConfig) bool {
	if id.Agent {
		return false
	}
	return isManager(id, cfg) || listed(id, cfg.Operators)
}

func listed(id *Identity, names []string) bool {
	if id.Agent || id.User == "" {
		return false
	}
	for _, m := range names {
		name, host, hasHost := strings.Cut(m, "@")
		if name != id.User {
			continue
		}
		// A remote user's host is what its credential proves: an entry
		// naming a host holds for that host only (PBS's user@host, with
		// "*" and "*.domain" patterns). Root of a login host must be
		// named with its host: a bare "root" means the server's root.
		if id.Remote && (hasHost && !hostACLMatch([]string{host}, id.Host) || !hasHost && id.UID == 0) {
			continue
		}
		return true
	}
	return false
}

// mayModify reports whether the identity may alter or delete a job.
func mayModify(id *Identity, j *model.Job, cfg *model.ServerConfig) bool {
	return (!id.Agent && j.User == id.User) || isOperator(id, cfg)
}
