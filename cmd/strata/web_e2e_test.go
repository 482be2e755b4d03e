//go:build e2e

package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// webBase reads STRATA_WEB from the cluster's env file.
func webBase(t *testing.T, c *cluster) string {
	t.Helper()
	env, err := os.ReadFile(filepath.Join(c.dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`export STRATA_WEB="(http://127\.0\.0\.1:\d+)"`).FindSubmatch(env)
	if m == nil {
		t.Fatalf("no STRATA_WEB=http://127.0.0.1:PORT in D/env:\n%s", env)
	}
	return string(m[1])
}

// webClient talks to the page from a loopback source address of its
// choice (127.0.0.2 is "another host" to a session bound to 127.0.0.1),
// carrying a session cookie by hand and never following redirects.
type webClient struct {
	t      *testing.T
	http   *http.Client
	cookie string
}

func newWebClient(t *testing.T, from string) *webClient {
	d := &net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	return &webClient{t: t, http: &http.Client{
		Timeout:       10 * time.Second,
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (w *webClient) get(url string) (*http.Response, string) {
	w.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if w.cookie != "" {
		req.Header.Set("Cookie", "strata_session="+w.cookie)
	}
	resp, err := w.http.Do(req)
	if err != nil {
		w.t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// login redeems a link and keeps the session cookie.
func (w *webClient) login(link string) {
	w.t.Helper()
	resp, body := w.get(link)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/ui/" {
		w.t.Fatalf("login %s: status %d %q, want 303 to /ui/", link, resp.StatusCode, body)
	}
	for _, ck := range resp.Cookies() {
		if ck.Name == "strata_session" {
			if !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode || ck.Path != "/ui/" || ck.MaxAge <= 0 || ck.MaxAge > 3600 {
				w.t.Errorf("session cookie %+v: want HttpOnly, SameSite=Strict, Path=/ui/, a short Max-Age", ck)
			}
			w.cookie = ck.Value
		}
	}
	if w.cookie == "" {
		w.t.Fatalf("login set no session cookie: %v", resp.Header)
	}
}

type webState struct {
	Viewer *struct {
		User string `json:"user"`
	} `json:"viewer"`
	Nodes []struct {
		Name  string   `json:"name"`
		State string   `json:"state"`
		AOE   string   `json:"current_aoe"`
		Jobs  []string `json:"jobs"`
	} `json:"nodes"`
	Jobs []struct {
		ID    string `json:"id"`
		State string `json:"state"`
	} `json:"jobs"`
}

func (w *webClient) state(base string) (webState, string) {
	w.t.Helper()
	resp, body := w.get(base + "/ui/api/state")
	if resp.StatusCode != http.StatusOK {
		w.t.Fatalf("state: %d %s", resp.StatusCode, body)
	}
	var st webState
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		w.t.Fatalf("state: %v\n%s", err, body)
	}
	return st, body
}

func jobIDs(st webState) []string {
	var ids []string
	for _, j := range st.Jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

// TestWebSessionsAndJobVisibility performs the attacks on the page: jobs
// without a session, a forged cookie, a replayed login link, a sniffed
// cookie sent from another address, a session asking for another user's
// job; and checks that the page obeys query_other_jobs and ownership as
// qstat does. Cluster-level views need no login.
func TestWebSessionsAndJobVisibility(t *testing.T) {
	c := startCluster(t, 1, 4)
	base := webBase(t, c)
	c.must("qmgr", "-c", "set server query_other_jobs = false")
	rootJob := c.submit("sleep 600\n", "-N", "rootsecret")
	r := c.runAs(nobody, "sleep 600\n", "qsub", "-N", "nobodys")
	if r.code != 0 {
		t.Fatalf("qsub as nobody: %+v", r)
	}
	nobodyJob := strings.TrimSpace(r.stdout)
	c.waitState(rootJob, 30*time.Second, "R")
	c.waitState(nobodyJob, 30*time.Second, "R")

	// Metrics and page on one address; the page's headers.
	anon := newWebClient(t, "127.0.0.1")
	if resp, body := anon.get(base + "/metrics"); resp.StatusCode != 200 || !strings.Contains(body, "strata_vnodes") {
		t.Errorf("/metrics on STRATA_WEB: %d", resp.StatusCode)
	}
	resp, body := anon.get(base + "/ui/")
	if resp.StatusCode != 200 || !strings.Contains(body, "/ui/static/app.js") {
		t.Fatalf("/ui/: %d %s", resp.StatusCode, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if resp.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Errorf("Referrer-Policy %q: a login link could leak to another site", resp.Header.Get("Referrer-Policy"))
	}

	// Attack: read jobs anonymously. Nodes and counts are there; no job,
	// job id, name or owner is.
	st, raw := anon.state(base)
	if st.Viewer != nil || len(st.Jobs) != 0 || len(st.Nodes) != 1 || st.Nodes[0].Name != "node1" {
		t.Errorf("anonymous state: %s", raw)
	}
	for _, secret := range []string{rootJob, nobodyJob, "rootsecret", "nobodys"} {
		if strings.Contains(raw, secret) {
			t.Errorf("anonymous state reveals %q: %s", secret, raw)
		}
	}
	if resp, _ := anon.get(base + "/ui/api/jobs/" + rootJob); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("anonymous job detail: %d, want 401", resp.StatusCode)
	}

	// Attack: a forged session cookie is no session.
	forged := newWebClient(t, "127.0.0.1")
	forged.cookie = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	if resp, _ := forged.get(base + "/ui/api/jobs/" + rootJob); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged cookie job detail: %d, want 401", resp.StatusCode)
	}
	// Attack: a forged login code.
	if resp, _ := forged.get(base + "/ui/login?code=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("forged login code: %d, want 403", resp.StatusCode)
	}

	// nobody's link, minted over nobody's own socket connection.
	r = c.runAs(nobody, "", "strata", "web", "login")
	link := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(link, base+"/ui/login?code=") {
		t.Fatalf("strata web login as nobody: %+v", r)
	}
	user := newWebClient(t, "127.0.0.1")
	user.login(link)
	// Attack: replay the link (browser history, proxy log).
	if resp, _ := newWebClient(t, "127.0.0.1").get(link); resp.StatusCode != http.StatusForbidden {
		t.Errorf("replayed login link: %d, want 403", resp.StatusCode)
	}
	st, raw = user.state(base)
	if st.Viewer == nil || st.Viewer.User != "nobody" {
		t.Fatalf("nobody's session is %+v", st.Viewer)
	}
	if ids := jobIDs(st); len(ids) != 1 || ids[0] != nobodyJob || strings.Contains(raw, rootJob) || strings.Contains(raw, "rootsecret") {
		t.Errorf("nobody sees jobs %v (query_other_jobs false), want only %s: %s", ids, nobodyJob, raw)
	}
	// Attack: ask for root's job by id with nobody's session.
	if resp, body := user.get(base + "/ui/api/jobs/" + rootJob); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "rootsecret") {
		t.Errorf("nobody reading root's job: %d %s, want 403", resp.StatusCode, body)
	}
	resp, body = user.get(base + "/ui/api/jobs/" + nobodyJob)
	if resp.StatusCode != 200 || !strings.Contains(body, `"nobodys"`) || !strings.Contains(body, `"history"`) {
		t.Errorf("nobody's own job detail: %d %s", resp.StatusCode, body)
	}
	if strings.Contains(body, `"script"`) || strings.Contains(body, `"token"`) {
		t.Errorf("job detail carries the script or token: %s", body)
	}
	// Attack: nobody's cookie, sniffed on the plain-HTTP wire, replayed
	// from another address.
	thief := newWebClient(t, "127.0.0.2")
	thief.cookie = user.cookie
	if resp, _ := thief.get(base + "/ui/api/jobs/" + nobodyJob); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("stolen cookie from another address: %d, want 401", resp.StatusCode)
	}
	if st, _ := thief.state(base); st.Viewer != nil {
		t.Errorf("stolen cookie from another address is %+v's session", st.Viewer)
	}

	// root (a manager) sees every job, as with qstat.
	admin := newWebClient(t, "127.0.0.1")
	admin.login(strings.TrimSpace(c.must("strata", "web", "login")))
	if st, _ := admin.state(base); len(st.Jobs) != 2 {
		t.Errorf("root sees %v, want both jobs", jobIDs(st))
	}
	// query_other_jobs = true lets nobody see root's job, as qstat does.
	c.must("qmgr", "-c", "set server query_other_jobs = true")
	waitFor(t, 10*time.Second, "nobody to see root's job", func() bool {
		resp, _ := user.get(base + "/ui/api/jobs/" + rootJob)
		return resp.StatusCode == 200
	})
}
