package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize parses a PBS size: an integer, an optional multiplier k m g t p
// (powers of 1024, either case) and an optional unit b (bytes) or w (8-byte
// words). It returns bytes. Fractions are rejected, as in OpenPBS.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" {
		return 0, fmt.Errorf("empty size")
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q does not start with a number", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	rest := t[i:]
	mult := int64(1)
	if rest != "" {
		switch rest[0] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		case 'p':
			mult = 1 << 50
		}
		if mult != 1 {
			rest = rest[1:]
		}
	}
	switch rest {
	case "", "b":
	case "w":
		mult *= 8
	default:
		return 0, fmt.Errorf("size %q has an unknown unit", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return n * mult, nil
}

// FormatSize prints bytes the way PBS stores sizes: the largest multiplier
// that divides the value exactly, lowercase ("16gb", "512mb", "1234b").
func FormatSize(b int64) string {
	units := []string{"pb", "tb", "gb", "mb", "kb"}
	shifts := []uint{50, 40, 30, 20, 10}
	for i, sh := range shifts {
		if b != 0 && b%(1<<sh) == 0 {
			return fmt.Sprintf("%d%s", b>>sh, units[i])
		}
	}
	return fmt.Sprintf("%db", b)
}

// FormatSizeKB prints bytes in kb, as MoM-reported values and exec_vnode are
// written ("16777216kb"). Values are rounded up to the next kb.
func FormatSizeKB(b int64) string {
	return fmt.Sprintf("%dkb", (b+1023)/1024)
}

// FormatSizeShort reduces a size until the number has at most digits digits,
// as qstat -a's Memory column and pbsnodes -aS do ("2gb", "251gb").
func FormatSizeShort(b int64, digits int) string {
	units := []string{"b", "kb", "mb", "gb", "tb", "pb"}
	v := b
	u := 0
	limit := int64(math.Pow10(digits))
	for v >= limit && u < len(units)-1 {
		v = (v + 1023) / 1024
		u++
	}
	return fmt.Sprintf("%d%s", v, units[u])
}

// ParseDuration parses a PBS duration: [[HH:]MM:]SS[.frac] or plain seconds.
// Hours may exceed 24; a fraction of .5 or more rounds up.
func ParseDuration(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty duration")
	}
	parts := strings.Split(t, ":")
	if len(parts) > 3 {
		return 0, fmt.Errorf("duration %q has too many fields", s)
	}
	var whole int64
	ok := true
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, "eE+- ") {
			return 0, fmt.Errorf("duration %q: bad field %q", s, p)
		}
		if i < len(parts)-1 {
			n, err := strconv.ParseInt(p, 10, 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("duration %q: bad field %q", s, p)
			}
			if whole, ok = addMinutes(whole, n); !ok {
				return 0, fmt.Errorf("duration %q is too large", s)
			}
			continue
		}
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("duration %q: bad seconds %q", s, p)
		}
		// Converting a float at or above 2^63 to int64 is undefined (it
		// gave a negative walltime); such a duration is refused.
		if f >= math.MaxInt64 {
			return 0, fmt.Errorf("duration %q is too large", s)
		}
		sec := int64(f)
		if f-float64(sec) >= 0.5 {
			sec++
		}
		if whole, ok = addMinutes(whole, sec); !ok {
			return 0, fmt.Errorf("duration %q is too large", s)
		}
	}
	return whole, nil
}

// addMinutes returns whole*60 + n (the next, finer field of a duration),
// ok false when that does not fit in an int64. whole and n are >= 0.
func addMinutes(whole, n int64) (int64, bool) {
	if whole > (math.MaxInt64-n)/60 {
		return 0, false
	}
	return whole*60 + n, true
}

// FormatDuration prints seconds as HH:MM:SS with at least two hour digits.
func FormatDuration(sec int64) string {
	if sec < 0 {
		sec = 0
	}
	return fmt.Sprintf("%02d:%02d:%02d", sec/3600, (sec/60)%60, sec%60)
}

// ParseBool accepts the PBS boolean spellings True/False/true/false/t/f/y/n/1/0.
func ParseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "t", "y", "yes", "1":
		return true, nil
	case "false", "f", "n", "no", "0":
		return false, nil
	}
	return false, fmt.Errorf("%q is not a boolean", s)
}

// FormatBool prints a boolean as PBS does ("True"/"False").
func FormatBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
