package pbscmd

import (
	"strconv"
	"time"
)

// parseDateTime reads qsub -a / qalter -a: [[[[CC]YY]MM]DD]hhmm[.SS] in loc.
// Fields left out are taken from now; when only the time of day is given
// and it has passed today, it means tomorrow (as OpenPBS's cvtdate does).
func parseDateTime(v string, now time.Time, loc *time.Location) (int64, bool) {
	if loc == nil {
		loc = time.Local
	}
	now = now.In(loc)
	main, secs := v, "00"
	if i := len(v) - 3; i >= 0 && v[i] == '.' {
		main, secs = v[:i], v[i+1:]
	}
	if len(main) < 4 || len(main) > 12 || len(main)%2 != 0 || !allDigits(main) || !allDigits(secs) {
		return 0, false
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	year, month, day := now.Year(), int(now.Month()), now.Day()
	n := len(main)
	mm, hh := num(main[n-2:]), num(main[n-4:n-2])
	if n >= 6 {
		day = num(main[n-6 : n-4])
	}
	if n >= 8 {
		month = num(main[n-8 : n-6])
	}
	if n >= 10 {
		yy := num(main[n-10 : n-8])
		if n == 12 {
			year = num(main[:2])*100 + yy
		} else {
			year = 2000 + yy
		}
	}
	ss := num(secs)
	if hh > 23 || mm > 59 || ss > 59 || month < 1 || month > 12 || day < 1 || day > 31 {
		return 0, false
	}
	t := time.Date(year, time.Month(month), day, hh, mm, ss, 0, loc)
	if n == 4 && t.Before(now) {
		t = t.AddDate(0, 0, 1)
	}
	return t.Unix(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
