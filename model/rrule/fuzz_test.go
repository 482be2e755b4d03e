package rrule

import (
	"testing"
	"time"

	"github.com/strata-hpc/strata/internal/fuzzcheck"
)

// fuzzZones are zones with odd offsets and daylight-saving rules.
var fuzzZones = []string{"UTC", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe", "Asia/Kathmandu"}

// FuzzExpand checks standing reservation rules: bounded work whatever
// COUNT, INTERVAL, UNTIL or start say, at most MaxOccurrences strictly
// increasing occurrences starting at start and none after UNTIL.
func FuzzExpand(f *testing.F) {
	start := time.Date(2026, 3, 6, 9, 0, 0, 0, time.UTC).Unix()
	for _, s := range []string{"FREQ=DAILY;COUNT=3", "FREQ=WEEKLY;BYDAY=MO,FR;COUNT=3", "FREQ=DAILY;BYHOUR=9,15;COUNT=3", "FREQ=HOURLY;INTERVAL=2;COUNT=2",
		"FREQ=DAILY;UNTIL=20260307", "FREQ=WEEKLY;UNTIL=20270101T000000Z;BYDAY=SA,SU;BYHOUR=0,23", "FREQ=MONTHLY;COUNT=2", "FREQ=DAILY",
		"FREQ=DAILY;COUNT=999999999", "FREQ=HOURLY;INTERVAL=9223372036854775807;COUNT=5", "FREQ=WEEKLY;BYDAY=MO;BYHOUR=3;COUNT=1000"} {
		f.Add(s, start, byte(1))
	}
	f.Add("FREQ=DAILY;COUNT=1000;BYHOUR=1", int64(1)<<62, byte(0))
	// Found by this target: INTERVAL multiples overflowed (seconds of CPU).
	f.Add("FREQ=WEEKLY;INTERVAL=4611686018427387903;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYHOUR=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23;COUNT=1000", start, byte(0))
	f.Fuzz(func(t *testing.T, rule string, start int64, zone byte) {
		tz := fuzzZones[int(zone)%len(fuzzZones)]
		if _, err := time.LoadLocation(tz); err != nil {
			t.Skip("no tzdata")
		}
		var occ []int64
		var err error
		fuzzcheck.Bounded(t, len(rule), func() { occ, err = Expand(rule, tz, start) })
		if err != nil {
			return
		}
		if len(occ) == 0 || len(occ) > MaxOccurrences || occ[0] != start {
			t.Fatalf("%q from %d: %d occurrences, first %v", rule, start, len(occ), occ[:min(len(occ), 1)])
		}
		for i := 1; i < len(occ); i++ {
			if occ[i] <= occ[i-1] {
				t.Fatalf("%q from %d: occurrence %d at %d is not after %d", rule, start, i, occ[i], occ[i-1])
			}
		}
	})
}
