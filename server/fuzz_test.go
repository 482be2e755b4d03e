package server

// Fuzz targets for what the server parses from requests: request bodies
// (every API request type), the submit path from JSON to the job the FSM
// would store, and dependency lists (standing reservation rules: model/rrule). They run
// without a server: decodeBody, buildJob, and parseDepend are
// pure functions of their input and the configuration.

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
	"github.com/strata-hpc/strata/model"
	"github.com/strata-hpc/strata/server/api"
)

// requestTypes are the bodies the server decodes, one per route.
func requestTypes() []func() any {
	return []func() any{
		func() any { return &api.SubmitRequest{} }, func() any { return &api.AlterRequest{} }, func() any { return &api.DeleteRequest{} },
		func() any { return &api.EventsRequest{} }, func() any { return &api.HeartbeatRequest{} }, func() any { return &api.HoldRequest{} },
		func() any { return &api.HookActionRequest{} }, func() any { return &api.MarkNodesRequest{} }, func() any { return &api.MoveRequest{} },
		func() any { return &api.OrderRequest{} }, func() any { return &api.ProvisionReport{} }, func() any { return &api.RegisterRequest{} },
		func() any { return &api.ResvSubmitRequest{} }, func() any { return &api.SignalRequest{} }, func() any { return &model.ManagerRequest{} },
		func() any { return &api.RerunRequest{} }, func() any { return &api.RunRequest{} },
	}
}

func fuzzRequest(body []byte) *http.Request {
	return httptest.NewRequest(http.MethodPost, "/v1/x", bytes.NewReader(body))
}

// FuzzDecodeBody checks request decoding for every request type (kind
// picks one; the order above is part of the corpus format): errors are
// PBS "Invalid request" errors, and what was decoded encodes and decodes
// to the same value.
func FuzzDecodeBody(f *testing.F) {
	seeds := []string{
		`{"token":"t","name":"job1","resources":{"select":"2:ncpus=1","walltime":"1:00:00"},"script":"#!/bin/sh\necho hi\n","env":[{"name":"PBS_O_HOME","value":"/home/a"}],"workdir":"/tmp"}`,
		`{"ids":["12.svr"],"force":true}`, `{"job_id":"12.svr","attrs":{"Job_Name":"x"}}`, `{}`, `[]`, `null`, `{"priority":1e400}`,
		`{"array_indices":"0-9223372036854775806:2"}`, `{"events":[{"job":"1.svr","type":"started"}]}`, `{"a":`, "\xff",
	}
	for i, s := range seeds {
		f.Add(byte(i), []byte(s))
	}
	types := requestTypes()
	f.Fuzz(func(t *testing.T, kind byte, body []byte) {
		mk := types[int(kind)%len(types)]
		v := mk()
		var err error
		fuzzcheck.Bounded(t, len(body), func() { err = decodeBody(fuzzRequest(body), v) })
		if err != nil {
			fuzzcheck.PBSError(t, err, model.PBSEInvalidRequest)
			return
		}
		once, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%T decoded from %q does not encode: %v", v, body, err)
		}
		v2 := mk()
		if err := decodeBody(fuzzRequest(once), v2); err != nil {
			t.Fatalf("%T: %q re-encoded as %q does not decode: %v", v, body, once, err)
		}
		twice, _ := json.Marshal(v2)
		if !bytes.Equal(once, twice) {
			t.Fatalf("%T: %q decodes and encodes as %q, then %q", v, body, once, twice)
		}
	})
}

// checkBuiltJob states what the FSM relies on in a job buildJob accepted.
func checkBuiltJob(t *testing.T, j *model.Job, cfg *model.ServerConfig, what any) {
	t.Helper()
	if len(j.Select) == 0 || j.Select.NodeCount() < 1 || j.Select.NodeCount() > model.MaxSelectChunks {
		t.Fatalf("%v: built select %q (node count %d)", what, j.Select, j.Select.NodeCount())
	}
	if _, err := model.ParseSelect(j.Select.String(), cfg.Defs); err != nil {
		t.Fatalf("%v: built select %q does not parse: %v", what, j.Select, err)
	}
	if j.Depend() != "" {
		norm, deps, err := parseDepend(j.Depend(), cfg.Name)
		if err != nil || norm != j.Depend() || !reflect.DeepEqual(deps, j.Deps()) {
			t.Fatalf("%v: depend %q reparses as %q %v, %v", what, j.Depend(), norm, deps, err)
		}
	}
	if j.Array != nil {
		limit := cfg.MaxArraySize
		if limit <= 0 {
			limit = model.DefaultMaxArraySize
		}
		if n := j.Array.Size(); n < 1 || n > limit {
			t.Fatalf("%v: array %s of %d subjobs accepted (max_array_size %d)", what, j.Array.Submitted(), n, limit)
		}
	}
	for _, name := range []string{"walltime", "mem", "ncpus"} {
		if v, ok := j.ResourceList[name]; ok {
			if _, err := cfg.Defs[name].Normalize(v); err != nil {
				t.Fatalf("%v: Resource_List.%s = %q is not canonical: %v", what, name, v, err)
			}
		}
	}
}

