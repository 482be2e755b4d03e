package web

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sort"
	"sync"
	"time"
)

// Viewer is the user a page session speaks for: what the server's
// authenticated command channel said about the caller of `strata web
// login` (peer credentials or MUNGE), copied at minting time. The server
// turns it back into its own identity to apply query_other_jobs and
// operator rights (server/web_glue.go).
type Viewer struct {
	User   string `json:"user"`
	Host   string `json:"host"`
	UID    int    `json:"-"`
	GID    int    `json:"-"`
	Remote bool   `json:"-"`
}

// Lifetimes. A login link is a one-time code valid for CodeTTL; redeemed,
// it becomes a session cookie valid for SessionTTL, after which the user
// runs `strata web login` again. Both are short because the page listener
// is plain HTTP (docs/observability.md, "Security").
const (
	CodeTTL    = 2 * time.Minute
	SessionTTL = 30 * time.Minute
	// maxPerUser and maxTotal bound the memory a local user can make the
	// server hold by minting links in a loop: the oldest entry goes first.
	maxPerUser = 16
	maxTotal   = 4096
)

// entry is one code or session. Keys of the maps are SHA-256 digests of
// the secrets, so that the table itself holds nothing a reader of memory
// could replay and lookups compare digests, not secrets.
type entry struct {
	viewer  Viewer
	expires time.Time
	created time.Time
	// client is the remote IP that redeemed the code: a session cookie
	// sniffed on the wire is refused from another address.
	client string
}

// Sessions holds the login codes and page sessions of one server process
// (in memory only: they are never replicated, and a restart logs
// everyone out, which is the safe direction).
type Sessions struct {
	mu       sync.Mutex
	now      func() time.Time
	codes    map[[32]byte]*entry
	sessions map[[32]byte]*entry
}

// NewSessions makes an empty table; now is the clock (tests move it).
func NewSessions(now func() time.Time) *Sessions {
	if now == nil {
		now = time.Now
	}
	return &Sessions{now: now, codes: map[[32]byte]*entry{}, sessions: map[[32]byte]*entry{}}
}

// secret is 32 random bytes, URL-safe: unguessable (256 bits).
func secret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

func digest(s string) [32]byte { return sha256.Sum256([]byte(s)) }

// Mint makes a one-time login code for v.
func (s *Sessions) Mint(v Viewer) (string, time.Time, error) {
	code, err := secret()
	if err != nil {
		return "", time.Time{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	exp := now.Add(CodeTTL)
	s.add(s.codes, digest(code), &entry{viewer: v, expires: exp, created: now})
	return code, exp, nil
}

// Redeem exchanges a code (once) for a session bound to client.
func (s *Sessions) Redeem(code, client string) (string, *Viewer, bool) {
	if code == "" {
		return "", nil, false
	}
	sid, err := secret()
	if err != nil {
		return "", nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := digest(code)
	e, ok := s.codes[key]
	delete(s.codes, key) // one use, even a late one
	now := s.now()
	if !ok || !now.Before(e.expires) {
		return "", nil, false
	}
	s.add(s.sessions, digest(sid), &entry{viewer: e.viewer, expires: now.Add(SessionTTL), created: now, client: client})
	v := e.viewer
	return sid, &v, true
}

// Lookup returns the viewer of a live session presented from client.
func (s *Sessions) Lookup(sid, client string) (*Viewer, time.Time, bool) {
	if sid == "" {
		return nil, time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := digest(sid)
	e, ok := s.sessions[key]
	if !ok {
		return nil, time.Time{}, false
	}
	if !s.now().Before(e.expires) {
		delete(s.sessions, key)
		return nil, time.Time{}, false
	}
	if e.client != client {
		return nil, time.Time{}, false
	}
	v := e.viewer
	return &v, e.expires, true
}

// Minted lists the users of the live login codes (oldest first): who the
// server has handed links to (tests check it is the caller, whatever the
// request said).
func (s *Sessions) Minted() []Viewer {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var es []*entry
	for _, e := range s.codes {
		if now.Before(e.expires) {
			es = append(es, e)
		}
	}
	sort.Slice(es, func(i, j int) bool { return es[i].created.Before(es[j].created) })
	out := make([]Viewer, len(es))
	for i, e := range es {
		out[i] = e.viewer
	}
	return out
}

// End forgets a session (logout).
func (s *Sessions) End(sid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions, digest(sid))
}

// add stores e after dropping expired entries and, past the bounds, the
// oldest of the same user (or of anyone). Called with mu held.
func (s *Sessions) add(m map[[32]byte]*entry, key [32]byte, e *entry) {
	now := s.now()
	var mine int
	for k, old := range m {
		if !now.Before(old.expires) {
			delete(m, k)
		} else if old.viewer.User == e.viewer.User {
			mine++
		}
	}
	for mine >= maxPerUser || len(m) >= maxTotal {
		sameUser := mine >= maxPerUser
		var oldest [32]byte
		var found *entry
		for k, old := range m {
			if sameUser && old.viewer.User != e.viewer.User {
				continue
			}
			if found == nil || old.created.Before(found.created) {
				oldest, found = k, old
			}
		}
		if found == nil {
			break
		}
		delete(m, oldest)
		if sameUser {
			mine--
		}
	}
	m[key] = e
}
