// Package web is the server's read-only web page: a node map, the queue,
// reservations and provisioning, and a job's detail (docs/observability.md).
// The assets are embedded (plain HTML, CSS and JavaScript; no build step,
// nothing fetched from elsewhere); the page polls JSON endpoints built from
// the same state snapshot and wire types the API answers with.
//
// Cluster-level views (nodes, counts, provisioning, reservation times) need
// no login. Jobs are shown only to a session minted by `strata web login`
// over the user's authenticated command channel, and only the jobs that
// user may see (query_other_jobs, ownership, operator rights).
package web

import (
	"embed"
	"encoding/json"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore"
	"github.com/strata-hpc/strata/server/api"
)

//go:embed assets
var assets embed.FS

// CookieName carries the page session.
const CookieName = "strata_session"

// Deps are the server's read paths the page is built from.
type Deps struct {
	// State is a consistent read view, nil while the server starts.
	State func() *raftstore.StateSnapshot
	Now   func() time.Time
	// ServerInfo is what qstat -B shows (counts by state and queue).
	ServerInfo func(*raftstore.StateSnapshot) api.ServerInfo
	// Provision is what `strata provision status` shows.
	Provision func(*raftstore.StateSnapshot) *api.ProvisionStatus
	// SeeAll reports whether v may see every job (query_other_jobs or
	// operator rights), as qstat decides.
	SeeAll func(v *Viewer, cfg *model.ServerConfig) bool
	// Job returns the job id names if v may see it (finished ones too,
	// as tracejob), or the PBS error qstat would give.
	Job      func(snap *raftstore.StateSnapshot, v *Viewer, id string) (*model.Job, error)
	Sessions *Sessions
	Logger   *log.Logger
}

// Handler serves the page.
type Handler struct {
	d Deps
}

// New makes the page's handler.
func New(d Deps) *Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Handler{d: d}
}

// Mount registers the page's routes on mux (the metrics listener's):
// /ui/ and everything below it, and / redirecting there.
func (h *Handler) Mount(mux *http.ServeMux) {
	static, _ := fs.Sub(assets, "assets")
	files := http.StripPrefix("/ui/static/", http.FileServer(http.FS(static)))
	mux.Handle("GET /ui/static/", secure(files))
	mux.Handle("GET /ui/{$}", secure(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "index.html")
	})))
	mux.Handle("GET /{$}", http.RedirectHandler("/ui/", http.StatusFound))
	mux.Handle("GET /ui/login", secure(http.HandlerFunc(h.login)))
	mux.Handle("POST /ui/logout", secure(http.HandlerFunc(h.logout)))
	mux.Handle("GET /ui/api/state", secure(http.HandlerFunc(h.state)))
	mux.Handle("GET /ui/api/jobs/{id}", secure(http.HandlerFunc(h.job)))
}

// secure sets the headers every answer carries: no framing, no sniffing,
// no referrer (a login URL must not leak to another site), scripts only
// from this origin, and nothing cached (answers depend on the session).
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// clientIP is the address a session is bound to.
func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// viewer is the session's user, or nil (anonymous).
func (h *Handler) viewer(r *http.Request) (*Viewer, time.Time) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return nil, time.Time{}
	}
	v, exp, ok := h.d.Sessions.Lookup(c.Value, clientIP(r))
	if !ok {
		return nil, time.Time{}
	}
	return v, exp
}

// login redeems a one-time code from `strata web login` and sets the
// session cookie, then sends the browser to the page without the code in
// its address bar or history.
func (h *Handler) login(w http.ResponseWriter, r *http.Request) {
	sid, v, ok := h.d.Sessions.Redeem(r.URL.Query().Get("code"), clientIP(r))
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte("This login link is unknown, used or expired: run `strata web login` again.\n"))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: sid, Path: "/ui/", MaxAge: int(SessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
	if h.d.Logger != nil {
		h.d.Logger.Printf("web: %s@%s logged in from %s", v.User, v.Host, clientIP(r))
	}
	// A link for one job (strata web login --job) opens its detail; the
	// id only ever lands in this page's fragment, so the redirect cannot
	// lead elsewhere.
	to := "/ui/"
	if job := r.URL.Query().Get("job"); job != "" {
		to += "#job=" + url.QueryEscape(job)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (h *Handler) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(CookieName); err == nil {
		h.d.Sessions.End(c.Value)
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/ui/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) state(w http.ResponseWriter, r *http.Request) {
	snap := h.snapshot(w)
	if snap == nil {
		return
	}
	v, exp := h.viewer(r)
	writeJSON(w, http.StatusOK, h.overview(snap, v, exp))
}

// job answers a job's detail: the job status qstat -f shows (the same
// wire type) and its history (what tracejob prints).
func (h *Handler) job(w http.ResponseWriter, r *http.Request) {
	snap := h.snapshot(w)
	if snap == nil {
		return
	}
	v, _ := h.viewer(r)
	if v == nil {
		writeJSON(w, http.StatusUnauthorized, errorBody{Code: model.PBSEPerm, Msg: "log in with `strata web login` to see jobs"})
		return
	}
	j, err := h.d.Job(snap, v, r.PathValue("id"))
	if err != nil {
		pe, ok := model.AsPBSError(err)
		if !ok {
			pe = &model.PBSError{Code: model.PBSESystem, Msg: model.Message(model.PBSESystem)}
		}
		status := http.StatusNotFound
		if pe.Code == model.PBSEPerm {
			status = http.StatusForbidden
		}
		writeJSON(w, status, errorBody{Code: pe.Code, Msg: pe.Msg})
		return
	}
	writeJSON(w, http.StatusOK, jobDetail{Job: api.NewJobStatus(j)})
}

func (h *Handler) snapshot(w http.ResponseWriter) *raftstore.StateSnapshot {
	snap := h.d.State()
	if snap == nil || !snap.Configured() {
		writeJSON(w, http.StatusServiceUnavailable, errorBody{Code: model.PBSENotLeader, Msg: "Server is not ready yet"})
		return nil
	}
	return snap
}

type errorBody struct {
	Code int    `json:"code"`
	Msg  string `json:"message"`
}

// jobDetail is GET /ui/api/jobs/{id}. The job status carries the history
// (tracejob's lines) in its "history" field.
type jobDetail struct {
	Job *api.JobStatus `json:"job"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