// FuzzSubmitJSON drives the submit path from the request body to the job
// the FSM would store: decodeBody then buildJob, as handleSubmit does.
func FuzzSubmitJSON(f *testing.F) {
	for _, s := range []string{
		`{"name":"job1","resources":{"select":"2:ncpus=1:mem=1gb","place":"scatter","walltime":"1:00:00"},"script":"echo hi","workdir":"/tmp"}`,
		`{"argv":["/bin/true"],"resources":{"ncpus":"4","mem":"8GB"},"depend":"afterok:1:2.other,before:3","hold":"u"}`,
		`{"script":"x","array_indices":"1-100:3%2","rerunable":true}`, `{"script":"x","array_indices":"1-20000"}`,
		`{"script":"x","priority":2000}`, `{"script":"x","queue":"nope"}`, `{"script":"x","name":"bad name"}`,
		`{"script":"x","resources":{"select":"1:ncpus=1","ncpus":"2"}}`, `{"script":"x","execution_time":-1}`, `{"script":"x","join":"oe","keep":"oed"}`,
	} {
		f.Add([]byte(s))
	}
	cfg := testServerConfig()
	f.Fuzz(func(t *testing.T, body []byte) {
		var req api.SubmitRequest
		if err := decodeBody(fuzzRequest(body), &req); err != nil {
			return
		}
		var j *model.Job
		var err error
		fuzzcheck.Bounded(t, len(body), func() { j, err = buildJob(&req, alice, cfg) })
		if err != nil {
			fuzzcheck.PBSError(t, err)
			return
		}
		checkBuiltJob(t, j, cfg, string(body))
	})
}

// FuzzSubmitFields mutates the string fields of a submission directly,
// which finds more than mutating JSON: select, place, walltime, mem,
// depend and -J.
func FuzzSubmitFields(f *testing.F) {
	f.Add("2:ncpus=1:mem=1gb", "scatter:excl", "01:00:00", "", "afterok:1.svr:2", "1-10:2%3")
	f.Add("", "", "", "8GB", "", "")
	f.Add("1:ncpus=0", "pack", "99999999999999999999", "1pb", "on:2,before:3", "0-9223372036854775806:2")
	f.Add("3:host=n1:mem=1tb", "group=switch", "1:30", "9223372036854775807b", "after:1[]", "1-2")
	cfg := testServerConfig()
	f.Fuzz(func(t *testing.T, sel, place, walltime, mem, depend, array string) {
		res := map[string]string{}
		for k, v := range map[string]string{"select": sel, "place": place, "walltime": walltime, "mem": mem} {
			if v != "" {
				res[k] = v
			}
		}
		if sel == "" {
			delete(res, "place")
		}
		req := api.SubmitRequest{Script: "true", Resources: res, Depend: depend, ArrayIndices: array}
		var j *model.Job
		var err error
		n := len(sel) + len(place) + len(walltime) + len(mem) + len(depend) + len(array)
		fuzzcheck.Bounded(t, n, func() { j, err = buildJob(&req, alice, cfg) })
		if err != nil {
			fuzzcheck.PBSError(t, err)
			return
		}
		checkBuiltJob(t, j, cfg, []string{sel, place, walltime, mem, depend, array})
	})
}

