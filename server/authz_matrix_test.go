package server

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/raftstore/manager"
	"github.com/strata-hpc/strata/server/api"
)

// The authorization matrix: every route of the API, called by a user, an
// operator and a manager (real uids over the socket, identified by the
// kernel), an unauthenticated TCP client and an agent. Every denial must
// be "Unauthorized Request" (PBSEPerm, HTTP 403) and change nothing a
// client can see. A route added to the server without a row here fails
// the test.

type outcome int

const (
	skip  outcome = iota // not checked for this caller
	allow                // anything but a permission refusal
	deny                 // 403, PBSEPerm, state unchanged
)

// matrixRow is one route and what each caller gets. Body and path may
// name the fresh target job {job}, a second job {job2} and a reservation
// {resv}, all owned by root.
type matrixRow struct {
	pattern string // as registered: "POST /v1/jobs/{id}/hold"
	path    string
	body    string
	user    outcome
	oper    outcome
	mgr     outcome
	agent   outcome
}

// Uids of the callers: nobody is a plain user, daemon an operator, bin a
// manager.
const (
	uidUser = 65534
	uidOper = 1
	uidMgr  = 2
)

func matrixRows() []matrixRow {
	job := "/v1/jobs/{job}"
	return []matrixRow{
		{"POST /v1/jobs", "/v1/jobs", `{"token":"{token}","argv":["/bin/true"],"workdir":"/tmp","hold":"u"}`, allow, allow, allow, deny},
		// A before* dependency acts on the other job: it needs the right
		// to modify it (issue 9 item 4).
		{"POST /v1/jobs", "/v1/jobs", `{"token":"{token}","argv":["/bin/true"],"workdir":"/tmp","hold":"u","depend":"beforeok:{job}"}`, deny, allow, allow, deny},
		{"GET /v1/jobs", "/v1/jobs", "", allow, allow, allow, deny},
		{"POST /v1/jobs/{id}/delete", job + "/delete", `{}`, deny, allow, allow, deny},
		{"GET /v1/nodes", "/v1/nodes", "", allow, allow, allow, deny},
		{"POST /v1/jobs/{id}/hold", job + "/hold", `{"holds":"u"}`, deny, allow, allow, deny},
		{"POST /v1/jobs/{id}/release", job + "/release", `{"holds":"u"}`, deny, allow, allow, deny},
		// Batched qhold/qrls answer 200 with a per-id refusal for a user
		// naming root's job (TestBatchReleaseOnlyTheCallersJobs attacks it).
		{"POST /v1/batch/hold", "/v1/batch/hold", `{"holds":"u","ids":["{job}"]}`, skip, allow, allow, deny},
		{"POST /v1/batch/release", "/v1/batch/release", `{"holds":"u","ids":["{job}"]}`, skip, allow, allow, deny},
		{"POST /v1/batch/delete", "/v1/batch/delete", `{"ids":["{job}"]}`, skip, allow, allow, deny},
		{"POST /v1/jobs/{id}/alter", job + "/alter", `{"name":"renamed"}`, deny, allow, allow, deny},
		{"POST /v1/jobs/{id}/signal", job + "/signal", `{"signal":"SIGTERM"}`, deny, allow, allow, deny},
		{"POST /v1/jobs/{id}/move", job + "/move", `{"queue":"workq"}`, deny, allow, allow, deny},
		{"POST /v1/jobs/{id}/rerun", job + "/rerun", `{}`, deny, allow, allow, deny},
		{"POST /v1/jobs/{id}/run", job + "/run", `{}`, deny, allow, allow, deny},
		{"POST /v1/nodes/mark", "/v1/nodes/mark", `{"nodes":[],"comment":"x"}`, deny, allow, allow, deny},
		{"POST /v1/jobs/{id}/order", job + "/order", `{"other":"{job2}"}`, deny, allow, allow, deny},
		{"POST /v1/manage", "/v1/manage", `{"verb":"set","object":"server","attrs":[{"name":"max_array_size","op":"=","value":"500"}]}`, deny, deny, allow, deny},
		{"GET /v1/manage", "/v1/manage?object=server", "", allow, allow, allow, deny},
		{"GET /v1/server", "/v1/server", "", allow, allow, allow, deny},
		// pbsfs: anyone reads the tree; only managers change usage.
		{"GET /v1/fairshare", "/v1/fairshare", "", allow, allow, allow, deny},
		{"POST /v1/fairshare", "/v1/fairshare", `{"op":"set","entity":"matrix","usage":5}`, deny, deny, allow, deny},
		{"GET /v1/provision", "/v1/provision", "", allow, allow, allow, deny},
		{"POST /v1/resvs", "/v1/resvs", `{"token":"{token}","start":{start},"end":{end},"resources":{"select":"1:ncpus=1"}}`, allow, allow, allow, deny},
		{"GET /v1/resvs", "/v1/resvs", "", allow, allow, allow, deny},
		{"POST /v1/resvs/{id}/delete", "/v1/resvs/{resv}/delete", `{}`, deny, allow, allow, deny},
		{"POST /v1/resvs/{id}/alter", "/v1/resvs/{resv}/alter", `{"name":"renamed"}`, deny, allow, allow, deny},
		// strata operator: managers only (the bodies are refused as
		// invalid after the check, so nothing changes).
		{"GET /v1/operator/raft/peers", "/v1/operator/raft/peers", "", deny, deny, allow, deny},
		{"POST /v1/operator/raft/peers", "/v1/operator/raft/peers", `{"id":"","address":""}`, deny, deny, allow, deny},
		{"POST /v1/operator/raft/peers/remove", "/v1/operator/raft/peers/remove", `{"id":"nosuch"}`, deny, deny, allow, deny},
		{"POST /v1/operator/raft/transfer", "/v1/operator/raft/transfer", `{"id":"nosuch"}`, deny, deny, allow, deny},
		// Only a server certificate may announce (TestAnnounceOnlyFromServers).
		{"POST /v1/operator/raft/announce", "/v1/operator/raft/announce", `{"id":"x","level":1}`, deny, deny, deny, deny},
		{"GET /v1/operator/snapshot", "/v1/operator/snapshot", "", deny, deny, allow, deny},
		{"POST /v1/operator/snapshot", "/v1/operator/snapshot", `{"data":""}`, deny, deny, allow, deny},
		// strata web login: any user, for themself (web_glue.go; the
		// test server has no page, so users get "not supported").
		{"POST /v1/web/login", "/v1/web/login", `{}`, allow, allow, allow, deny},
		// The leader's applied index (reads on followers): not secret.
		{"GET /v1/raft/index", "/v1/raft/index", "", allow, allow, allow, deny},
		// Agent routes: no local user may use them; the agent may.
		{"POST /v1/agent/register", "/v1/agent/register", `{"host":"matrixhost","vnodes":[]}`, deny, deny, deny, allow},
		{"POST /v1/agent/heartbeat", "/v1/agent/heartbeat", `{"host":"matrixhost"}`, deny, deny, deny, allow},
		{"GET /v1/agent/work", "/v1/agent/work?host=matrixhost&wait=1ms", "", deny, deny, deny, allow},
		{"POST /v1/agent/events", "/v1/agent/events", `{"host":"matrixhost","events":[]}`, deny, deny, deny, allow},
		{"GET /v1/agent/hooks", "/v1/agent/hooks", "", deny, deny, deny, allow},
		{"POST /v1/agent/hookaction", "/v1/agent/hookaction", `{"host":"matrixhost"}`, deny, deny, deny, allow},
		{"POST /v1/agent/provision", "/v1/agent/provision", `{"host":"matrixhost"}`, deny, deny, deny, allow},
		// An agent is the host its certificate names, and no other.
		{"POST /v1/agent/register", "/v1/agent/register", `{"host":"otherhost","vnodes":[{"name":"otherhost"}]}`, deny, deny, deny, deny},
		{"POST /v1/agent/heartbeat", "/v1/agent/heartbeat", `{"host":"otherhost"}`, deny, deny, deny, deny},
		{"GET /v1/agent/work", "/v1/agent/work?host=otherhost&wait=1ms", "", deny, deny, deny, deny},
		{"POST /v1/agent/events", "/v1/agent/events", `{"host":"otherhost","events":[]}`, deny, deny, deny, deny},
		// The simulator's multiplexed routes refuse every user and a real
		// agent, even for its own host (server/api/sim_test.go attacks
		// them with a simulator certificate).
		{"POST /v1/agent/sim/heartbeat", "/v1/agent/sim/heartbeat", `{"hosts":[{"host":"matrixhost"}]}`, deny, deny, deny, deny},
		{"POST /v1/agent/sim/work", "/v1/agent/sim/work", `{"hosts":{"matrixhost":0},"wait":"1ms"}`, deny, deny, deny, deny},
		{"POST /v1/agent/sim/events", "/v1/agent/sim/events", `{"batches":[{"host":"matrixhost","events":[]}]}`, deny, deny, deny, deny},
	}
}

