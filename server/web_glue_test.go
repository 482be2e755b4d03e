package server

import (
	"net/http"
	"testing"
)

// Attack: a user asks for a login link naming another user (in the body,
// as root's uid). The link is minted for the caller the kernel named, and
// the request's words are ignored.
func TestWebLoginIsForTheCaller(t *testing.T) {
	ts := startTestServer(t, func(cfg *Config) {
		cfg.Web, cfg.MetricsAddr = true, freeTCP(t)
	})
	nobody := ts.asUser(uidUser)
	resp := nobody.do(t, rawReq{Method: http.MethodPost, Path: "/v1/web/login", Body: `{"user":"root","uid":0,"host":"elsewhere","remote":false}`})
	if resp.Status != http.StatusOK {
		t.Fatalf("web login as nobody: %+v", resp)
	}
	minted := ts.srv.web.sessions.Minted()
	if len(minted) != 1 || minted[0].User != "nobody" || minted[0].UID != uidUser || minted[0].Host != ts.srv.hostname {
		t.Fatalf("minted %+v, want one link for nobody (uid %d) of this host", minted, uidUser)
	}
	// The viewer's rights are nobody's: not a manager.
	cfg := ts.srv.state().Config()
	if isOperator(viewerIdentity(&minted[0]), &cfg) {
		t.Error("nobody's session has operator rights")
	}
}
