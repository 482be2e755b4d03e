package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Limit is one entry of a PBS limit attribute (max_run, max_queued):
// "[o:PBS_ALL=10]", "[u:PBS_GENERIC=2]", "[u:alice=4]", "[g:grp=8]".
type Limit struct {
	Kind  byte   // 'o' overall, 'u' user, 'g' group, 'p' project
	Who   string // PBS_ALL, PBS_GENERIC or a name
	Value int64
}

// ParseLimits parses a limit list. A plain number is the old form and means
// "[o:PBS_ALL=N]".
func ParseLimits(s string) ([]Limit, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return nil, fmt.Errorf("limit %q is negative", s)
		}
		return []Limit{{Kind: 'o', Who: "PBS_ALL", Value: n}}, nil
	}
	var out []Limit
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "[") || !strings.HasSuffix(part, "]") {
			return nil, fmt.Errorf("limit %q is not of the form [u:name=N]", part)
		}
		body := strings.TrimSpace(part[1 : len(part)-1])
		kind, rest, ok := strings.Cut(body, ":")
		who, val, ok2 := strings.Cut(rest, "=")
		if !ok || !ok2 || len(strings.TrimSpace(kind)) != 1 || !strings.Contains("ougp", strings.TrimSpace(kind)) {
			return nil, fmt.Errorf("limit %q is not of the form [u:name=N]", part)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("limit %q: %q is not a count", part, val)
		}
		l := Limit{Kind: strings.TrimSpace(kind)[0], Who: strings.TrimSpace(who), Value: n}
		if l.Kind == 'o' && l.Who != "PBS_ALL" || l.Who == "" {
			return nil, fmt.Errorf("limit %q: bad entity", part)
		}
		out = append(out, l)
	}
	return out, nil
}

// FormatLimits writes limits back in canonical form.
func FormatLimits(ls []Limit) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("[%c:%s=%d]", l.Kind, l.Who, l.Value)
	}
	return strings.Join(parts, ",")
}

// LimitFor returns the limit that applies to a job of user/group: a named
// entry wins over PBS_GENERIC; the overall limit is returned separately.
// ok is false when no limit of that kind applies.
func LimitFor(ls []Limit, kind byte, name string) (int64, bool) {
	var generic int64 = -1
	for _, l := range ls {
		if l.Kind != kind {
			continue
		}
		if l.Who == name {
			return l.Value, true
		}
		if l.Who == "PBS_GENERIC" {
			generic = l.Value
		}
	}
	if generic >= 0 {
		return generic, true
	}
	return 0, false
}
