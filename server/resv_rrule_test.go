package server

import (
	"testing"
	"time"
)

func TestExpandRRule(t *testing.T) {
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
		occ, err := expandRRule(c.rule, "America/New_York", start)
		if err != nil {
			t.Errorf("%s: %v", c.rule, err)
			continue
		}
		if got := fmtAll(occ); len(got) != len(c.want) || (len(got) > 0 && got[len(got)-1] != c.want[len(c.want)-1]) || got[1] != c.want[1] {
			t.Errorf("%s: got %v want %v", c.rule, got, c.want)
		}
	}
	for _, bad := range []string{"FREQ=MONTHLY;COUNT=2", "FREQ=DAILY", "FREQ=DAILY;COUNT=x", "FREQ=DAILY;BYDAY=XX;COUNT=2"} {
		if _, err := expandRRule(bad, "America/New_York", start); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if _, err := expandRRule("FREQ=DAILY;COUNT=2", "Nowhere/Land", start); err == nil {
		t.Errorf("unknown zone accepted")
	}
}
