package server

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/pki"
	"github.com/strata-hpc/strata/server/api"
)

// The attack on announcements: a server's announcement decides where
// followers forward writes (peerAPI) and which command types the leader
// emits, so only a server of the cluster may announce. Root on the local
// socket, an agent certificate and a client without a certificate are
// refused, and nothing is learnt; a server-role certificate is heard.
func TestAnnounceOnlyFromServers(t *testing.T) {
	ts := startTestServer(t, nil)
	body := `{"id":"evil","raft_addr":"127.0.0.1:1","api_addr":"127.0.0.1:2","level":1}`
	req := rawReq{Method: http.MethodPost, Path: api.Version + "/operator/raft/announce", Body: body}
	anon, agent := ts.tcpClients(t, "node1")
	tcp := "https://" + ts.cfg.APIAddr
	for name, resp := range map[string]rawResp{
		"root on the socket": sendRaw(unixHTTP(ts.cfg.Socket), "http://strata", req, ""),
		"an agent":           sendRaw(agent, tcp, req, ""),
		"no certificate":     sendRaw(anon, tcp, req, ""),
	} {
		if resp.Status != http.StatusForbidden {
			t.Errorf("%s announced: HTTP %d %q, want 403", name, resp.Status, resp.Msg)
		}
	}
	if _, ok := ts.srv.members.get("evil"); ok {
		t.Fatal("a refused announcement was learnt")
	}

	td := filepath.Dir(ts.cfg.TLS.CAFile)
	cert, key := filepath.Join(td, "peer.pem"), filepath.Join(td, "peer-key.pem")
	if _, err := pki.Issue(td, pki.RoleServer, []string{"127.0.0.1"}, cert, key); err != nil {
		t.Fatal(err)
	}
	peer := newForwarder(mustSource(t, pki.Files{CA: ts.cfg.TLS.CAFile, Cert: cert, Key: key}))
	hreq, _ := http.NewRequest(http.MethodPost, tcp+req.Path, strings.NewReader(body))
	hreq.Header.Set(OnBehalfHeader, `{"User":"root","UID":0,"Host":"server9"}`)
	resp, err := peer.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a server's announcement: HTTP %d", resp.StatusCode)
	}
	if a, ok := ts.srv.members.get("evil"); !ok || a.Level != 1 {
		t.Fatalf("the server's announcement was not heard: %+v", a)
	}
}
