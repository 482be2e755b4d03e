package server

import (
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
	"github.com/strata-hpc/strata/server/web"
)

// webUI is the page (server/web) of a server with `web = true`: served on
// the metrics listener, its sessions in this process's memory.
type webUI struct {
	handler  *web.Handler
	sessions *web.Sessions
	mu       sync.Mutex
	// base is the page's address for login links: web_url, or the
	// metrics listener's once it listens.
	base string
}

// newWebUI builds the page over this server's read paths (the ones qstat,
// pbsnodes and `strata provision status` answer from), or nil when off.
func (s *Server) newWebUI() *webUI {
	if !s.cfg.Web {
		return nil
	}
	if s.cfg.MetricsAddr == "" {
		s.logger.Printf("web = true needs metrics_addr (the page is served there): the web page is off")
		return nil
	}
	sessions := web.NewSessions(s.now)
	h := web.New(web.Deps{
		State: func() *raftstore.StateSnapshot {
			if s.fsm == nil {
				return nil
			}
			return s.state()
		},
		Now:        s.now,
		ServerInfo: s.serverInfo,
		Provision: func(snap *raftstore.StateSnapshot) *api.ProvisionStatus {
			return provisionStatus(snap, s.now().Unix())
		},
		SeeAll: func(v *web.Viewer, cfg *model.ServerConfig) bool {
			return cfg.QueryOtherJobs || isOperator(viewerIdentity(v), cfg)
		},
		Job:      webJob,
		Sessions: sessions,
		Logger:   s.logger,
	})
	return &webUI{handler: h, sessions: sessions, base: strings.TrimRight(s.cfg.WebURL, "/")}
}

// viewerIdentity is the identity a page session carries: the one the
// command channel established when the link was minted.
func viewerIdentity(v *web.Viewer) *Identity {
	return &Identity{User: v.User, UID: v.UID, GID: v.GID, Host: v.Host, Remote: v.Remote}
}

// webJob is qstat's rule for one job (handleJobs): it must exist, and
// without query_other_jobs or operator rights it must be the viewer's.
// Finished jobs are shown too, as tracejob shows them.
func webJob(snap *raftstore.StateSnapshot, v *web.Viewer, jid string) (*model.Job, error) {
	cfg := snap.Config()
	j := lookupJob(snap, jid)
	if j == nil {
		return nil, model.Err(model.PBSEUnknownJobID)
	}
	if !cfg.QueryOtherJobs && !isOperator(viewerIdentity(v), &cfg) && j.User != v.User {
		return nil, model.Err(model.PBSEPerm)
	}
	return j, nil
}

// listening records the metrics listener's address as the links' base
// when web_url does not name one (an unspecified IP becomes the host name).
func (w *webUI) listening(addr net.Addr, hostname string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.base != "" {
		return
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = hostname
	}
	w.base = "http://" + net.JoinHostPort(host, port)
}

func (w *webUI) baseURL() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.base
}

// webRoutes adds POST /v1/web/login: `strata web login` asks, over the
// caller's authenticated channel (socket peer credentials or MUNGE), for a
// one-time link to the page. Like every write it is answered by the
// leader (a follower forwards it with the caller's identity): the session
// lives in the leader's memory and the link names the leader's page.
func (s *Server) webRoutes(mux *http.ServeMux) {
	mux.Handle("POST "+api.Version+"/web/login", s.wrap(s.handleWebLogin, false))
}

func (s *Server) handleWebLogin(w http.ResponseWriter, r *http.Request, id *Identity) (any, error) {
	if id.Agent || id.User == "" {
		return nil, model.Errorf(model.PBSEPerm, "(a web login is for users)")
	}
	if s.web == nil {
		return nil, model.Errorf(model.PBSENoSupport, "(the web page is off on server %s: set web = true and metrics_addr)", s.cfg.Name)
	}
	base := s.web.baseURL()
	if base == "" {
		return nil, model.Errorf(model.PBSENoSupport, "(the web page of server %s is not listening)", s.cfg.Name)
	}
	code, exp, err := s.web.sessions.Mint(web.Viewer{User: id.User, Host: id.Host, UID: id.UID, GID: id.GID, Remote: id.Remote})
	if err != nil {
		return nil, err
	}
	s.logger.Printf("web: login link minted for %s@%s", id.User, id.Host)
	return api.WebLoginResponse{URL: base + "/ui/login?code=" + code, Page: base + "/ui/", User: id.User, Expires: exp.Unix()}, nil
}
