package rrule

import (
	"testing"
	"time"
)

func TestExpand(t *testing.T) {
	loc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	// Friday 2026-03-06 09:00 local; DST starts on Sunday 2026-03-08.
	start := time.Date(2026, 3, 6, 9, 0, 0, 0, loc).Unix()
	fmtAll := func(occ []int64) []string {
		var out []string
		for _, u := range occ {
			out = append(out, time.Unix(u, 0).In(loc).Format("Mon 01-02 15:04"))
		}
		return out
	}
	cases := []struct {
		rule string
		want []string
	}{
		{"FREQ=DAILY;COUNT=3", []string{"Fri 03-06 09:00", "Sat 03-07 09:00", "Sun 03-08 09:00"}},
		{"FREQ=WEEKLY;BYDAY=MO,FR;COUNT=3", []string{"Fri 03-06 09:00", "Mon 03-09 09:00", "Fri 03-13 09:00"}},
		{"FREQ=DAILY;BYHOUR=9,15;COUNT=3", []string{"Fri 03-06 09:00", "Fri 03-06 15:00", "Sat 03-07 09:00"}},
		{"FREQ=HOURLY;INTERVAL=2;COUNT=2", []string{"Fri 03-06 09:00", "Fri 03-06 11:00"}},
		{"FREQ=DAILY;UNTIL=20260307", []string{"Fri 03-06 09:00", "Sat 03-07 09:00"}},
	}
	for _, c := range cases {
		occ, err := Expand(c.rule, "America/New_York", start)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if got := fmtAll(occ); len(got) != len(c.want) || (len(got) > 0 && got[len(got)-1] != c.want[len(c.want)-1]) || got[1] != c.want[1] {
			t.Errorf("%s: got %v want %v", c.rule, got, c.want)
		}
	}
	for _, bad := range []string{"FREQ=MONTHLY;COUNT=2", "FREQ=DAILY", "FREQ=DAILY;COUNT=x", "FREQ=DAILY;BYDAY=XX;COUNT=2"} {
		if _, err := Expand(bad, "America/New_York", start); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, err := Expand("FREQ=DAILY;COUNT=2", "Nowhere/Land", start); err == nil {
		t.Errorf("unknown zone accepted")
	}
}

// TestExpandHugeInterval performs what FuzzExpand found: an
// INTERVAL whose multiples overflow made the anchors of every later period
// jump to times before the last occurrence, so the loop examined all its
// 100,000 periods x 168 BYDAY/BYHOUR candidates: a 156-byte rule cost the
// server seconds of CPU per pbs_rsub. Now the expansion stops at the
// horizon. The bound below is 20 times what the fixed code needs on a
// loaded machine and a fraction of what the old loop took on any.
func TestExpandHugeInterval(t *testing.T) {
	hours := "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23"
	rule := "FREQ=WEEKLY;INTERVAL=4611686018427387903;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=" + hours + ";COUNT=1000"
	start := time.Date(2026, 3, 6, 9, 0, 0, 0, time.UTC).Unix()
	began := time.Now()
	occ, err := Expand(rule, "UTC", start)
	took := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	if took > 300*time.Millisecond {
		t.Fatalf("expanding %q took %v", rule, took)
	}
	if len(occ) != 63 || occ[62] != time.Date(2026, 3, 8, 23, 0, 0, 0, time.UTC).Unix() {
		t.Fatalf("%d occurrences, want the 63 hours left in the first week", len(occ))
	}
}