// registeredRoutes lists the patterns the server registers, read from its
// source: every mux.Handle call of the package.
func registeredRoutes(t *testing.T) []string {
	files, _ := filepath.Glob("*.go")
	re := regexp.MustCompile(`mux\.Handle\("(GET|POST|PUT|DELETE|PATCH) "\+(?:v|api\.Version)\+"([^"]+)"`)
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[1]+" "+api.Version+m[2])
		}
		if n := strings.Count(string(b), "mux.Handle("); n != len(re.FindAllString(string(b), -1)) {
			t.Fatalf("%s: a mux.Handle call this test cannot read; extend registeredRoutes", f)
		}
	}
	sort.Strings(out)
	return out
}

func TestAuthorizationMatrixCoversEveryRoute(t *testing.T) {
	rows := map[string]bool{}
	for _, r := range matrixRows() {
		rows[r.pattern] = true
	}
	routes := registeredRoutes(t)
	if len(routes) < 20 {
		t.Fatalf("found only %d routes in the source: %v", len(routes), routes)
	}
	for _, p := range routes {
		if !rows[p] {
			t.Errorf("route %q has no row in the authorization matrix", p)
		}
		delete(rows, p)
	}
	for p := range rows {
		t.Errorf("matrix row %q names no registered route", p)
	}
}

