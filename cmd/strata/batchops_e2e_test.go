//go:build e2e

package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestBatchedHoldRelease drives qrls, qhold and qdel with many ids (sent in
// batched requests, committed in one Raft entry each), mixed with unknown
// ids and, as nobody, with root's jobs: the messages, their order and the
// exit status are those of one request per id, and only nobody's jobs
// change.
func TestBatchedHoldRelease(t *testing.T) {
	c := startCluster(t, 1, 2)
	c.must("qmgr", "-c", "set server scheduling = false")
	qsubAs := func(nobodys bool) string {
		cred := nobody
		if !nobodys {
			cred = nil
		}
		r := c.runAs(cred, "", "qsub", "-h", "--", "/bin/true")
		if r.code != 0 {
			t.Fatalf("qsub: exit %d %s", r.code, r.stderr)
		}
		return strings.TrimSpace(r.stdout)
	}
	var mine, roots []string
	for i := 0; i < 20; i++ {
		mine = append(mine, qsubAs(true))
		roots = append(roots, qsubAs(false))
	}
	// The per-id path's message for one of root's jobs, the reference.
	one := c.runAs(nobody, "", "qrls", roots[0])
	if one.code == 0 || !strings.HasPrefix(one.stderr, "qrls: Unauthorized Request") {
		t.Fatalf("nobody's qrls of root's job: exit %d %q", one.code, one.stderr)
	}
	refusal := func(id string) string { return strings.Replace(one.stderr, roots[0], id, 1) }

	// nobody: every id interleaved, an unknown id in the middle and one at
	// the end (the last failure sets the exit status).
	var args []string
	var want strings.Builder
	for i := range mine {
		args = append(args, mine[i], roots[i])
		want.WriteString(refusal(roots[i]))
		if i == 9 {
			args = append(args, "999998")
			want.WriteString("qrls: Unknown Job Id 999998.e2e\n")
		}
	}
	args = append(args, "999999")
	want.WriteString("qrls: Unknown Job Id 999999.e2e\n")
	r := c.runAs(nobody, "", "qrls", args...)
	if r.code != 153 || r.stderr != want.String() {
		t.Fatalf("nobody's qrls of %d ids: exit %d\n%s\nwant exit 153\n%s", len(args), r.code, r.stderr, want.String())
	}
	states := func(ids []string) string {
		var b strings.Builder
		for _, id := range ids {
			b.WriteString(fmt.Sprint(c.job(id)["job_state"]))
		}
		return b.String()
	}
	if s := states(mine); s != strings.Repeat("Q", len(mine)) {
		t.Errorf("nobody's jobs after the batch: %s", s)
	}
	if s := states(roots); s != strings.Repeat("H", len(roots)) {
		t.Errorf("root's jobs after nobody's batch: %s, want all held", s)
	}

	// root: qhold every job back, then release them all; an unknown id
	// first does not stop the rest.
	all := append(append([]string{"999997"}, mine...), roots...)
	if r := c.run("qhold", all...); r.code != 153 || r.stderr != "qhold: Unknown Job Id 999997.e2e\n" {
		t.Fatalf("qhold of %d ids: exit %d %q", len(all), r.code, r.stderr)
	}
	if s := states(mine); s != strings.Repeat("H", len(mine)) {
		t.Errorf("after qhold: %s", s)
	}
	c.must("qrls", all[1:]...)
	if s := states(all[1:]); s != strings.Repeat("Q", len(all)-1) {
		t.Errorf("after root's qrls: %s", s)
	}

	// qdel: nobody deletes its own jobs among root's; then root the rest,
	// with an unknown id and one of nobody's (now finished) in between.
	one = c.runAs(nobody, "", "qdel", roots[0])
	if !strings.HasPrefix(one.stderr, "qdel: Unauthorized Request") {
		t.Fatalf("nobody's qdel of root's job: exit %d %q", one.code, one.stderr)
	}
	args = args[:0]
	want.Reset()
	for i := range mine {
		args = append(args, roots[i], mine[i])
		want.WriteString(strings.Replace(one.stderr, roots[0], roots[i], 1))
	}
	if r := c.runAs(nobody, "", "qdel", args...); r.code != one.code || r.stderr != want.String() {
		t.Fatalf("nobody's qdel of %d ids: exit %d\n%s\nwant exit %d\n%s", len(args), r.code, r.stderr, one.code, want.String())
	}
	if s := states(mine); s != strings.Repeat("F", len(mine)) {
		t.Errorf("nobody's jobs after its qdel: %s", s)
	}
	if s := states(roots); s != strings.Repeat("Q", len(roots)) {
		t.Errorf("root's jobs after nobody's qdel: %s", s)
	}
	hist := c.run("qdel", mine[0])
	if hist.code == 0 || hist.stderr == "" {
		t.Fatalf("qdel of a finished job: exit %d %q", hist.code, hist.stderr)
	}
	args = append(append([]string{}, roots[:10]...), "999996", mine[0])
	args = append(args, roots[10:]...)
	wantErr := "qdel: Unknown Job Id 999996.e2e\n" + hist.stderr
	if r := c.run("qdel", args...); r.code != hist.code || r.stderr != wantErr {
		t.Fatalf("root's qdel of %d ids: exit %d %q, want exit %d %q", len(args), r.code, r.stderr, hist.code, wantErr)
	}
	if s := states(roots); s != strings.Repeat("F", len(roots)) {
		t.Errorf("root's jobs after its qdel: %s", s)
	}
}
