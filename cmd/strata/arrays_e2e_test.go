//go:build e2e

package main

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/model"
)

// arrayScript records when it started and ended (on the job's host clock)
// and what the agent told it.
const arrayScript = `#!/bin/sh
echo start $(date +%s.%N)
echo index=$PBS_ARRAY_INDEX id=$PBS_ARRAY_ID jobid=$PBS_JOBID
sleep 1
echo end $(date +%s.%N)
`

// qstatRows parses the default qstat table into id -> state.
func qstatRows(out string) map[string]string {
	rows := map[string]string{}
	lines := strings.Split(out, "\n")
	for _, l := range lines[min(2, len(lines)):] {
		f := strings.Fields(l)
		if len(f) >= 6 {
			rows[f[0]] = f[4]
		}
	}
	return rows
}

func TestArrays(t *testing.T) {
	c := startCluster(t, 1, 4)
	id := c.submit(arrayScript, "-N", "arr", "-J", "1-5%2")
	seq := model.SeqOf(id)
	if id != seq+"[].e2e" {
		t.Fatalf("qsub -J printed %q, want %s[].e2e", id, seq)
	}

	// Never more than two subjobs at once (%2), although 4 cpus are free;
	// meanwhile the table shows the parent only, -t its subjobs too, -J
	// only the parent.
	maxRunning := 0
	sawBegun := false
	waitFor(t, 90*time.Second, "the array to finish", func() bool {
		rows := qstatRows(c.run("qstat", "-x", "-t").stdout)
		running := 0
		for rid, st := range rows {
			if rid != id && st == "R" {
				running++
			}
		}
		maxRunning = max(maxRunning, running)
		sawBegun = sawBegun || rows[id] == "B"
		return rows[id] == "F"
	})
	if maxRunning > 2 {
		t.Errorf("saw %d subjobs running at once with %%2", maxRunning)
	}
	if !sawBegun {
		t.Errorf("the parent was never shown in state B")
	}

	// Every subjob ran once, wrote <name>.o<seq>.<index> and saw its index.
	type span struct{ start, end float64 }
	var spans []span
	for i := 1; i <= 5; i++ {
		path := filepath.Join(c.work, "arr.o"+seq+"."+strconv.Itoa(i))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("subjob %d output: %v", i, err)
		}
		out := string(b)
		want := "index=" + strconv.Itoa(i) + " id=" + id + " jobid=" + seq + "[" + strconv.Itoa(i) + "].e2e"
		if !strings.Contains(out, want) {
			t.Errorf("subjob %d output %q lacks %q", i, out, want)
		}
		var sp span
		for _, l := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(l, "start "); ok {
				sp.start, _ = strconv.ParseFloat(v, 64)
			}
			if v, ok := strings.CutPrefix(l, "end "); ok {
				sp.end, _ = strconv.ParseFloat(v, 64)
			}
		}
		spans = append(spans, sp)
	}
	// The scripts' own intervals lie inside the server's run intervals, so
	// their overlap bounds the concurrency from below.
	sort.Slice(spans, func(a, b int) bool { return spans[a].start < spans[b].start })
	for i := range spans {
		n := 0
		for _, o := range spans {
			if o.start <= spans[i].start && spans[i].start < o.end {
				n++
			}
		}
		if n > 2 {
			t.Errorf("%d subjob scripts overlapped at %f", n, spans[i].start)
		}
	}

	// qstat -t layout: the parent then its subjobs by index, each a full
	// row; -J -t only the subjobs.
	out := c.must("qstat", "-x", "-t", id)
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2+6 {
		t.Fatalf("qstat -x -t %s printed %d lines:\n%s", id, len(lines), out)
	}
	wantIDs := []string{id}
	for i := 1; i <= 5; i++ {
		wantIDs = append(wantIDs, seq+"["+strconv.Itoa(i)+"].e2e")
	}
	for k, l := range lines[2:] {
		f := strings.Fields(l)
		wantState := "X"
		if k == 0 {
			wantState = "F"
		}
		if len(l) != len(lines[0]) && len(l) < 70 || f[0] != wantIDs[k] || f[1] != "arr" || f[4] != wantState {
			t.Errorf("row %d = %q, want %s arr ... %s", k, l, wantIDs[k], wantState)
		}
	}
	if rows := qstatRows(c.must("qstat", "-x", "-J", "-t")); len(rows) != 5 || rows[id] != "" {
		t.Errorf("qstat -J -t shows %v, want the 5 subjobs only", rows)
	}
	j := c.job(id)
	if j["array_indices_submitted"] != "1-5" || j["array_indices_remaining"] != "-" || j["Exit_status"] != float64(0) {
		t.Errorf("parent: submitted=%v remaining=%v exit=%v", j["array_indices_submitted"], j["array_indices_remaining"], j["Exit_status"])
	}
}