// stateDigest is everything a client can read about the state: jobs with
// history, vnodes, the configuration and the reservations.
func stateDigest(t *testing.T, c *api.Client) string {
	t.Helper()
	ctx := context.Background()
	h := sha256.New()
	jobs, err := c.Jobs(ctx, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := c.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var cfg, resvs json.RawMessage
	if err := c.Do(ctx, http.MethodGet, "/manage", url.Values{"object": {"server"}}, nil, &cfg); err != nil {
		t.Fatal(err)
	}
	if err := c.Do(ctx, http.MethodGet, "/resvs", nil, nil, &resvs); err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{jobs.Jobs, nodes.Vnodes, cfg, resvs} {
		b, _ := json.Marshal(v)
		h.Write(b)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func TestAuthorizationMatrix(t *testing.T) {
	ts := startTestServer(t, func(cfg *Config) {
		cfg.Managers, cfg.Operators = []string{"bin"}, []string{"daemon"}
		cfg.NodeDownAfter = Duration{time.Hour}
	})
	ctx := context.Background()
	// Nothing may change behind the test's back: no scheduling cycles.
	if err := ts.root.Manage(ctx, &model.ManagerRequest{Verb: manager.Set, Object: manager.Server,
		Attrs: []model.ManagerAttr{{Name: "scheduling", Op: "=", Value: "false"}}}); err != nil {
		t.Fatal(err)
	}
	n := 0
	token := func() string { n++; return fmt.Sprintf("matrix-%d", n) }
	newJob := func() string {
		id, err := ts.root.Submit(ctx, &api.SubmitRequest{Token: token(), Name: "target", Hold: "u", Argv: []string{"/bin/true"}, Workdir: "/tmp"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	start := time.Now().Unix() + 3600
	newResv := func() string {
		id, err := ts.root.SubmitResv(ctx, &api.ResvSubmitRequest{Token: token(), Start: start, End: start + 3600,
			Resources: map[string]string{"select": "1:ncpus=1"}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	callers := []struct {
		name string
		uid  uint32
		want func(matrixRow) outcome
	}{
		{"user", uidUser, func(r matrixRow) outcome { return r.user }},
		{"operator", uidOper, func(r matrixRow) outcome { return r.oper }},
		{"manager", uidMgr, func(r matrixRow) outcome { return r.mgr }},
	}
	helpers := map[uint32]*asUser{}
	for _, c := range callers {
		helpers[c.uid] = ts.asUser(c.uid)
	}
	// Over TCP: a TLS client of the cluster CA without a certificate, and
	// the agent of matrixhost with its own.
	anon, agent := ts.tcpClients(t, "matrixhost")
	base := "https://" + ts.cfg.APIAddr
	for _, row := range matrixRows() {
		for _, who := range append(callers, struct {
			name string
			uid  uint32
			want func(matrixRow) outcome
		}{"anonymous-tcp", 0, func(matrixRow) outcome { return deny }}, struct {
			name string
			uid  uint32
			want func(matrixRow) outcome
		}{"agent", 0, func(r matrixRow) outcome { return r.agent }}) {
			want := who.want(row)
			if want == skip {
				continue
			}
			fill := strings.NewReplacer("{job}", newJob(), "{job2}", newJob(), "{token}", token(),
				"{start}", fmt.Sprint(start), "{end}", fmt.Sprint(start+3600))
			if strings.Contains(row.path, "{resv}") {
				fill = strings.NewReplacer("{resv}", newResv())
			}
			method, _, _ := strings.Cut(row.pattern, " ")
			req := rawReq{Method: method, Path: fill.Replace(row.path), Body: fill.Replace(row.body)}
			before := stateDigest(t, ts.root)
			var got rawResp
			switch who.name {
			case "anonymous-tcp":
				got = sendRaw(anon, base, req, "")
			case "agent":
				got = sendRaw(agent, base, req, "")
			default:
				got = helpers[who.uid].do(t, req)
			}
			label := fmt.Sprintf("%s as %s", row.pattern, who.name)
			switch want {
			case deny:
				if got.Status != http.StatusForbidden || got.Code != model.PBSEPerm || !strings.HasPrefix(got.Msg, "Unauthorized Request") {
					t.Errorf("%s: got %+v, want 403 Unauthorized Request (15007)", label, got)
				}
				if after := stateDigest(t, ts.root); after != before {
					t.Errorf("%s: refused, but the state changed", label)
				}
			case allow:
				if got.Status == http.StatusForbidden || got.Status < 0 || got.Code == model.PBSEPerm {
					t.Errorf("%s: got %+v, want it allowed", label, got)
				}
			}
		}
	}
}
