package hooks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
)

// FuzzParseReply checks the parsing of a hook's stdout (64 KiB at most, the
// runner's bound): exactly one reply object or nothing, and an accepted
// reply encodes and parses back to itself.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{
		"", "  \n", `{"accept": false, "reject_message": "no jobs at night"}`, `{"job": {"Resource_List.walltime": "01:00:00", "Job_Name": "x"}}`,
		`{"accept": true}`, `{"accept": true} {"accept": false}`, `null`, `[]`, `{"accept": "yes"}`, `{"unknown": 1}`, `{"job": {"a": 1}}`,
		"{\"reject_message\": \"\\u0000\\n\"}", `{"accept":true,"accept":false}`, "not json",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		if len(out) > MaxOutput {
			return // the runner rejects longer output before parsing
		}
		var rep *Reply
		var err error
		fuzzcheck.Bounded(t, len(out), func() { rep, err = ParseReply(out) })
		if err != nil {
			return
		}
		if rep == nil {
			if strings.TrimSpace(out) != "" {
				t.Fatalf("ParseReply(%q): no reply and no error", out)
			}
			return
		}
		enc, err := json.Marshal(rep)
		if err != nil {
			t.Fatalf("ParseReply(%q) = %+v does not encode: %v", out, rep, err)
		}
		back, err := ParseReply(string(enc))
		if err != nil || !reflect.DeepEqual(back, rep) && !(len(back.Job) == 0 && len(rep.Job) == 0 && reflect.DeepEqual(back.Accept, rep.Accept) && back.RejectMessage == rep.RejectMessage) {
			t.Fatalf("ParseReply(%q) = %+v; encoded as %s it parses as %+v, %v", out, rep, enc, back, err)
		}
	})
}