func TestArrayDeleteRange(t *testing.T) {
	c := startCluster(t, 1, 2)
	// One subjob at a time: indices 2-5 stay queued while 1 runs.
	id := c.submit("#!/bin/sh\nsleep 30\n", "-J", "1-6%1")
	seq := model.SeqOf(id)
	first := seq + "[1].e2e"
	waitFor(t, 30*time.Second, "subjob 1 to run", func() bool {
		return qstatRows(c.run("qstat", "-t", id).stdout)[first] == "R"
	})
	// A range covering the running subjob and queued ones, by short id.
	c.must("qdel", seq+"[1-3]")
	waitFor(t, 30*time.Second, "subjob 1 to be killed", func() bool {
		return qstatRows(c.run("qstat", "-t", id).stdout)[first] == "X"
	})
	j := c.job(id)
	if rem := j["array_indices_remaining"]; rem != "5-6" && rem != "4-6" {
		t.Errorf("remaining after qdel %s[1-3] = %v", seq, rem)
	}
	if r := c.run("qdel", seq+"[2]"); r.code != 35 {
		t.Errorf("qdel of a deleted subjob: exit %d %s", r.code, r.stderr)
	}
	if r := c.run("qhold", seq+"[4]"); r.code == 0 {
		t.Errorf("qhold accepted a subjob")
	}
	// The whole array: queued indices go at once, running subjobs die.
	c.must("qdel", seq+"[]")
	c.waitState(id, 30*time.Second, "F")
	if r := c.run("qstat", id); r.code != 35 {
		t.Errorf("qstat of the deleted array: exit %d", r.code)
	}
}

// TestArrayAlterMaxRunSubjobs changes a queued array's concurrency limit
// with qalter -W max_run_subjobs=N (pbs-cli.md §6).
func TestArrayAlterMaxRunSubjobs(t *testing.T) {
	c := startCluster(t, 1, 4)
	id := c.submit("#!/bin/sh\nsleep 300\n", "-J", "1-6%1")
	running := func() int {
		n := 0
		for rid, st := range qstatRows(c.run("qstat", "-t").stdout) {
			if rid != id && st == "R" {
				n++
			}
		}
		return n
	}
	waitFor(t, 30*time.Second, "one subjob to run", func() bool { return running() == 1 })

	// Raising the limit lets more subjobs start at once (4 cpus: 3 fit).
	if r := c.run("qalter", "-W", "max_run_subjobs=3", id); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Fatalf("qalter -W max_run_subjobs=3: %+v", r)
	}
	waitFor(t, 30*time.Second, "three subjobs to run", func() bool { return running() == 3 })
	if out := c.must("qstat", "-f", id); !strings.Contains(out, "    max_run_subjobs = 3\n") {
		t.Errorf("qstat -f after qalter:\n%s", out)
	}
	// Lowering it stops nothing that runs; with the limit reached, nothing
	// more starts (checked by the scheduler's view: 3 still run after a
	// cycle that had a free cpu).
	c.must("qalter", "-W", "max_run_subjobs=2", id)
	if out := c.must("qstat", "-f", id); !strings.Contains(out, "    max_run_subjobs = 2\n") {
		t.Errorf("qstat -f after lowering:\n%s", out)
	}
	if n := running(); n != 3 {
		t.Errorf("lowering max_run_subjobs changed the running subjobs: %d run", n)
	}

	// Errors: a bad value, a job that is not an array, a subjob.
	plain := strings.TrimSpace(c.must("qsub", "-h", "--", "/bin/true"))
	for _, tc := range []struct {
		args   []string
		stderr string
		code   int
	}{
		{[]string{"-W", "max_run_subjobs=x", id}, "qalter: Illegal attribute or resource value max_run_subjobs " + id + "\n", 166},
		{[]string{"-W", "max_run_subjobs=2", plain}, "qalter: Illegal attribute or resource value max_run_subjobs " + plain + "\n", 166},
		{[]string{"-W", "max_run_subjobs=2", strings.Replace(id, "[]", "[1]", 1)}, "qalter: Invalid request (subjobs and ranges are not accepted; name the whole array " + id + ") " + strings.Replace(id, "[]", "[1]", 1) + "\n", 156},
	} {
		if r := c.run("qalter", tc.args...); r.code != tc.code || r.stderr != tc.stderr || r.stdout != "" {
			t.Errorf("qalter %v:\n got exit %d stderr %q\nwant exit %d stderr %q", tc.args, r.code, r.stderr, tc.code, tc.stderr)
		}
	}
	c.must("qdel", "-W", "force", id)
}