// FuzzParseDepend checks qsub -W depend: errors are PBSE_BADDEPEND and the
// normalized text parses to itself with the same dependencies.
func FuzzParseDepend(f *testing.F) {
	for _, s := range []string{"afterok:1", "afterok:12.svr:13,afterany:14", "before:3[].svr", "on:2", "after:R1", "afterok:", "bogus:1", "afterok:1@other", "afterok:1.a.b:2[3]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		norm, deps, err := parseDepend(spec, "svr")
		if err != nil {
			fuzzcheck.PBSError(t, err, model.PBSEBadDepend)
			return
		}
		norm2, deps2, err := parseDepend(norm, "svr")
		if err != nil || norm2 != norm || !reflect.DeepEqual(deps2, deps) {
			t.Fatalf("parseDepend(%q) = %q %v; that parses as %q %v, %v", spec, norm, deps, norm2, deps2, err)
		}
		for _, d := range deps {
			if !depTypes[d.Type] || !strings.Contains(d.Job, ".") {
				t.Fatalf("parseDepend(%q): dependency %+v", spec, d)
			}
		}
	})
}

var fuzzZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu"}

// FuzzConvertNodes checks the old "-l nodes=" form: what it converts to is
// a place that parses and a select that is well formed (it may still be
// refused for what it asks: a duplicated property, too many chunks).
func FuzzConvertNodes(f *testing.F) {
	for _, s := range []string{"2:ppn=4", "node1:ppn=2+node2", "1:ppn=8:bigmem#excl", "3#shared", "0:ppn=1", ":ppn=2", "1:ppn=x", "1#bogus", "1:a=b", "99999999999:ppn=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		sel, place, err := convertNodes(spec)
		if err != nil {
			fuzzcheck.PBSError(t, err, model.PBSEBadAttrVal)
			return
		}
		if _, err := model.ParsePlace(place); err != nil {
			t.Fatalf("convertNodes(%q): place %q: %v", spec, place, err)
		}
		// Only a syntax error is a conversion bug; a duplicated property or
		// a bound (mpiprocs, chunk count) is the user's request refused.
		syntax := model.Errorf(model.PBSEBadAttrVal, " Resource_List.select").Msg
		if err := model.CheckSelectSyntax(sel); err != nil && (err.Error() == syntax || strings.HasPrefix(err.Error(), "illegal select chunk")) {
			total := 0
			for _, c := range strings.Split(sel, "+") {
				n, _, _ := strings.Cut(c, ":")
				k, err := strconv.Atoi(n)
				if err != nil || k > model.MaxSelectChunks-total {
					return // more chunks than MaxSelectChunks, refused when the select is parsed
				}
				total += k
			}
			t.Fatalf("convertNodes(%q): select %q: %v", spec, sel, err)
		}
	})
}

// FuzzResvSubmit checks pbs_rsub requests as the server builds the
// reservation: PBS errors, and an accepted reservation whose times agree
// (end = start + duration, in the future) and whose occurrences do not
// overlap.
func FuzzResvSubmit(f *testing.F) {
	now := time.Date(2026, 11, 26, 16, 0, 0, 0, time.UTC).Unix()
	f.Add(now+3600, int64(0), int64(1800), "", "", byte(0))
	f.Add(now+3600, now+7200, int64(0), "2:ncpus=1", "FREQ=DAILY;COUNT=5", byte(1))
	f.Add(int64(0), now+7200, int64(3600), "", "FREQ=WEEKLY;BYDAY=MO,FR;UNTIL=20270101", byte(2))
	f.Add(int64(9223372036854775000), int64(0), int64(9223372036854775000), "", "", byte(0))
	f.Add(now+60, now+30, int64(0), "1:ncpus=1:aoe=rhel9", "", byte(0))
	cfg := testServerConfig()
	f.Fuzz(func(t *testing.T, start, end, dur int64, sel, rrule string, zone byte) {
		req := &api.ResvSubmitRequest{Start: start, End: end, Duration: dur, RRule: rrule, TZ: fuzzZones[int(zone)%len(fuzzZones)], Resources: map[string]string{}}
		if sel != "" {
			req.Resources["select"] = sel
		}
		var r *model.Reservation
		var err error
		fuzzcheck.Bounded(t, len(sel)+len(rrule), func() { r, err = buildResv(req, alice, cfg, now) })
		if err != nil {
			fuzzcheck.PBSError(t, err)
			return
		}
		if r.Duration <= 0 || r.End != r.Start+r.Duration || r.Start < now {
			t.Fatalf("%+v: reservation %d-%d (%d s)", req, r.Start, r.End, r.Duration)
		}
		for i := 1; i < len(r.Occurrences); i++ {
			if r.Occurrences[i] < r.Occurrences[i-1]+r.Duration {
				t.Fatalf("%+v: occurrences %d and %d overlap", req, r.Occurrences[i-1], r.Occurrences[i])
			}
		}
	})
}
