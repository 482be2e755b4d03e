package server

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// The attack: nobody submits two held jobs and releases them in one batch
// together with root's held jobs and an unknown id, then deletes the same
// ids in one batch. Only nobody's jobs change; root's get "Unauthorized
// Request", the unknown one "Unknown Job Id", each in its place.
func TestBatchReleaseOnlyTheCallersJobs(t *testing.T) {
	ts := startTestServer(t, nil)
	ctx := context.Background()
	var rootJobs []string
	for i := 0; i < 3; i++ {
		id, err := ts.root.Submit(ctx, &api.SubmitRequest{Token: fmt.Sprintf("root-%d", i), Hold: "u", Argv: []string{"/bin/true"}, Workdir: "/tmp"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		rootJobs = append(rootJobs, id)
	}
	out, err := ts.helperCmd(65534, "batchrelease", "STRATA_BATCH_OTHERS="+strings.Join(rootJobs, ",")).Output()
	if err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
	var got batchHelperOut
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("helper answered %q", out)
	}
	// ids sent: own[0], root[0], unknown, own[1], root[1], root[2].
	want := []int{0, model.PBSEPerm, model.PBSEUnknownJobID, 0, model.PBSEPerm, model.PBSEPerm}
	if len(got.Codes) != len(want) {
		t.Fatalf("results %v, want %v", got.Codes, want)
	}
	for i := range want {
		if got.Codes[i] != want[i] || got.DelCodes[i] != want[i] {
			t.Fatalf("result %d: qrls code %d (%s), qdel code %d, want %d", i, got.Codes[i], got.Msgs[i], got.DelCodes[i], want[i])
		}
	}
	if !strings.HasPrefix(got.Msgs[1], "Unauthorized Request") {
		t.Fatalf("refusal message %q", got.Msgs[1])
	}
	resp, err := ts.root.Jobs(ctx, append(append([]string{}, rootJobs...), got.Own...), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Jobs) != len(rootJobs)+len(got.Own) {
		t.Fatalf("%d jobs listed, want %d", len(resp.Jobs), len(rootJobs)+len(got.Own))
	}
	held := 0
	for _, j := range resp.Jobs {
		if j.ID == got.Own[0] || j.ID == got.Own[1] {
			if j.State != "F" {
				t.Errorf("nobody's job %s in state %s after the batched qdel", j.ID, j.State)
			}
		} else if j.State == "H" {
			held++
		}
	}
	if held != len(rootJobs) {
		t.Errorf("%d of root's %d jobs still held after nobody's batches", held, len(rootJobs))
	}

	// A request above the bound is refused whole.
	many := make([]string, api.MaxBatchIDs+1)
	for i := range many {
		many[i] = rootJobs[0]
	}
	err = ts.root.Do(ctx, "POST", "/batch/release", nil, api.BatchHoldRequest{Holds: "u", IDs: many}, nil)
	if pe, ok := model.AsPBSError(err); !ok || pe.Code != model.PBSEInvalidRequest {
		t.Fatalf("%d ids in one request: %v", len(many), err)
	}
	// So is one above the byte bound, whatever its ids.
	big := []string{strings.Repeat("9", 300<<10)}
	err = ts.root.Do(ctx, "POST", "/batch/delete", nil, api.BatchDeleteRequest{IDs: big}, nil)
	if pe, ok := model.AsPBSError(err); !ok || pe.Code != model.PBSEInvalidRequest {
		t.Fatalf("a 300 KiB request: %v", err)
	}
}

type batchHelperOut struct {
	Own   []string `json:"own"`
	Codes []int    `json:"codes"`
	Msgs  []string `json:"msgs"`
	// DelCodes are the results of the batched qdel of the same ids.
	DelCodes []int `json:"del_codes"`
}

// batchReleaseHelper runs as nobody: it submits two held jobs and releases
// them in one batch mixed with other users' jobs (STRATA_BATCH_OTHERS).
func batchReleaseHelper(socket string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c := api.NewUnixClient(socket, "t")
	var out batchHelperOut
	for i := 0; i < 2; i++ {
		id, err := c.Submit(ctx, &api.SubmitRequest{Token: fmt.Sprintf("nobody-%d", i), Hold: "u", Argv: []string{"/bin/true"}, Workdir: "/tmp"}, 0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "submit:", err)
			os.Exit(1)
		}
		out.Own = append(out.Own, id)
	}
	others := strings.Split(os.Getenv("STRATA_BATCH_OTHERS"), ",")
	ids := []string{out.Own[0], others[0], "999999.nosuch", out.Own[1], others[1], others[2]}
	errs, err := c.ReleaseMany(ctx, ids, "u")
	if err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
	for _, e := range errs {
		code, msg := 0, ""
		if pe, ok := model.AsPBSError(e); ok {
			code, msg = pe.Code, pe.Msg
		}
		out.Codes = append(out.Codes, code)
		out.Msgs = append(out.Msgs, msg)
	}
	if errs, err = c.DeleteMany(ctx, ids, api.DeleteRequest{}); err != nil {
		fmt.Fprintln(os.Stderr, "delete:", err)
		os.Exit(1)
	}
	for _, e := range errs {
		code := 0
		if pe, ok := model.AsPBSError(e); ok {
			code = pe.Code
		}
		out.DelCodes = append(out.DelCodes, code)
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}
