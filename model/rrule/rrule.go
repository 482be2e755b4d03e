// Package rrule expands a standing reservation's recurrence rule (the
// iCalendar RRULE subset pbs_rsub -r accepts) into occurrence start times.
// It is a pure function of the rule, the time zone and the first start.
package rrule

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxOccurrences bounds a standing reservation (OpenPBS has no bound; a
// COUNT in the millions would make one huge record).
const MaxOccurrences = 1000

// MaxHorizonYears bounds how far after its start a standing reservation's
// occurrences are computed.
const MaxHorizonYears = 1000

// Expand computes the start times of a standing reservation's
// occurrences from its iCalendar rule, read in the time zone tz (PBS_TZID),
// the first one being start. The supported subset: FREQ=HOURLY|DAILY|
// WEEKLY, COUNT or UNTIL, INTERVAL, BYDAY (MO..SU) and BYHOUR. Local wall
// clock times are kept across daylight-saving changes, as iCalendar says.
func Expand(rule, tz string, start int64) ([]int64, error) {
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, fmt.Errorf("unknown PBS_TZID %q", tz)
	}
	freq, count, interval := "", 0, 1
	var until int64
	var days map[time.Weekday]bool
	var hours map[int]bool
	for _, part := range strings.Split(strings.TrimSpace(rule), ";") {
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("bad rule part %q", part)
		}
		switch strings.ToUpper(k) {
		case "FREQ":
			freq = strings.ToUpper(v)
		case "COUNT":
			if count, err = strconv.Atoi(v); err != nil || count < 1 {
				return nil, fmt.Errorf("bad COUNT %q", v)
			}
		case "INTERVAL":
			if interval, err = strconv.Atoi(v); err != nil || interval < 1 {
				return nil, fmt.Errorf("bad INTERVAL %q", v)
			}
		case "UNTIL":
			t, err := parseUntil(v, loc)
			if err != nil {
				return nil, err
			}
			until = t
		case "BYDAY":
			days = map[time.Weekday]bool{}
			for _, d := range strings.Split(v, ",") {
				wd, ok := weekdays[strings.ToUpper(d)]
				if !ok {
					return nil, fmt.Errorf("bad BYDAY %q", d)
				}
				days[wd] = true
			}
		case "BYHOUR":
			hours = map[int]bool{}
			for _, h := range strings.Split(v, ",") {
				n, err := strconv.Atoi(h)
				if err != nil || n < 0 || n > 23 {
					return nil, fmt.Errorf("bad BYHOUR %q", h)
				}
				hours[n] = true
			}
		default:
			return nil, fmt.Errorf("unsupported rule part %s", k)
		}
	}
	if count == 0 && until == 0 {
		return nil, fmt.Errorf("the rule needs COUNT or UNTIL")
	}
	if count == 0 || count > MaxOccurrences {
		count = MaxOccurrences
	}
	t0 := time.Unix(start, 0).In(loc)
	var step func(t time.Time, n int) time.Time
	var horizon int // periods in MaxHorizonYears
	switch freq {
	case "HOURLY":
		step = func(t time.Time, n int) time.Time { return t.Add(time.Duration(n) * time.Hour) }
		horizon = MaxHorizonYears * 366 * 24
	case "DAILY":
		step = func(t time.Time, n int) time.Time { return t.AddDate(0, 0, n) }
		horizon = MaxHorizonYears * 366
	case "WEEKLY":
		step = func(t time.Time, n int) time.Time { return t.AddDate(0, 0, 7*n) }
		horizon = MaxHorizonYears * 53
	default:
		return nil, fmt.Errorf("unsupported FREQ %q", freq)
	}
	// Candidates: each period's anchor, expanded by BYDAY (within the
	// week, for WEEKLY) and BYHOUR (within the day), then filtered.
	out := []int64{start}
	for p := 0; len(out) < count && p < 100*MaxOccurrences; p++ {
		// p*interval overflowed for a huge INTERVAL: the anchors then
		// jumped back and forth, almost no candidate came after the last
		// occurrence, and a 150-byte rule cost seconds of CPU (found by
		// FuzzExpand). Occurrences past the horizon are not computed.
		if p > 0 && (interval > horizon || p > horizon/interval) {
			break
		}
		anchor := step(t0, p*interval)
		var cands []time.Time
		dayStarts := []time.Time{anchor}
		if freq == "WEEKLY" && days != nil {
			dayStarts = nil
			monday := anchor.AddDate(0, 0, -((int(anchor.Weekday()) + 6) % 7))
			for d := 0; d < 7; d++ {
				dayStarts = append(dayStarts, monday.AddDate(0, 0, d))
			}
		}
		for _, d := range dayStarts {
			if days != nil && !days[d.Weekday()] {
				continue
			}
			if hours != nil && freq != "HOURLY" {
				for h := 0; h < 24; h++ {
					if hours[h] {
						cands = append(cands, time.Date(d.Year(), d.Month(), d.Day(), h, t0.Minute(), t0.Second(), 0, loc))
					}
				}
				continue
			}
			if hours != nil && !hours[d.Hour()] {
				continue
			}
			cands = append(cands, d)
		}
		for _, c := range cands {
			u := c.Unix()
			if u <= out[len(out)-1] {
				continue
			}
			if until != 0 && u > until {
				return out, nil
			}
			out = append(out, u)
			if len(out) == count {
				break
			}
		}
	}
	return out, nil
}

var weekdays = map[string]time.Weekday{"SU": time.Sunday, "MO": time.Monday, "TU": time.Tuesday,
	"WE": time.Wednesday, "TH": time.Thursday, "FR": time.Friday, "SA": time.Saturday}

func parseUntil(v string, loc *time.Location) (int64, error) {
	for _, layout := range []string{"20060102T150405", "20060102"} {
		if t, err := time.ParseInLocation(layout, strings.TrimSuffix(v, "Z"), loc); err == nil {
			if layout == "20060102" {
				t = t.AddDate(0, 0, 1).Add(-time.Second) // the whole day
			}
			return t.Unix(), nil
		}
	}
	return 0, fmt.Errorf("bad UNTIL %q", v)
}
